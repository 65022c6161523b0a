// BoardStore: the board (README, "The Board") as the daemon streams it (TaskService.WatchTasks):
// each message is the whole list and replaces the last. Nothing here polls; the stream stays
// open while the webview runs, and is opened again when the filter changes or the daemon
// restarts. The strip reads the tasks' parents from it.

import { useSyncExternalStore } from "react";
import { TaskService, type BoardTask } from "@cairn/proto/gen/cairn/v1/task_pb";
import { isAbort, type CairnClient } from "../rpc";

export interface BoardState {
  tasks: BoardTask[];
  /** Every task of the daemon, not only the workspace's. */
  all: boolean;
  loaded: boolean;
  error: string | undefined;
}

export class BoardStore {
  private state: BoardState = { tasks: [], all: false, loaded: false, error: undefined };
  private readonly listeners = new Set<() => void>();
  private stream: AbortController | undefined;
  private root = "";

  constructor(private readonly client: CairnClient) {}

  get = (): BoardState => this.state;

  /** watch (re)opens the stream for the workspace root with the current filter. */
  watch(root: string, all = this.state.all): void {
    this.root = root;
    this.stream?.abort();
    const ac = new AbortController();
    this.stream = ac;
    this.set({ all });
    void (async () => {
      try {
        for await (const r of this.client.stream(TaskService.method.watchTasks, { workspaceRoot: this.root, all }, { signal: ac.signal })) {
          this.set({ tasks: r.tasks, loaded: true, error: undefined });
        }
      } catch (err) {
        if (!ac.signal.aborted && !isAbort(err)) this.set({ error: err instanceof Error ? err.message : String(err), loaded: true });
      }
    })();
  }

  setAll(all: boolean): void {
    this.watch(this.root, all);
  }

  stop(): void {
    this.stream?.abort();
    this.stream = undefined;
  }

  /** parentOf is the task a subtask was started by ("" when none or unknown). */
  parentOf(id: string): string {
    return this.state.tasks.find((t) => t.taskId === id)?.parentId ?? "";
  }

  private set(patch: Partial<BoardState>): void {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  }
  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
}

export function useBoard(store: BoardStore): BoardState {
  return useSyncExternalStore(store.subscribe, store.get);
}
