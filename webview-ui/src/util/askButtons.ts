// askButtons maps an open ask to its action buttons (Cline's buttonConfig, same labels).

import { AskKind, ToolOperation, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";

/** What a button does: answer the ask, or close the task and start over. */
export type ButtonAction = "approve" | "reject" | "newTask" | "newTaskWithContext";

export interface AskButtons {
  primary?: { label: string; action: ButtonAction };
  secondary?: { label: string; action: ButtonAction };
  /** Followup/plan options, answered as a message with the option text. */
  options: string[];
  /** Placeholder of the input while this ask is open. */
  placeholder: string;
}

const approveReject = (primary: string): Pick<AskButtons, "primary" | "secondary" | "placeholder"> => ({
  primary: { label: primary, action: "approve" },
  secondary: { label: "Reject", action: "reject" },
  // Feedback goes out with whichever of the two buttons the user presses: name them as shown.
  placeholder: `Type feedback (sent with ${primary} or Reject)…`,
});

/**
 * working reports a task that is busy with no question for the user: the moment for Cancel and
 * for "Queue a message". A waiting task whose ask was withdrawn (the "Proceed While Running" of
 * a command that ended) works on with its next request, so it counts too.
 */
export function working(state: { status: TaskStatus; openAskIndex: number } | undefined): boolean {
  if (!state) return false;
  return state.status === TaskStatus.RUNNING || (state.status === TaskStatus.WAITING && state.openAskIndex < 0);
}

export function isEditTool(m: Message): boolean {
  if (m.payload.case !== "tool") return false;
  const op = m.payload.value.operation;
  return op === ToolOperation.EDITED_EXISTING_FILE || op === ToolOperation.NEW_FILE_CREATED;
}

export function askButtons(m: Message | undefined): AskButtons {
  const none: AskButtons = { options: [], placeholder: "Type a message…" };
  if (!m || m.kind.case !== "ask") return none;
  switch (m.kind.value) {
    case AskKind.TOOL:
      return { ...approveReject(isEditTool(m) ? "Save" : "Approve"), options: [] };
    case AskKind.COMMAND:
      return { ...approveReject("Run Command"), options: [] };
    case AskKind.USE_MCP_SERVER:
    case AskKind.BROWSER_ACTION_LAUNCH:
      return { ...approveReject("Approve"), options: [] };
    case AskKind.COMMAND_OUTPUT:
      return { primary: { label: "Proceed While Running", action: "approve" }, options: [], placeholder: none.placeholder };
    case AskKind.API_REQ_FAILED:
      return {
        primary: { label: "Retry", action: "approve" },
        secondary: { label: "Start New Task", action: "newTask" },
        options: [],
        placeholder: none.placeholder,
      };
    case AskKind.RESUME_TASK:
    case AskKind.RESUME_COMPLETED_TASK:
      return {
        primary: { label: "Resume Task", action: "approve" },
        secondary: { label: "Start New Task", action: "newTask" },
        options: [],
        placeholder: "Type a message to resume with…",
      };
    case AskKind.MISTAKE_LIMIT_REACHED:
      return {
        primary: { label: "Proceed Anyways", action: "approve" },
        secondary: { label: "Start New Task", action: "newTask" },
        options: [],
        placeholder: "Type guidance for the model…",
      };
    case AskKind.TASK_LIMIT_REACHED:
      return {
        primary: { label: "Continue", action: "approve" },
        secondary: { label: "Stop Task", action: "reject" },
        options: [],
        placeholder: "Raise the limit in the header, or type guidance…",
      };
    case AskKind.REPEATED_TOOL_CALL:
      return {
        primary: { label: "Continue", action: "approve" },
        secondary: { label: "Stop Task", action: "reject" },
        options: [],
        placeholder: "Type guidance for the model…",
      };
    case AskKind.AUTO_APPROVAL_MAX_REQ_REACHED:
      return {
        primary: { label: "Proceed", action: "approve" },
        secondary: { label: "Start New Task", action: "newTask" },
        options: [],
        placeholder: none.placeholder,
      };
    case AskKind.NEW_TASK:
      return { primary: { label: "Start New Task with Context", action: "newTaskWithContext" }, options: [], placeholder: none.placeholder };
    case AskKind.CONDENSE:
      return { primary: { label: "Condense", action: "approve" }, options: [], placeholder: none.placeholder };
    case AskKind.REPORT_BUG:
      return { ...approveReject("Report Bug"), options: [], placeholder: none.placeholder };
    case AskKind.COMPLETION_RESULT:
      return {
        primary: { label: "Start New Task", action: "newTask" },
        options: [],
        placeholder: "Type feedback to continue the task…",
      };
    case AskKind.FOLLOWUP:
    case AskKind.PLAN_MODE_RESPOND: {
      const f = m.payload.case === "followup" ? m.payload.value : undefined;
      return { options: f && !f.selected ? f.options : [], placeholder: "Type your answer…" };
    }
    default:
      return none;
  }
}
