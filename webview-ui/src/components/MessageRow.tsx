// MessageRow renders one chat message. It subscribes to its own row in the TaskStore, so a
// streamed delta re-renders only the row it belongs to.

import { memo, useCallback, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { AskKind, SayKind, ToolOperation, ToolOutcome, type Message, type ToolPayload } from "@cairn/proto/gen/cairn/v1/message_pb";
import { useRow, type TaskStore } from "../state/taskStore";
import { useController } from "../state/context";
import { RestoreKind } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { isEditTool } from "../util/askButtons";
import { base64, formatCost } from "../util/format";
import { isLaunch, sessionStart } from "../util/browserSession";
import { BrowserSession } from "./BrowserSession";
import { parseChecklist } from "../util/focusChain";
import { Markdown, Thinking } from "./Markdown";
import { CopyButton } from "./CopyButton";
import { SubagentsRow } from "./SubagentsRow";
import { RowActions } from "./RowActions";

/** useIsOpenAsk is true while this message is the task's open ask (re-renders only on change). */
function useIsOpenAsk(store: TaskStore, index: number): boolean {
  const get = useCallback(() => store.state?.openAskIndex === index, [store, index]);
  return useSyncExternalStore(store.subscribeState, get);
}

export const MessageRow = memo(function MessageRow({ store, pos }: { store: TaskStore; pos: number }) {
  const { message } = useRow(store, pos);
  if (!message) return <div className="row row-empty" />;
  // A browser session is one row: its launch renders all of it, its later rows nothing.
  if (isLaunch(message)) {
    return (
      <div className="row" data-index={message.index} data-kind={kindName(message)}>
        <LaunchRow store={store} pos={pos} index={message.index} />
      </div>
    );
  }
  if (sessionStart(store.messages, pos) >= 0) return <div className="row row-spacer" data-index={message.index} />;
  return (
    <div className="row" data-index={message.index} data-kind={kindName(message)}>
      <RowBody store={store} m={message} />
      <RowActions store={store} m={message} />
    </div>
  );
});

function LaunchRow({ store, pos, index }: { store: TaskStore; pos: number; index: number }) {
  const open = useIsOpenAsk(store, index);
  return <BrowserSession store={store} pos={pos} asking={open} />;
}

export function kindName(m: Message): string {
  if (m.kind.case === "ask") return `ask:${AskKind[m.kind.value] ?? m.kind.value}`.toLowerCase();
  if (m.kind.case === "say") return `say:${SayKind[m.kind.value] ?? m.kind.value}`.toLowerCase();
  return "unknown";
}

function Header({ icon, title, children, tone }: { icon: string; title: ReactNode; children?: ReactNode; tone?: string }) {
  return (
    <div className={`row-header ${tone ?? ""}`}>
      <span className={`codicon codicon-${icon}`} aria-hidden />
      <span className="row-title">{title}</span>
      {children}
    </div>
  );
}

/**
 * Collapsible follows initiallyOpen until the user toggles it: a row often renders before the
 * state that makes it an open ask arrives, and a pending edit's diff must open then too.
 */
function Collapsible({ label, children, initiallyOpen = false }: { label: string; children: ReactNode; initiallyOpen?: boolean }) {
  const [chosen, setOpen] = useState<boolean | undefined>(undefined);
  const open = chosen ?? initiallyOpen;
  return (
    <div className="collapsible">
      <button className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className={`codicon codicon-chevron-${open ? "down" : "right"}`} aria-hidden />
        {label}
      </button>
      {open && <div className="collapsible-body">{children}</div>}
    </div>
  );
}

function Images({ images }: { images: string[] }) {
  if (images.length === 0) return null;
  return (
    <div className="thumbs">
      {images.map((src, i) => (
        <img key={i} src={src} alt={`attached image ${i + 1}`} className="thumb" />
      ))}
    </div>
  );
}

function DiffView({ diff }: { diff: string }) {
  const lines = diff.split("\n");
  // SEARCH/REPLACE blocks: the search side is shown as removed, the replace side as added.
  let side: "" | "search" | "replace" = "";
  return (
    <pre className="diff" aria-label="Diff">
      {lines.map((l, i) => {
        let cls = "";
        if (/^\s*(-{3,} ?SEARCH|<{3,} ?SEARCH)\s*$/.test(l)) {
          side = "search";
          cls = "diff-marker";
        } else if (/^\s*(\+{3,} ?REPLACE|>{3,} ?REPLACE)\s*$/.test(l)) {
          side = "";
          cls = "diff-marker";
        } else if (side === "search" && /^\s*={3,}\s*$/.test(l)) {
          side = "replace";
          cls = "diff-marker";
        } else if (side === "search") cls = "diff-del";
        else if (side === "replace") cls = "diff-add";
        else if (l.startsWith("+") && !l.startsWith("+++")) cls = "diff-add";
        else if (l.startsWith("-") && !l.startsWith("---")) cls = "diff-del";
        else if (l.startsWith("@@")) cls = "diff-hunk";
        return (
          <div key={i} className={cls}>
            {l || " "}
          </div>
        );
      })}
    </pre>
  );
}

/**
 * editOutcome is the title of an edit row once the daemon recorded how the edit ended; undefined
 * while it is undecided, and for rows saved before outcomes were recorded.
 */
function editOutcome(t: ToolPayload): { icon: string; title: string; tone: string } | undefined {
  const created = t.operation === ToolOperation.NEW_FILE_CREATED;
  if (!created && t.operation !== ToolOperation.EDITED_EXISTING_FILE) return undefined;
  switch (t.outcome) {
    case ToolOutcome.SAVED:
      return { icon: "check", title: created ? "Cairn created this file" : "Cairn edited this file", tone: "success" };
    case ToolOutcome.SAVED_WITH_CHANGES:
      return {
        icon: "check",
        title: created ? "Cairn created this file, saved with your changes" : "Cairn edited this file, saved with your changes",
        tone: "success",
      };
    case ToolOutcome.REJECTED:
      return { icon: "close", title: created ? "You rejected this new file" : "You rejected this edit", tone: "muted" };
    case ToolOutcome.FAILED:
      return {
        icon: "error",
        title: created ? "Creating this file failed; nothing was written" : "Saving this edit failed; the file is unchanged",
        tone: "error",
      };
    default:
      return undefined;
  }
}

function toolTitle(t: ToolPayload, asking: boolean): { icon: string; title: string; tone?: string } {
  const outcome = asking ? undefined : editOutcome(t);
  if (outcome) return outcome;
  const want = (s: string) => (asking ? `Cairn wants to ${s}` : `Cairn ${past(s)}`);
  switch (t.operation) {
    case ToolOperation.READ_FILE:
      return { icon: "file-code", title: want("read this file") };
    case ToolOperation.LIST_FILES_TOP_LEVEL:
      return { icon: "folder-opened", title: want("view the top level files in this directory") };
    case ToolOperation.LIST_FILES_RECURSIVE:
      return { icon: "folder-opened", title: want("recursively view all files in this directory") };
    case ToolOperation.LIST_CODE_DEFINITION_NAMES:
      return { icon: "file-code", title: want("view source code definition names used in this directory") };
    case ToolOperation.SEARCH_FILES:
      return { icon: "search", title: want(`search this directory for ${t.regex}`) };
    case ToolOperation.EDITED_EXISTING_FILE:
      return { icon: "edit", title: want("edit this file") };
    case ToolOperation.NEW_FILE_CREATED:
      return { icon: "new-file", title: want("create a new file") };
    case ToolOperation.WEB_FETCH:
      return { icon: "link", title: want("fetch content from this URL") };
    case ToolOperation.SUMMARIZE_TASK:
      return { icon: "fold", title: want("condense the conversation") };
    case ToolOperation.USE_SUBAGENTS:
      return { icon: "organization", title: want("start read-only subagents") };
    case ToolOperation.SWITCH_MODE:
      return { icon: "arrow-swap", title: want(`switch to the ${t.path} mode`) };
    case ToolOperation.DELEGATE:
      return { icon: "type-hierarchy-sub", title: want(`start a subtask in the ${t.path} mode`) };
    case ToolOperation.NAVIGATE:
      return { icon: "references", title: want(`look up the ${t.content} from this file`) };
    default:
      return { icon: "tools", title: want("use a tool") };
  }
}

function past(s: string): string {
  return s
    .replace(/^read/, "read")
    .replace(/^view/, "viewed")
    .replace(/^recursively view/, "recursively viewed")
    .replace(/^search/, "searched")
    .replace(/^edit/, "edited")
    .replace(/^create/, "created")
    .replace(/^fetch/, "fetched")
    .replace(/^condense/, "condensed")
    .replace(/^start/, "started")
    .replace(/^switch/, "switched")
    .replace(/^look up/, "looked up")
    .replace(/^use/, "used");
}

/** bodyLabel names the body of the tool rows whose body is not a result. */
const bodyLabel: Partial<Record<ToolOperation, string>> = {
  [ToolOperation.USE_SUBAGENTS]: "Prompts",
  [ToolOperation.SWITCH_MODE]: "Reason",
  [ToolOperation.DELEGATE]: "Assignment",
};

function ToolRow({ m, asking }: { m: Message; asking: boolean }) {
  const t = m.payload.case === "tool" ? m.payload.value : undefined;
  if (!t) return <Markdown text={m.text} streaming={m.partial} />;
  const { icon, title, tone } = toolTitle(t, asking);
  const edit = isEditTool(m);
  const body = t.diff || t.content;
  // These name no file: the mode is in the title.
  const subagents = t.operation === ToolOperation.USE_SUBAGENTS || t.operation === ToolOperation.SWITCH_MODE || t.operation === ToolOperation.DELEGATE;
  return (
    <div className={`tool-row${asking ? " pending" : ""}`}>
      <Header icon={icon} title={title} tone={tone}>
        {t.outsideWorkspace && <span className="badge warn">outside workspace</span>}
        {t.protectedReason && <span className="badge warn">protected</span>}
      </Header>
      {t.protectedReason && <ProtectedNote reason={t.protectedReason} />}
      <div className="tool-path" hidden={subagents}>
        <span className="codicon codicon-file" aria-hidden />
        <span className="path" title={t.path}>
          {t.path}
          {t.filePattern ? ` (${t.filePattern})` : ""}
        </span>
        {m.partial && <span className="codicon codicon-loading codicon-modifier-spin" aria-label="streaming" />}
      </div>
      {body && (
        <Collapsible label={edit ? (t.diff ? "Diff" : "Content") : bodyLabel[t.operation] ?? "Result"} initiallyOpen={asking && (edit || subagents)}>
          {t.diff ? <DiffView diff={t.diff} /> : <pre className="content">{t.content}</pre>}
        </Collapsible>
      )}
    </div>
  );
}

/** ProtectedNote says why a write always asks: the file is one git, the editor or agents run. */
function ProtectedNote({ reason }: { reason: string }) {
  return (
    <div className="protected-note" role="note" aria-label="Why this file is protected">
      <span className="codicon codicon-shield" aria-hidden /> Protected file: {reason}
    </div>
  );
}

function CommandRow({ m, asking }: { m: Message; asking: boolean }) {
  const c = m.payload.case === "command" ? m.payload.value : undefined;
  const command = c?.command || m.text;
  return (
    <div className={`command-row${asking ? " pending" : ""}`}>
      <Header icon="terminal" title={asking ? "Cairn wants to execute this command:" : "Command"}>
        {/* Once the command ran, whether it needed approval no longer matters. */}
        {asking && c?.requiresApproval && <span className="badge warn">requires approval</span>}
        {c?.protectedReason && <span className="badge warn">protected</span>}
        {c?.outsideWrite && <span className="badge warn">outside workspace</span>}
        {c?.sandbox && <span className="badge warn">no sandbox</span>}
      </Header>
      {c?.sandbox && (
        <div className="protected-note" role="note" aria-label="How this command runs">
          <span className="codicon codicon-warning" aria-hidden /> Runs without the sandbox: {c.sandbox}
        </div>
      )}
      {asking && c?.sandboxDenied && (
        <div className="protected-note" role="note" aria-label="What the sandbox stopped">
          <span className="codicon codicon-shield" aria-hidden /> The sandbox stopped it: {c.sandboxDenied}
        </div>
      )}
      {c?.protectedReason && <ProtectedNote reason={c.protectedReason} />}
      {c?.outsideWrite && (
        <div className="protected-note" role="note" aria-label="Why this command is asked">
          <span className="codicon codicon-shield" aria-hidden /> Writes outside the workspace: {c.outsideWrite}
        </div>
      )}
      {asking && c?.outsideRead && !c?.outsideWrite && (
        <div className="protected-note" role="note" aria-label="Why this command is asked">
          <span className="codicon codicon-eye" aria-hidden /> Reads outside the workspace: {c.outsideRead}
        </div>
      )}
      <div className="command-line">
        <code>{command}</code>
        <CopyButton text={command} label="Copy command" />
      </div>
    </div>
  );
}

/**
 * commandEnd is the note, after pos, saying that background command id ended or was stopped
 * (an info row whose payload names the command), or undefined while none came.
 */
export function commandEnd(messages: readonly (Message | undefined)[], pos: number, id: number): Message | undefined {
  if (id <= 0) return undefined;
  for (let i = pos + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m?.kind.case === "say" && m.kind.value === SayKind.INFO && m.payload.case === "commandOutput" && m.payload.value.id === id) {
      return m;
    }
  }
  return undefined;
}

function CommandOutputRow({ store, m }: { store: TaskStore; m: Message }) {
  const ctrl = useController();
  const o = m.payload.case === "commandOutput" ? m.payload.value : undefined;
  const id = o?.running ? o.id : 0;
  const pos = m.index - store.firstIndex;
  // A background command's row runs until a later note says it ended.
  const ended = useSyncExternalStore(store.subscribeList, () => commandEnd(store.messages, pos, id));
  const [stopping, setStopping] = useState(false);
  const output = o?.output || m.text;
  // The command_output ask only carries the "Proceed While Running" button.
  if (!o && !output) return <div className="row-spacer" />;
  const endCode = ended?.payload.case === "commandOutput" ? ended.payload.value.exitCode : undefined;
  const running = (o?.running ?? m.partial) && !ended;
  const code = ended ? endCode : o?.exitCode;
  const label = running
    ? id > 0
      ? `Running in the background (command ${id})`
      : "Running"
    : code !== undefined
      ? `Exited with code ${code}`
      : ended
        ? "Left running in the terminal"
        : "Output";
  return (
    <div className="command-output">
      <div className="command-output-bar">
        <span className={`status-dot ${running ? "running" : code ? "failed" : "ok"}`} aria-hidden />
        <span>{label}</span>
        {running && id > 0 && (
          <button
            className="small-button"
            title="Stop this command and everything it started"
            disabled={stopping}
            onClick={() => {
              setStopping(true);
              void ctrl.stopCommand(id).finally(() => setStopping(false));
            }}
          >
            <span className="codicon codicon-debug-stop" aria-hidden /> {stopping ? "Stopping…" : "Stop"}
          </button>
        )}
      </div>
      <pre className="output" aria-label="Command output">
        {output}
      </pre>
    </div>
  );
}

function ApiRequestRow({ m }: { m: Message }) {
  const a = m.payload.case === "apiRequest" ? m.payload.value : undefined;
  const failed = !!a?.error;
  const cancelled = !!a?.cancelReason;
  const icon = failed ? "error" : cancelled ? "circle-slash" : a?.done ? "check" : "loading codicon-modifier-spin";
  const title = failed ? "API Request Failed" : cancelled ? "API Request Cancelled" : a?.done ? "API Request" : "API Request…";
  return (
    <div className="api-row">
      <Header icon={icon} title={title} tone={failed ? "error" : ""}>
        {a && a.cost > 0 && <span className="badge cost">{formatCost(a.cost)}</span>}
      </Header>
      {failed && <div className="error-text">{a?.error}</div>}
      {m.text && (
        <Collapsible label="Request">
          <pre className="content">{m.text}</pre>
        </Collapsible>
      )}
    </div>
  );
}

/**
 * answerAfter is the option the user chose for the question at pos: the payload's own record,
 * else the next user reply (user_feedback) when its text is one of the options.
 */
export function answerAfter(messages: readonly (Message | undefined)[], pos: number): string {
  const q = messages[pos];
  const f = q?.payload.case === "followup" ? q.payload.value : undefined;
  if (!f || f.options.length === 0) return "";
  if (f.selected) return f.selected;
  for (let i = pos + 1; i < messages.length; i++) {
    const m = messages[i];
    if (!m) continue;
    if (m.kind.case === "ask") return "";
    if (m.kind.case === "say" && m.kind.value === SayKind.USER_FEEDBACK) {
      const text = m.text.trim();
      return f.options.find((o) => o.trim() === text) ?? "";
    }
  }
  return "";
}

function FollowupRow({ store, m, plan, asking }: { store: TaskStore; m: Message; plan: boolean; asking: boolean }) {
  const f = m.payload.case === "followup" ? m.payload.value : undefined;
  const q = f?.question || m.text;
  const pos = m.index - store.firstIndex;
  // The reply is a later row: re-render when it arrives (only when the answer changes).
  const chosen = useSyncExternalStore(store.subscribeList, () => answerAfter(store.messages, pos));
  // While the question is open its options are the ask bar's buttons; shown once, not here.
  const showOptions = !asking && f && f.options.length > 0;
  return (
    <div className="followup-row">
      <Header icon={plan ? "lightbulb" : "question"} title={plan ? "Plan" : "Cairn has a question:"} />
      <Markdown text={q} streaming={m.partial} />
      {showOptions && (
        <ul className="answered-options" aria-label="Options">
          {f.options.map((o) => (
            <li key={o} className={o === chosen ? "chosen" : ""} aria-current={o === chosen ? "true" : undefined}>
              <span className={`codicon codicon-${o === chosen ? "pass-filled" : "circle-large-outline"}`} aria-hidden />
              <span>{o}</span>
              {o === chosen && <span className="badge">your answer</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function BrowserRow({ m }: { m: Message }) {
  const b = m.payload.case === "browser" ? m.payload.value : undefined;
  const png = b && b.screenshotPng.length > 0 ? `data:image/png;base64,${base64(b.screenshotPng)}` : undefined;
  return (
    <div className="browser-row">
      <Header icon="globe" title={`Browser${b?.action ? `: ${b.action}` : ""}`}>
        {b?.url && <span className="path">{b.url}</span>}
        {b?.coordinate && <span className="badge">{b.coordinate}</span>}
      </Header>
      {b?.text && <code>{b.text}</code>}
      {b?.currentUrl && <div className="muted">{b.currentUrl}</div>}
      {png && <img className="screenshot" src={png} alt="Browser screenshot" />}
      {b?.logs && (
        <Collapsible label="Console logs">
          <pre className="content">{b.logs}</pre>
        </Collapsible>
      )}
      {!b && m.text && <div>{m.text}</div>}
    </div>
  );
}

/** mcpStarted names an auto-approved MCP call: the tool or resource and its server. */
function mcpStarted(m: Message): string {
  const p = m.payload.case === "mcp" ? m.payload.value : undefined;
  if (p?.toolName) return `Using ${p.toolName} on ${p.serverName}`;
  if (p?.uri) return `Reading ${p.uri} on ${p.serverName}`;
  return "MCP request started…";
}

function McpRow({ m, asking, response }: { m: Message; asking: boolean; response: boolean }) {
  const p = m.payload.case === "mcp" ? m.payload.value : undefined;
  if (response) {
    return (
      <div className="mcp-row">
        <Header icon="server" title="MCP response" />
        <Collapsible label="Response" initiallyOpen>
          <pre className="content">{p?.response || m.text}</pre>
        </Collapsible>
      </div>
    );
  }
  return (
    <div className={`mcp-row${asking ? " pending" : ""}`}>
      <Header
        icon="server"
        title={
          p?.uri
            ? `Cairn wants to access a resource on ${p.serverName}`
            : `Cairn wants to use a tool on ${p?.serverName ?? "an MCP server"}`
        }
      />
      {p?.toolName && <div className="tool-path"><code>{p.toolName}</code></div>}
      {p?.uri && <div className="tool-path"><code>{p.uri}</code></div>}
      {p?.arguments && <pre className="content">{p.arguments}</pre>}
    </div>
  );
}

function CheckpointRow({ m }: { m: Message }) {
  const ctrl = useController();
  const [choosing, setChoosing] = useState(false);
  const hash = m.payload.case === "checkpoint" ? m.payload.value.hash : "";
  const restore = (kind: RestoreKind) => {
    setChoosing(false);
    void ctrl.restoreCheckpoint(m.index, kind);
  };
  // One line at the narrowest sidebar: the label gives way (ellipsis), the buttons never wrap.
  // Restore is a disclosure toggle, drawn unlike the choices it opens on the line below.
  return (
    <div className="checkpoint-row">
      <div className="checkpoint-head">
        <span className="codicon codicon-bookmark" aria-hidden />
        <span className="checkpoint-label muted" title={`Checkpoint ${hash}`}>
          Checkpoint {hash.slice(0, 7)}
        </span>
        <span className="checkpoint-line" />
        <button className="small-button" title="Show the changes since this checkpoint" onClick={() => void ctrl.compareCheckpoint(m.index)}>
          Compare
        </button>
        <button className="small-button" title="Fork from here: a new task with the conversation and files of this checkpoint" onClick={() => void ctrl.forkTask(m.index)}>
          Fork
        </button>
        <button className="checkpoint-toggle" aria-expanded={choosing} onClick={() => setChoosing((c) => !c)}>
          Restore
          <span className={`codicon codicon-chevron-${choosing ? "up" : "down"}`} aria-hidden />
        </button>
      </div>
      {choosing && (
        <div role="group" aria-label="Restore checkpoint" className="checkpoint-choices">
          <span className="muted">Restore:</span>
          <button className="small-button" onClick={() => restore(RestoreKind.FILES)}>Files</button>
          <button className="small-button" onClick={() => restore(RestoreKind.TASK)}>Task</button>
          <button className="small-button" onClick={() => restore(RestoreKind.BOTH)}>Files &amp; task</button>
        </div>
      )}
    </div>
  );
}

function UserBubble({ m, title }: { m: Message; title?: string }) {
  return (
    <div className="user-bubble">
      {title && <div className="muted small">{title}</div>}
      <div className="user-text">{m.text}</div>
      <Images images={m.images} />
      {m.files.length > 0 && <div className="muted small">{m.files.join(", ")}</div>}
    </div>
  );
}

function ErrorRow({ m, title }: { m: Message; title: string }) {
  return (
    <div className="error-row">
      <Header icon="error" title={title} tone="error" />
      <div className="error-text">{m.text}</div>
    </div>
  );
}

function Info({ icon, text, tone }: { icon: string; text: string; tone?: string }) {
  return <Header icon={icon} title={text} tone={tone ?? "muted"} />;
}

function RowBody({ store, m }: { store: TaskStore; m: Message }) {
  const open = useIsOpenAsk(store, m.index);
  if (m.kind.case === "ask") {
    switch (m.kind.value) {
      case AskKind.FOLLOWUP:
        return <FollowupRow store={store} m={m} plan={false} asking={open} />;
      case AskKind.PLAN_MODE_RESPOND:
        return <FollowupRow store={store} m={m} plan asking={open} />;
      case AskKind.COMMAND:
        return <CommandRow m={m} asking={open} />;
      case AskKind.COMMAND_OUTPUT:
        // The output itself streams in the command_output say row; this ask only offers
        // "Proceed While Running" while it is open, and is withdrawn when the command ends.
        return open ? <Info icon="loading codicon-modifier-spin" text="The command is still running." /> : <div className="row-spacer" />;
      case AskKind.TOOL:
        return <ToolRow m={m} asking={open} />;
      case AskKind.COMPLETION_RESULT:
        return m.text ? <Markdown text={m.text} /> : <div className="row-spacer" />;
      case AskKind.API_REQ_FAILED:
        return <ErrorRow m={m} title="API request failed" />;
      // Once answered (resumed, or a message sent), these no longer ask: they say what happened.
      case AskKind.RESUME_TASK:
        return <Info icon="debug-pause" text={open ? "Task was interrupted. Resume it?" : "Task was interrupted, then resumed."} />;
      case AskKind.RESUME_COMPLETED_TASK:
        return <Info icon="history" text={open ? "This task was completed. Continue it or start a new one." : "This task was completed, then continued."} />;
      case AskKind.MISTAKE_LIMIT_REACHED:
        return <ErrorRow m={m} title="Cairn is having trouble" />;
      case AskKind.TASK_LIMIT_REACHED:
        return <ErrorRow m={m} title="Task limit reached" />;
      case AskKind.REPEATED_TOOL_CALL:
        return <ErrorRow m={m} title="Cairn is repeating itself" />;
      case AskKind.AUTO_APPROVAL_MAX_REQ_REACHED:
        return <Info icon="warning" text={m.text || "Reached the maximum number of auto-approved requests."} tone="warn" />;
      case AskKind.BROWSER_ACTION_LAUNCH:
        return <BrowserRow m={m} />;
      case AskKind.USE_MCP_SERVER:
        return <McpRow m={m} asking={open} response={false} />;
      case AskKind.NEW_TASK:
      case AskKind.CONDENSE: {
        const ctx = m.payload.case === "newTask" ? m.payload.value.context : m.text;
        return (
          <div>
            <Header icon={m.kind.value === AskKind.CONDENSE ? "fold" : "new-file"} title={m.kind.value === AskKind.CONDENSE ? "Cairn wants to condense the conversation" : "Cairn wants to start a new task with this context"} />
            <Collapsible label="Context" initiallyOpen={open}>
              <Markdown text={ctx} streaming={m.partial} />
            </Collapsible>
          </div>
        );
      }
      case AskKind.REPORT_BUG:
        return (
          <div>
            <Header icon="bug" title="Cairn wants to file a bug report" />
            <Markdown text={m.text} streaming={m.partial} />
          </div>
        );
      default:
        return <Markdown text={m.text} streaming={m.partial} />;
    }
  }
  if (m.kind.case !== "say") return null;
  switch (m.kind.value) {
    case SayKind.TASK:
      return <UserBubble m={m} title="Task" />;
    case SayKind.USER_FEEDBACK:
      return <UserBubble m={m} />;
    case SayKind.USER_FEEDBACK_DIFF:
      return (
        <div>
          {/* Posted after an edit saved with changes (core/tools/edit): the proposal above, and here
              what the saved file has that the proposal did not. */}
          <Header icon="edit" title={`Saved with your changes${toolPath(m)}: what differs from the proposal`} />
          <DiffView diff={m.payload.case === "tool" ? m.payload.value.diff : m.text} />
        </div>
      );
    case SayKind.TEXT:
      return <Markdown text={m.text} streaming={m.partial} />;
    case SayKind.REASONING:
      return <Thinking text={m.text} streaming={m.partial} label={m.partial ? "Thinking…" : "Thinking"} />;
    case SayKind.ERROR:
      return <ErrorRow m={m} title="Error" />;
    case SayKind.DIFF_ERROR:
      return <ErrorRow m={m} title="The edit could not be applied" />;
    case SayKind.IGNORE_ERROR:
      return <ErrorRow m={m} title="Access blocked by the ignore file" />;
    case SayKind.ERROR_RETRY:
      return <RetryRow m={m} />;
    case SayKind.API_REQ_STARTED:
      return <ApiRequestRow m={m} />;
    case SayKind.API_REQ_RETRIED:
      return <Info icon="sync" text="API request retried" />;
    case SayKind.DELETED_API_REQS:
      // Written when the user went back to an earlier message (restore, edit and resend).
      return <Info icon="discard" text="Went back to an earlier point: what came after it was removed" />;
    case SayKind.COMPLETION_RESULT: {
      const c = m.payload.case === "completion" ? m.payload.value : undefined;
      const check = c?.check;
      if (check && !check.passed) {
        // The task's "done when" check refused the result (README, "Done when"): the task goes on.
        return (
          <div className="completion-row">
            <Header icon="error" title="Not done yet" tone="error" />
            <Markdown text={c?.result || m.text} streaming={m.partial} />
            <div className="done-check" role="group" aria-label="Done when check">
              <span>
                <code>{check.command}</code> exited {check.exitCode}
              </span>
              {check.output && <pre className="output">{check.output}</pre>}
            </div>
          </div>
        );
      }
      return (
        <div className="completion-row">
          <Header icon="check" title="Task Completed" tone="success" />
          <Markdown text={c?.result || m.text} streaming={m.partial} />
          {c?.command && <code className="command-line">{c.command}</code>}
          {check && (
            <div className="done-check">
              <span>
                <code>{check.command}</code> passed
              </span>
            </div>
          )}
        </div>
      );
    }
    case SayKind.COMMAND:
      return <CommandRow m={m} asking={false} />;
    case SayKind.COMMAND_OUTPUT:
      return <CommandOutputRow store={store} m={m} />;
    case SayKind.TOOL:
      return <ToolRow m={m} asking={false} />;
    case SayKind.SHELL_INTEGRATION_WARNING:
      return <Info icon="warning" tone="warn" text={m.text || "Shell integration unavailable: command output may be missing."} />;
    case SayKind.BROWSER_ACTION_LAUNCH:
    case SayKind.BROWSER_ACTION:
    case SayKind.BROWSER_ACTION_RESULT:
      return <BrowserRow m={m} />;
    case SayKind.MCP_SERVER_REQUEST_STARTED:
      return <Info icon="server" text={mcpStarted(m)} />;
    case SayKind.MCP_SERVER_RESPONSE:
      return <McpRow m={m} asking={false} response />;
    case SayKind.MCP_NOTIFICATION:
      return <Info icon="bell" text={m.text} />;
    case SayKind.CHECKPOINT_CREATED:
      return <CheckpointRow m={m} />;
    case SayKind.LOAD_MCP_DOCUMENTATION:
      return <Info icon="book" text="Loading MCP documentation" />;
    case SayKind.INFO:
      return <Info icon="info" text={m.text} />;
    case SayKind.HOOK:
      return <Info icon="zap" text={m.text} />;
    case SayKind.SUBAGENTS:
      return <SubagentsRow m={m} />;
    case SayKind.TASK_PROGRESS: {
      const md = m.payload.case === "progress" ? m.payload.value.markdown : m.text;
      const items = parseChecklist(md);
      const done = items.filter((i) => i.done).length;
      return (
        <div>
          <Header icon="checklist" title={`Progress ${done}/${items.length}`} />
          <ul className="checklist readonly">
            {items.map((it, i) => (
              <li key={i} className={it.done ? "done" : ""}>
                <span className={`codicon codicon-${it.done ? "pass-filled" : "circle-large-outline"}`} aria-hidden />
                {it.text}
              </li>
            ))}
          </ul>
        </div>
      );
    }
    default:
      return <Markdown text={m.text} streaming={m.partial} />;
  }
}

/** secondsLeft is the whole seconds until dueMs, rounded up (0 once it has passed). */
function secondsLeft(dueMs: number): number {
  return Math.max(0, Math.ceil((dueMs - Date.now()) / 1000));
}

/**
 * RetryRow is the wait before a failed request is retried. The countdown runs here, from the
 * row's time and the announced delay (the daemon sends no ticks); "Retry now" asks the daemon
 * to end the wait at once by approving this row.
 */
function RetryRow({ m }: { m: Message }) {
  const ctrl = useController();
  const r = m.payload.case === "retry" ? m.payload.value : undefined;
  const due = r && m.time ? timestampMs(m.time) + r.delaySeconds * 1000 : 0;
  const [left, setLeft] = useState(() => (due ? secondsLeft(due) : 0));
  const [cut, setCut] = useState(false);
  const counting = left > 0 && !cut;
  useEffect(() => {
    if (!due || !counting) return;
    const id = setInterval(() => setLeft(secondsLeft(due)), 250);
    return () => clearInterval(id);
  }, [due, counting]);
  const attempt = r ? ` (attempt ${r.attempt}/${r.maxAttempts})` : "";
  let title = "Retrying";
  if (r && !due) title = `Retrying${attempt} in ${r.delaySeconds}s`;
  else if (counting) title = `Retrying in ${left}s${attempt}`;
  else if (cut) title = `Retrying now${attempt}`;
  else if (r) title = `Retried after ${r.delaySeconds}s${attempt}`;
  return (
    <div className="error-row">
      <Header icon="sync" title={<span aria-live="polite">{title}</span>} tone="warn">
        {counting && (
          <button
            className="small-button"
            title="Retry the request without waiting"
            onClick={() => {
              setCut(true);
              void ctrl.retryNow(m.index);
            }}
          >
            Retry now
          </button>
        )}
      </Header>
      {(r?.error || m.text) && <div className="error-text">{r?.error || m.text}</div>}
    </div>
  );
}

/** toolPath is " to PATH" for a row whose tool payload names a file, else "". */
function toolPath(m: Message): string {
  return m.payload.case === "tool" && m.payload.value.path ? ` to ${m.payload.value.path}` : "";
}
