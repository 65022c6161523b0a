// TaskStore holds one task's messages and header state and applies UiService.Subscribe events.
//
// Messages live in one array that is mutated in place (a TextAppended delta never copies the list);
// each row has a version counter and its own listeners, so a delta re-renders only its row.
// Text deltas are paced by frames: a delta that arrives when no text was shown since the last
// animation frame notifies its row at once, and the deltas after it are held and shown together
// at the next frame (flush() runs them now). While text pours in (more than one delta held in a
// frame) the store shows it once a frame and nothing in between; once it slows, the next delta
// shows at once again. So a row re-renders at most about once a frame however fast text streams,
// and text at a model's usual pace reaches the DOM when it arrives rather than up to a frame
// later (P9, docs/performance.md). Structural changes (snapshot, added, updated, state) notify at
// once.
//
// The store also keeps where the rows of delegate calls are (the task's subtasks, docs/modes.md
// "The orchestrator") with listeners of their own, told when such a row arrives or changes: the
// strip follows a hidden task's subtasks through them, and no text delta reaches them. And it
// holds a row to bring into view (reveal), which the chat's list takes when it shows the task.

import { useCallback, useSyncExternalStore } from "react";
import type { Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import type { SubscribeResponse, TaskState } from "@cairn/proto/gen/cairn/v1/task_pb";
import { delegated } from "../util/subagents";

type Listener = () => void;
export type Scheduler = (run: () => void) => void;

const defaultScheduler: Scheduler = (run) => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
  else setTimeout(run, 16);
};

export class TaskStore {
  /** Messages by position (position = message.index - firstIndex). Mutated in place. */
  readonly messages: Message[] = [];
  firstIndex = 0;
  state: TaskState | undefined;
  /** Increments with every snapshot or reset: the list remounts and scrolls to the end. */
  epoch = 0;
  /** Counts the user's own sends and answers in this task: the chat brings the end into view
   * on each, even when it was scrolled up (components/MessageList.tsx). */
  userActs = 0;

  private readonly versions: number[] = [];
  private readonly rowListeners = new Map<number, Set<Listener>>();
  private readonly listListeners = new Set<Listener>();
  private readonly stateListeners = new Set<Listener>();
  private readonly actListeners = new Set<Listener>();
  /** Monotonic counter for row versions, so a replaced row never reuses a version. */
  private seq = 0;
  private listVersion = 0;
  private stateVersion = 0;
  private readonly dirtyRows = new Set<number>();
  /** A frame callback is due: text was shown since the last frame, so new deltas wait for it. */
  private framePending = false;
  /** How many deltas waited for the frame that is due. */
  private held = 0;
  /** Positions of the rows of delegate calls, in order. */
  private subtaskPos: number[] = [];
  private subtaskVersion = 0;
  private readonly subtaskListeners = new Set<Listener>();
  /** The message index of a row to bring into view when the chat shows the task. */
  revealing: number | undefined;
  private readonly revealListeners = new Set<Listener>();

  constructor(private readonly schedule: Scheduler = defaultScheduler) {}

  apply(ev: SubscribeResponse): void {
    const e = ev.event;
    switch (e.case) {
      case "snapshot": {
        this.messages.length = 0;
        this.versions.length = 0;
        this.dirtyRows.clear();
        this.firstIndex = e.value.firstIndex;
        this.epoch++;
        for (const m of e.value.messages) {
          this.messages.push(m);
          this.versions.push(++this.seq);
        }
        this.state = e.value.state;
        this.subtaskPos = [];
        this.messages.forEach((m, pos) => delegated(m) && this.subtaskPos.push(pos));
        this.bumpSubtasks();
        this.bumpList();
        this.bumpState();
        for (const [pos, set] of this.rowListeners) if (pos < this.messages.length) set.forEach((l) => l());
        break;
      }
      case "messageAdded": {
        const m = e.value.message;
        if (!m) return;
        const pos = m.index - this.firstIndex;
        if (pos >= 0 && pos < this.messages.length) {
          this.messages[pos] = m;
          this.bumpRow(pos);
          this.rowChanged(pos);
        } else if (pos >= this.messages.length) {
          // A gap means we missed events; keep what we have and append (the next snapshot heals it).
          this.messages.push(m);
          this.versions.push(++this.seq);
          this.rowChanged(this.messages.length - 1);
          this.bumpList();
        }
        break;
      }
      case "textAppended": {
        const pos = e.value.index - this.firstIndex;
        const m = this.messages[pos];
        if (!m) return;
        m.text += e.value.delta;
        this.versions[pos] = ++this.seq;
        this.dirtyRows.add(pos);
        if (this.framePending) {
          this.held++;
        } else {
          // Nothing shown since the last frame: show this delta now and hold the next ones.
          this.framePending = true;
          this.schedule(() => this.frame());
          this.flush();
        }
        break;
      }
      case "messageFinalized": {
        // The deltas already built the text; only the streaming flag changes.
        const pos = e.value.index - this.firstIndex;
        const m = this.messages[pos];
        if (!m) return;
        m.partial = false;
        this.dirtyRows.delete(pos);
        this.bumpRow(pos);
        break;
      }
      case "messageUpdated": {
        const m = e.value.message;
        if (!m) return;
        const pos = m.index - this.firstIndex;
        if (pos < 0 || pos >= this.messages.length) return;
        this.messages[pos] = m;
        this.dirtyRows.delete(pos);
        this.bumpRow(pos);
        this.rowChanged(pos);
        break;
      }
      case "stateChanged":
        this.state = e.value;
        this.bumpState();
        break;
    }
  }

  /** frame runs at the animation frame after text was shown: it shows what was held since. When
   * more than one delta was held, text is pouring in, and the next frame is asked for at once, so
   * that the deltas until then wait for it too; otherwise the next delta shows when it arrives. */
  private frame(): void {
    const pouring = this.held > 1;
    this.framePending = false;
    this.held = 0;
    if (this.dirtyRows.size === 0) return;
    if (pouring) {
      this.framePending = true;
      this.schedule(() => this.frame());
    }
    this.flush();
  }

  /** flush delivers held text-delta notifications now. */
  flush(): void {
    const rows = [...this.dirtyRows];
    this.dirtyRows.clear();
    for (const pos of rows) this.rowListeners.get(pos)?.forEach((l) => l());
    if (rows.some((pos) => this.subtaskPos.includes(pos))) this.bumpSubtasks();
  }

  /** reset empties the store (new task / cleared task). */
  reset(): void {
    this.messages.length = 0;
    this.versions.length = 0;
    this.dirtyRows.clear();
    this.firstIndex = 0;
    this.state = undefined;
    this.epoch++;
    this.subtaskPos = [];
    this.bumpSubtasks();
    this.bumpList();
    this.bumpState();
  }

  get count(): number {
    return this.messages.length;
  }

  /** messageAt returns the message with the given task index. */
  messageAt(index: number): Message | undefined {
    return this.messages[index - this.firstIndex];
  }

  rowVersion(pos: number): number {
    return this.versions[pos] ?? -1;
  }

  subscribeRow(pos: number, l: Listener): () => void {
    let set = this.rowListeners.get(pos);
    if (!set) this.rowListeners.set(pos, (set = new Set()));
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0) this.rowListeners.delete(pos);
    };
  }

  /** rowListenerCount is how many rendered rows listen to this store (0 for a hidden task). */
  rowListenerCount(): number {
    let n = 0;
    for (const set of this.rowListeners.values()) n += set.size;
    return n;
  }

  /** userActed records a send or an answer of the user's own in this task. */
  userActed(): void {
    this.userActs++;
    this.actListeners.forEach((l) => l());
  }
  subscribeUserActs = (l: Listener): (() => void) => {
    this.actListeners.add(l);
    return () => this.actListeners.delete(l);
  };

  getListVersion = (): number => this.listVersion;
  subscribeList = (l: Listener): (() => void) => {
    this.listListeners.add(l);
    return () => this.listListeners.delete(l);
  };
  getStateVersion = (): number => this.stateVersion;
  subscribeState = (l: Listener): (() => void) => {
    this.stateListeners.add(l);
    return () => this.stateListeners.delete(l);
  };

  /** subtaskRows are the positions of the rows of delegate calls, in order (do not change it). */
  get subtaskRows(): readonly number[] {
    return this.subtaskPos;
  }
  getSubtaskVersion = (): number => this.subtaskVersion;
  /** subscribeSubtasks is told when a row of a delegate call arrives or changes. */
  subscribeSubtasks = (l: Listener): (() => void) => {
    this.subtaskListeners.add(l);
    return () => this.subtaskListeners.delete(l);
  };

  /** reveal asks the chat to bring the row with that message index into view (a subtask's row,
   * from the strip or the Board) when it shows this task, or at once when it does. */
  reveal(index: number): void {
    this.revealing = index;
    this.revealListeners.forEach((l) => l());
  }
  subscribeReveal = (l: Listener): (() => void) => {
    this.revealListeners.add(l);
    return () => this.revealListeners.delete(l);
  };

  /** rowChanged notes a row added or replaced: a delegate call's row is a subtask's. */
  private rowChanged(pos: number): void {
    const known = this.subtaskPos.includes(pos);
    if (!known && !delegated(this.messages[pos])) return;
    if (!known) {
      this.subtaskPos.push(pos);
      this.subtaskPos.sort((a, b) => a - b);
    }
    this.bumpSubtasks();
  }
  private bumpSubtasks(): void {
    this.subtaskVersion++;
    this.subtaskListeners.forEach((l) => l());
  }

  private bumpRow(pos: number): void {
    this.versions[pos] = ++this.seq;
    this.rowListeners.get(pos)?.forEach((l) => l());
  }
  private bumpList(): void {
    this.listVersion++;
    this.listListeners.forEach((l) => l());
  }
  private bumpState(): void {
    this.stateVersion++;
    this.stateListeners.forEach((l) => l());
  }
}

/** useRow re-renders only when the row at pos changes; returns the (mutable) message. */
export function useRow(store: TaskStore, pos: number): { message: Message | undefined; version: number } {
  const subscribe = useCallback((l: Listener) => store.subscribeRow(pos, l), [store, pos]);
  const version = useSyncExternalStore(subscribe, () => store.rowVersion(pos));
  return { message: store.messages[pos], version };
}

/** useMessageCount re-renders when messages are added or a snapshot arrives. */
export function useMessageCount(store: TaskStore): number {
  useSyncExternalStore(store.subscribeList, store.getListVersion);
  return store.count;
}

/** useTaskState re-renders when the task header state changes. */
export function useTaskState(store: TaskStore): TaskState | undefined {
  useSyncExternalStore(store.subscribeState, store.getStateVersion);
  return store.state;
}
