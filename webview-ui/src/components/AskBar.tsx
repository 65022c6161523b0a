// AskBar shows the buttons of the open ask (and Cancel while the task runs).

import { useEffect, useRef, useSyncExternalStore } from "react";
import { AskResponse } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { Controller } from "../state/controller";
import { useRow, useTaskState } from "../state/taskStore";
import { askButtons, working, type ButtonAction } from "../util/askButtons";
import { keyAction } from "../util/chatKeys";

/** holdsText: the key went to a text field with something typed in it. */
function holdsText(t: EventTarget | null): boolean {
  const field = t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && /^(text|search|number|url|email)$/.test(t.type));
  return field && (t as HTMLInputElement).value.trim() !== "";
}

/** modKey names the modifier of the approve shortcut on this platform. */
const modKey = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform) ? "Cmd" : "Ctrl";

export interface Draft {
  text: string;
  images: string[];
  clear(): void;
}

export function useOpenAsk(ctrl: Controller) {
  const state = useTaskState(ctrl.task);
  const idx = state?.openAskIndex ?? -1;
  const pos = idx >= 0 ? idx - ctrl.task.firstIndex : -1;
  // Re-render when the ask row itself changes (its payload may still stream in).
  useSyncExternalStore(ctrl.task.subscribeList, ctrl.task.getListVersion);
  const { message } = useRow(ctrl.task, pos);
  return { state, ask: idx >= 0 && message?.index === idx ? message : undefined };
}

/** AskBar; with keys set (the chat is on screen) it also answers the keyboard (util/chatKeys). */
export function AskBar({ ctrl, draft, keys = false }: { ctrl: Controller; draft: Draft; keys?: boolean }) {
  const { state, ask } = useOpenAsk(ctrl);
  const cfg = askButtons(ask);
  const running = working(state) && !ask;

  const run = (action: ButtonAction) => {
    const text = draft.text.trim();
    const att = { images: draft.images, files: [] };
    if (action === "newTask") {
      void ctrl.clearTask();
      return;
    }
    if (action === "newTaskWithContext") {
      // The old task ends with the approval; the proposed context starts the new one.
      const context = ask?.payload.case === "newTask" ? ask.payload.value.context : ask?.text ?? "";
      void (async () => {
        await ctrl.answer(AskResponse.APPROVE, "", att);
        await ctrl.clearTask();
        await ctrl.newTask(context);
      })();
      draft.clear();
      return;
    }
    void ctrl.answer(action === "approve" ? AskResponse.APPROVE : AskResponse.REJECT, text, att);
    draft.clear();
  };

  // The listener reads the latest render's state through a ref: it is installed once.
  const latest = useRef({ cfg, running, draft, run, cancel: () => void ctrl.cancel() });
  latest.current = { cfg, running, draft, run, cancel: () => void ctrl.cancel() };
  useEffect(() => {
    if (!keys) return;
    const onKey = (e: KeyboardEvent) => {
      const l = latest.current;
      const action = keyAction(e, {
        hasPrimary: !!l.cfg.primary,
        hasSecondary: !!l.cfg.secondary,
        running: l.running,
        draft: l.draft.text.trim() !== "" || l.draft.images.length > 0 || holdsText(e.target),
      });
      if (!action) return;
      e.preventDefault();
      if (action === "primary") l.run(l.cfg.primary!.action);
      else if (action === "secondary") l.run(l.cfg.secondary!.action);
      else l.cancel();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [keys]);

  if (!running && !cfg.primary && !cfg.secondary && cfg.options.length === 0) return null;
  return (
    <>
    {ask?.why && ask.why.lines.length > 0 && <WhyLine lines={ask.why.lines} locked={ask.why.locked} />}
    <div className="ask-bar">
      {cfg.options.length > 0 && (
        <div className="options" role="group" aria-label="Answer options">
          {cfg.options.map((o) => (
            <button key={o} className="option-button" onClick={() => void ctrl.answer(AskResponse.MESSAGE, o)}>
              {o}
            </button>
          ))}
        </div>
      )}
      {(cfg.primary || cfg.secondary || running) && (
        <div className="buttons">
          {cfg.primary && (
            <button className="button primary" title={`${cfg.primary.label} (${modKey}+Enter)`} onClick={() => run(cfg.primary!.action)}>
              {cfg.primary.label}
            </button>
          )}
          {cfg.secondary && (
            <button className="button secondary" title={`${cfg.secondary.label} (Escape)`} onClick={() => run(cfg.secondary!.action)}>
              {cfg.secondary.label}
            </button>
          )}
          {running && (
            <button className="button secondary" title="Cancel (Escape)" onClick={() => void ctrl.cancel()}>
              Cancel
            </button>
          )}
        </div>
      )}
    </div>
    </>
  );
}

/** WhyLine is the approval's "Why?": the decision and every rule that led to it, as `cairn why` prints them. */
function WhyLine({ lines, locked }: { lines: string[]; locked: boolean }) {
  return (
    <details className="ask-why">
      <summary>Why?</summary>
      <pre>{[...lines, ...(locked ? ["A managed policy rule decided: no \"always\" answer applies."] : [])].join("\n")}</pre>
    </details>
  );
}
