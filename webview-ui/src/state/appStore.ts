// AppStore is the webview's own UI state (which view, the editor context, settings, the current
// task id). Immutable snapshots: every change replaces the object.

import { useSyncExternalStore } from "react";
import type { DaemonStatus, View } from "../rpc";
import type { Settings } from "@cairn/proto/gen/cairn/v1/state_pb";
import { Mode } from "@cairn/proto/gen/cairn/v1/state_pb";
import { isEditorModels } from "../util/editorModels";

export interface AppState {
  view: Exclude<View, "newTask" | "newWorktreeTask">;
  workspaceRoots: string[];
  /** The window's editor as the daemon knows it: requests name it so tasks use that editor. */
  hostId: string;
  /** This webview's own id (the sidebar and an editor-tab panel each have one). */
  clientId: string;
  daemon: DaemonStatus;
  /** undefined until GetState answered. */
  settings: Settings | undefined;
  settingsError: string | undefined;
  taskId: string | undefined;
  /** Mode for the next task (a running task's mode comes from its TaskState). */
  mode: Mode;
  /** A mode of the workspace's own for the next task (docs/modes.md); "": mode decides. */
  modeSlug: string;
  /** The next task starts in a git worktree of its own (README, "Tasks in worktrees"). */
  worktree: boolean;
  /** The next task's "done when" command (README, "Done when"): "" for none. */
  doneWhen: string;
  /** Text the editor asked to put into the input ("Add to Cairn"); consumed by the input. */
  inputInsert: { seq: number; text: string } | undefined;
  /** Bumped by the "Focus Chat Input" command; the input focuses itself on each change. */
  focusInput: number;
  /** Transient notice (errors of user actions). */
  notice: string | undefined;
  /** cairn.parallelTasksInWorktrees: a task started while another runs here gets a worktree. */
  parallelWorktrees: boolean;
  /** A task held back because another runs in the same folder (the setting is off): the warning's text. */
  sameFolderWarning: { text: string; att: { images: string[]; files: string[] } } | undefined;
}

export const initialAppState: AppState = {
  view: "chat",
  workspaceRoots: [],
  hostId: "",
  clientId: "",
  daemon: "ready",
  settings: undefined,
  settingsError: undefined,
  taskId: undefined,
  mode: Mode.ACT,
  modeSlug: "",
  worktree: false,
  doneWhen: "",
  inputInsert: undefined,
  focusInput: 0,
  notice: undefined,
  parallelWorktrees: true,
  sameFolderWarning: undefined,
};

export class AppStore {
  private state: AppState;
  private readonly listeners = new Set<() => void>();
  constructor(init: Partial<AppState> = {}) {
    this.state = { ...initialAppState, ...init };
  }
  get = (): AppState => this.state;
  set(patch: Partial<AppState>): void {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  }
  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
}

export function useApp<T>(store: AppStore, select: (s: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}

/** hasApiConfig: the welcome view shows until a model endpoint is configured. */
export function hasApiConfig(s: Settings | undefined): boolean {
  return !!s?.api && s.api.model !== "" && (s.api.baseUrl !== "" || s.api.apiKeySet || isEditorModels(s.api.preset));
}
