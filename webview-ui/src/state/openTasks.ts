// OpenTasks: the window's live tasks (README, "Several tasks at once"). Each has its own
// TaskStore, fed by its own Subscribe stream whether it is shown or not; only the visible one
// is rendered. A hidden store has no row listeners, so its text deltas cost an array write
// and no render. The strip reads each task's summary (title, mode, status, cost), which
// changes only with the task's state, never with a text delta, and its subtasks (subtasks),
// which change with the rows of its delegate calls.

import { useSyncExternalStore } from "react";
import { AskKind, ToolOperation, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { TaskStatus, type TaskState } from "@cairn/proto/gen/cairn/v1/task_pb";
import { delegated } from "../util/subagents";
import { TaskStore, type Scheduler } from "./taskStore";

/** Where a task stands, as the strip and the badge say it. */
export type Phase = "working" | "waiting" | "done" | "failed" | "stopped";

export interface OpenTask {
  id: string;
  store: TaskStore;
  subscription: AbortController;
}

/** phaseOf reads a task's phase from its state and its open question. */
export function phaseOf(state: TaskState | undefined, ask: Message | undefined): Phase {
  if (!state) return "working";
  switch (state.status) {
    case TaskStatus.RUNNING:
      return "working";
    case TaskStatus.WAITING: {
      const k = ask?.kind.case === "ask" ? ask.kind.value : undefined;
      return k === AskKind.COMPLETION_RESULT || k === AskKind.RESUME_COMPLETED_TASK ? "done" : "waiting";
    }
    case TaskStatus.COMPLETED:
      return "done";
    case TaskStatus.FAILED:
      return "failed";
    default:
      return "stopped";
  }
}

export const phaseText: Record<Phase, string> = {
  working: "working",
  waiting: "waiting for you",
  done: "done",
  failed: "failed",
  stopped: "stopped",
};

/** Subtask is a subtask a task delegated (docs/modes.md, "The orchestrator"), as the strip
 * lists it under the task: read from the task's own rows, it is no task of its own. */
export interface Subtask {
  /** The message index of its row in the parent's chat: the delegate call's row, or the
   * question that asks to start it. */
  index: number;
  title: string;
  mode: string;
  phase: Phase;
  cost: number;
}

const subtaskPhases: Record<string, Phase> = { running: "working", done: "done", failed: "failed" };

/** subtasks reads a task's subtasks from its store: one per delegate call's row, and, while
 * the task asks to start one, that one waiting for the user. A subtask asks nothing itself: it
 * runs under the task's auto-approval policy, which refuses what it does not give. */
export function subtasks(store: TaskStore): Subtask[] {
  const out: Subtask[] = [];
  const entry = (index: number, text: string, mode: string, phase: Phase, cost: number) =>
    out.push({ index, title: text.trim().split("\n")[0] || mode, mode, phase, cost });
  for (const pos of store.subtaskRows) {
    const s = delegated(store.messages[pos]);
    if (s) entry(store.firstIndex + pos, s.prompt, s.mode, subtaskPhases[s.status] ?? "working", s.cost);
  }
  const st = store.state;
  const ask = st && st.status === TaskStatus.WAITING && st.openAskIndex >= 0 ? store.messageAt(st.openAskIndex) : undefined;
  if (ask?.payload.case === "tool" && ask.payload.value.operation === ToolOperation.DELEGATE) {
    entry(ask.index, ask.payload.value.content, ask.payload.value.path, "waiting", 0);
  }
  return out;
}

export class OpenTasks {
  private readonly tasks = new Map<string, OpenTask>();
  private readonly listeners = new Set<() => void>();
  private version = 0;
  private readonly phases = new Map<string, Phase>();

  constructor(
    private readonly scheduler: Scheduler | undefined,
    /** Told when a task's phase changes (the controller's badge and notifications). */
    private readonly onPhase: (id: string, phase: Phase, before: Phase | undefined) => void,
  ) {}

  get(id: string): OpenTask | undefined {
    return this.tasks.get(id);
  }

  ids(): string[] {
    return [...this.tasks.keys()];
  }

  all(): OpenTask[] {
    return [...this.tasks.values()];
  }

  /** add makes the task's store and listens to its state (for the strip and the phase). */
  add(id: string): OpenTask {
    const store = new TaskStore(this.scheduler);
    const t: OpenTask = { id, store, subscription: new AbortController() };
    this.tasks.set(id, t);
    store.subscribeState(() => this.stateChanged(id));
    store.subscribeSubtasks(() => this.bump());
    this.bump();
    return t;
  }

  remove(id: string): void {
    const t = this.tasks.get(id);
    if (!t) return;
    t.subscription.abort();
    this.tasks.delete(id);
    this.phases.delete(id);
    this.bump();
  }

  phase(id: string): Phase | undefined {
    return this.phases.get(id);
  }

  /** waiting lists the tasks that wait for the user. */
  waiting(): string[] {
    return [...this.phases].filter(([, p]) => p === "waiting").map(([id]) => id);
  }

  private stateChanged(id: string): void {
    const t = this.tasks.get(id);
    if (!t) return;
    const s = t.store.state;
    const ask = s && s.openAskIndex >= 0 ? t.store.messageAt(s.openAskIndex) : undefined;
    const p = phaseOf(s, ask);
    const before = this.phases.get(id);
    this.phases.set(id, p);
    this.bump();
    if (p !== before) this.onPhase(id, p, before);
  }

  getVersion = (): number => this.version;
  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
  private bump(): void {
    this.version++;
    this.listeners.forEach((l) => l());
  }
}

/** useOpenTasks re-renders when a task opens, closes or its state changes (never on a text delta). */
export function useOpenTasks(open: OpenTasks): OpenTask[] {
  useSyncExternalStore(open.subscribe, open.getVersion);
  return open.all();
}
