// Where each task's chat was scrolled (README, "Several tasks at once"): the list of the task on
// screen unmounts when the strip switches tasks, and finds its place again when it comes back.
// Kept per TaskStore, so it goes with the store when the task is closed.

import type { StateSnapshot } from "react-virtuoso";
import type { TaskStore } from "../state/taskStore";

export interface ScrollPlace {
  state: StateSnapshot;
  /** The list was following the end (then it goes to the end again, with what arrived since). */
  following: boolean;
  /** The store's epoch when it was taken: a snapshot since (a restore) starts over at the end. */
  epoch: number;
  /** The store's count of the user's own sends and answers: one since (an answer from the
   * Board) shows the end too. */
  userActs: number;
}

const places = new WeakMap<TaskStore, ScrollPlace>();

export function rememberScroll(store: TaskStore, place: ScrollPlace): void {
  places.set(store, place);
}

/** recallScroll returns the remembered place for the store, once, if nothing since (a snapshot,
 * a send or an answer of the user's) sends the list to the end. */
export function recallScroll(store: TaskStore): ScrollPlace | undefined {
  const p = places.get(store);
  places.delete(store);
  return p && p.epoch === store.epoch && p.userActs === store.userActs ? p : undefined;
}
