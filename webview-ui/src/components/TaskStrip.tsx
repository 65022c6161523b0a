// TaskStrip: the window's open tasks (README, "Several tasks at once"): title, mode, status and
// cost of each, a badge on those waiting for the user, subtasks under their parent: tasks
// started with a parent, and the subtasks an orchestrator delegates, read from the parent's own
// rows (openTasks.ts, subtasks). A click shows the task, or the parent's chat at a delegated
// subtask's row; the others keep running. It re-renders on a task's state and on the rows of
// its delegate calls, never on a delta.
//
// In a long day the strip would list every task the window opened: finished tasks (done,
// failed, stopped) that are not on screen fold behind one "N finished" entry that opens on a
// click. A task that works or waits is never folded, nor a finished one with such a subtask.
// The ✕ of a finished task takes it off the strip only (it stays in history and on the Board);
// that of a live one closes it in the daemon.

import { useState } from "react";
import { Mode } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { useBoard } from "../state/boardStore";
import { phaseText, subtasks, useOpenTasks, type OpenTask, type Phase, type Subtask } from "../state/openTasks";
import { formatCost } from "../util/format";

/** finished says whether a task in that phase has ended (it may fold, and its ✕ only hides it). */
export function finished(p: Phase): boolean {
  return p === "done" || p === "failed" || p === "stopped";
}

export function TaskStrip({ ctrl }: { ctrl: Controller }) {
  const tasks = useOpenTasks(ctrl.open);
  const shown = useApp(ctrl.app, (s) => s.taskId);
  useBoard(ctrl.board); // parents arrive with the board
  const [unfolded, setUnfolded] = useState(false);
  const entries = tasks.length + tasks.reduce((n, t) => n + subtasks(t.store).length, 0);
  if (entries < 2 && !(tasks.length === 1 && !shown)) return null;
  const ids = new Set(tasks.map((t) => t.id));
  const children = (id: string) => tasks.filter((t) => ctrl.board.parentOf(t.id) === id);
  // A task folds when it and every subtask under it have ended and none is on screen.
  const folds = new Map<string, boolean>();
  const folded = (t: OpenTask): boolean => {
    let f = folds.get(t.id);
    if (f === undefined) {
      f = t.id !== shown && finished(ctrl.open.phase(t.id) ?? "working") && children(t.id).every(folded);
      folds.set(t.id, f);
    }
    return f;
  };
  const entry = (t: OpenTask, depth: number, keep: (c: OpenTask) => boolean): React.ReactNode[] => [
    <Entry key={t.id} ctrl={ctrl} t={t} active={t.id === shown} depth={depth} />,
    ...subtasks(t.store).map((s) => <SubtaskEntry key={`${t.id}/subtask-${s.index}`} ctrl={ctrl} parent={t.id} s={s} depth={depth + 1} />),
    ...children(t.id)
      .filter(keep)
      .flatMap((c) => entry(c, depth + 1, keep)),
  ];
  const count = tasks.filter(folded).length;
  const top = tasks.filter((t) => !ids.has(ctrl.board.parentOf(t.id)));
  const live = top.filter((t) => !folded(t)).flatMap((t) => entry(t, 0, (c) => !folded(c)));
  // The folded ones: whole ended trees, each under its topmost folded task.
  const foldedRoots = tasks.filter((t) => folded(t) && !folds.get(ctrl.board.parentOf(t.id)));
  return (
    <ul className="task-strip" aria-label="Open tasks">
      {live}
      {count > 0 && (
        <li className="task-strip-fold">
          <button className="task-strip-fold-toggle" aria-expanded={unfolded} onClick={() => setUnfolded(!unfolded)}>
            <span className={`codicon codicon-chevron-${unfolded ? "down" : "right"}`} aria-hidden /> {count} finished
          </button>
          {unfolded && (
            <ul className="task-strip" aria-label="Finished tasks">
              {foldedRoots.flatMap((t) => entry(t, 0, () => true))}
            </ul>
          )}
        </li>
      )}
    </ul>
  );
}

function Entry({ ctrl, t, active, depth }: { ctrl: Controller; t: OpenTask; active: boolean; depth: number }) {
  const s = t.store.state;
  const phase = ctrl.open.phase(t.id) ?? "working";
  const title = s?.title || "New task";
  const cost = s ? (s.included ? "included" : s.pricesKnown || s.cost > 0 ? formatCost(s.cost) : "") : "";
  const ended = finished(phase);
  return (
    <li className={`task-strip-entry ${phase}${active ? " active" : ""}`} style={{ paddingLeft: `${depth}em` }} aria-current={active || undefined}>
      <OpenButton title={title} mode={modeName(s?.mode, s?.modeSlug)} phase={phase} cost={cost} onClick={() => ctrl.openTask(t.id)} />
      {ended ? (
        <button className="icon-button" aria-label={`Remove ${title} from the strip`} title="Off the strip: the task stays in history and on the Board" onClick={() => ctrl.dismissTask(t.id)}>
          <span className="codicon codicon-close" aria-hidden />
        </button>
      ) : (
        <button className="icon-button" aria-label={`Close ${title}`} title="Close the task (it stays in history)" onClick={() => void ctrl.closeTask(t.id)}>
          <span className="codicon codicon-close" aria-hidden />
        </button>
      )}
    </li>
  );
}

/** SubtaskEntry is a subtask the task parent delegated; a click shows the parent's chat at its
 * row. It has no ✕: it ends with its parent. */
function SubtaskEntry({ ctrl, parent, s, depth }: { ctrl: Controller; parent: string; s: Subtask; depth: number }) {
  // Rows carry no prices: a cost of zero may be an unknown price, so only a real one shows.
  const cost = s.cost > 0 ? formatCost(s.cost) : "";
  return (
    <li className={`task-strip-entry task-strip-subtask ${s.phase}`} style={{ paddingLeft: `${depth}em` }}>
      <OpenButton title={s.title} mode={s.mode} phase={s.phase} cost={cost} onClick={() => void ctrl.showRow(parent, s.index)} />
    </li>
  );
}

function OpenButton({ title, mode, phase, cost, onClick }: { title: string; mode: string; phase: Phase; cost: string; onClick(): void }) {
  return (
    <button className="task-strip-open" title={title} onClick={onClick}>
      {phase === "waiting" && <span className="task-strip-badge" aria-hidden>!</span>}
      {phase === "failed" && <span className="codicon codicon-error task-strip-failed" aria-hidden />}
      <span className="task-strip-title">{title}</span>{" "}
      <span className="task-strip-meta muted">
        {mode} · {phaseText[phase]}
        {cost && ` · ${cost}`}
      </span>
    </button>
  );
}

/** modeName names a task's mode in its entry: Plan, Act, or a custom mode's slug (an orchestrator's). */
function modeName(mode: Mode | undefined, slug: string | undefined): string {
  if (mode === Mode.PLAN) return "Plan";
  return slug && slug !== "act" && slug !== "plan" ? slug : "Act";
}
