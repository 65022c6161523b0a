// TaskStore holds one task's messages and header state and applies UiService.Subscribe events.
//
// Messages live in one array that is mutated in place (a TextAppended delta never copies the list);
// each row has a version counter and its own listeners, so a delta re-renders only its row.
// Text deltas are coalesced: row listeners for appended text run once per animation frame
// (flush() runs them now); structural changes (snapshot, added, updated, state) notify at once.

import { useCallback, useSyncExternalStore } from "react";
import type { Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import type { SubscribeResponse, TaskState } from "@cairn/proto/gen/cairn/v1/task_pb";

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

  private readonly versions: number[] = [];
  private readonly rowListeners = new Map<number, Set<Listener>>();
  private readonly listListeners = new Set<Listener>();
  private readonly stateListeners = new Set<Listener>();
  /** Monotonic counter for row versions, so a replaced row never reuses a version. */
  private seq = 0;
  private listVersion = 0;
  private stateVersion = 0;
  private readonly dirtyRows = new Set<number>();
  private flushScheduled = false;

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
        } else if (pos === this.messages.length) {
          this.messages.push(m);
          this.versions.push(++this.seq);
          this.bumpList();
        } else if (pos > this.messages.length) {
          // A gap means we missed events; keep what we have and append (the next snapshot heals it).
          this.messages.push(m);
          this.versions.push(++this.seq);
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
        if (!this.flushScheduled) {
          this.flushScheduled = true;
          this.schedule(() => this.flush());
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
        break;
      }
      case "stateChanged":
        this.state = e.value;
        this.bumpState();
        break;
    }
  }

  /** flush delivers coalesced text-delta notifications now. */
  flush(): void {
    this.flushScheduled = false;
    const rows = [...this.dirtyRows];
    this.dirtyRows.clear();
    for (const pos of rows) this.rowListeners.get(pos)?.forEach((l) => l());
  }

  /** reset empties the store (new task / cleared task). */
  reset(): void {
    this.messages.length = 0;
    this.versions.length = 0;
    this.dirtyRows.clear();
    this.firstIndex = 0;
    this.state = undefined;
    this.epoch++;
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
