// AskBar shows the buttons of the open ask (and Cancel while the task runs).

import { useSyncExternalStore } from "react";
import { AskResponse } from "../gen/cairn/v1/task_pb";
import { TaskStatus } from "../gen/cairn/v1/task_pb";
import type { Controller } from "../state/controller";
import { useRow, useTaskState } from "../state/taskStore";
import { askButtons, type ButtonAction } from "../util/askButtons";

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

export function AskBar({ ctrl, draft }: { ctrl: Controller; draft: Draft }) {
  const { state, ask } = useOpenAsk(ctrl);
  const cfg = askButtons(ask);
  const running = state?.status === TaskStatus.RUNNING && !ask;

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

  if (!running && !cfg.primary && !cfg.secondary && cfg.options.length === 0) return null;
  return (
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
            <button className="button primary" onClick={() => run(cfg.primary!.action)}>
              {cfg.primary.label}
            </button>
          )}
          {cfg.secondary && (
            <button className="button secondary" onClick={() => run(cfg.secondary!.action)}>
              {cfg.secondary.label}
            </button>
          )}
          {running && (
            <button className="button secondary" onClick={() => void ctrl.cancel()}>
              Cancel
            </button>
          )}
        </div>
      )}
    </div>
  );
}
