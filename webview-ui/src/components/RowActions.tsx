// RowActions: the controls under a chat row: copy its text, edit and resend a user message
// (after a confirm, since it restores the checkpoint before it), and, on a completion, open
// every change of the work it covers in one multi-file diff; fork a new task from the message
// (enabled when a checkpoint follows it, else disabled with the reason).

import { useContext, useState, useSyncExternalStore } from "react";
import { SayKind, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import type { TaskStore } from "../state/taskStore";
import { ControllerContext, useController } from "../state/context";
import { changesSpan, completionChanged, copyText, isUserMessage } from "../util/rowActions";
import { CopyButton } from "./CopyButton";

export function RowActions({ store, m }: { store: TaskStore; m: Message }) {
  const text = copyText(m);
  const editable = isUserMessage(m);
  const completion = m.kind.case === "say" && m.kind.value === SayKind.COMPLETION_RESULT && !m.partial;
  const [editing, setEditing] = useState<string | undefined>();
  if (!text && !editable && !completion) return null;
  return (
    <>
      {completion && <SeeChanges store={store} m={m} />}
      <div className="row-actions">
        {editable && editing === undefined && (
          <button className="icon-button" aria-label="Edit and resend" title="Edit and resend" onClick={() => setEditing(m.text)}>
            <span className="codicon codicon-edit" aria-hidden />
          </button>
        )}
        {forkable(m) && <ForkButton store={store} m={m} />}
        {text && <CopyButton text={text} label="Copy message" />}
      </div>
      {editing !== undefined && <EditMessage m={m} text={editing} setText={setEditing} done={() => setEditing(undefined)} />}
    </>
  );
}

/** forkable says whether a row is a message of the conversation (the user's, the model's text,
 * a completion) and so offers "Fork from here"; tool and command rows do not: their own
 * controls (Stop, Approve) sit where the row's actions float. */
function forkable(m: Message): boolean {
  if (m.partial || m.kind.case !== "say") return false;
  const k = m.kind.value;
  return k === SayKind.TASK || k === SayKind.USER_FEEDBACK || k === SayKind.TEXT || k === SayKind.COMPLETION_RESULT;
}

function SeeChanges({ store, m }: { store: TaskStore; m: Message }) {
  const ctrl = useController();
  // Offered only when the work changed something; rows before this one decide, so only a
  // change in that answer re-renders the row.
  const changed = useSyncExternalStore(store.subscribeList, () => completionChanged(store.messages, m.index - store.firstIndex));
  // The span itself is worked out on click.
  const open = () => {
    const s = changesSpan(store.messages, m.index - store.firstIndex);
    if (!s) ctrl.app.set({ notice: "There is no checkpoint to compare with: checkpoints were off for this work." });
    else void ctrl.compareCheckpoint(s.fromIndex, s.toHash);
  };
  if (!changed) return null;
  return (
    <div className="row-footer">
      <button className="small-button" title="Open every file this work changed in one diff" onClick={open}>
        <span className="codicon codicon-diff-multiple" aria-hidden /> See new changes
      </button>
    </div>
  );
}

function EditMessage({ m, text, setText, done }: { m: Message; text: string; setText(t: string): void; done(): void }) {
  const ctrl = useController();
  const [confirming, setConfirming] = useState(false);
  const [sending, setSending] = useState(false);
  const send = async () => {
    setSending(true);
    const ok = await ctrl.editMessage(m.index, text.trim());
    setSending(false);
    if (ok) done();
    else setConfirming(false);
  };
  return (
    <div className="edit-message">
      <textarea
        aria-label="Edited message"
        value={text}
        rows={Math.min(8, text.split("\n").length + 1)}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            done();
          }
        }}
      />
      {confirming ? (
        <div className="confirm-row" role="alertdialog" aria-label="Confirm edit and resend">
          <span>
            This restores the files and the conversation to the checkpoint before this message; everything after it is removed.
          </span>
          <div className="buttons">
            <button className="button primary" disabled={sending} onClick={() => void send()}>
              Restore and send
            </button>
            <button className="button secondary" onClick={() => setConfirming(false)}>
              Keep editing
            </button>
          </div>
        </div>
      ) : (
        <div className="buttons">
          <button className="button primary" disabled={!text.trim()} onClick={() => setConfirming(true)}>
            Resend
          </button>
          <button className="button secondary" onClick={done}>
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}

/** forkReason says why a message cannot be forked from ("" when it can): it needs the checkpoint
 * row right after it (README, "Fork from any message"). */
export function forkReason(store: TaskStore, index: number): string {
  const next = store.messageAt(index + 1);
  if (next?.kind.case === "say" && next.kind.value === SayKind.CHECKPOINT_CREATED && next.payload.case === "checkpoint" && next.payload.value.hash) return "";
  return "No checkpoint at this message: nothing was snapshotted after it, or checkpoints are off";
}

function ForkButton({ store, m }: { store: TaskStore; m: Message }) {
  // The list drawn on its own (its tests, the benchmark) has no controller to fork with.
  const ctrl = useContext(ControllerContext);
  const reason = useSyncExternalStore(store.subscribeList, () => forkReason(store, m.index));
  if (!ctrl) return null;
  return (
    <button
      className="icon-button"
      aria-label="Fork from here"
      title={reason || "Fork from here: a new task with the conversation and files of this point"}
      disabled={!!reason}
      onClick={() => void ctrl.forkTask(m.index)}
    >
      <span className="codicon codicon-repo-forked" aria-hidden />
    </button>
  );
}
