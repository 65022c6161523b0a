// Controller turns user intents into RPCs and keeps the one task subscription open.
// It holds no task logic: the daemon decides; the UI renders what Subscribe sends.

import { create } from "@bufbuild/protobuf";
import { isAbort, type CairnClient, type HostEvent } from "../rpc";
import { AskResponse, TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { AutoApproveSchema, Mode, SettingsSchema, StateService, type AutoApprove, type Settings } from "@cairn/proto/gen/cairn/v1/state_pb";
import { CheckpointService, RestoreKind } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { WorkspaceService, type ModeEntry } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { AppStore } from "./appStore";
import { TaskStore, type Scheduler } from "./taskStore";
import { OpenTasks, phaseText, type Phase } from "./openTasks";
import { BoardStore } from "./boardStore";

export interface Attachments {
  images: string[];
  files: string[];
}

const noAttachments: Attachments = { images: [], files: [] };

export class Controller {
  readonly app: AppStore;
  /** The window's live tasks, each with its own store and subscription. */
  readonly open: OpenTasks;
  readonly board: BoardStore;
  /** The store shown when no task is: always empty. */
  private readonly blank: TaskStore;
  private insertSeq = 0;
  private disposeHost: (() => void) | undefined;
  private stopped = false;
  /** The persisted task, opened once the editor context names the window's editor. */
  private pendingOpen: string | undefined;
  private hasContext = false;
  /** Resolves when the editor's context (workspace roots, host) first arrives: a task typed
   * before it waits for it, since the daemon needs the roots to start one. */
  private contextArrived!: () => void;
  private readonly context = new Promise<void>((resolve) => (this.contextArrived = resolve));

  constructor(
    readonly client: CairnClient,
    options: { scheduler?: Scheduler } = {},
  ) {
    this.app = new AppStore();
    this.blank = new TaskStore(options.scheduler);
    this.open = new OpenTasks(options.scheduler, (id, p, before) => this.phaseChanged(id, p, before));
    this.board = new BoardStore(client);
  }

  /** task is the store of the task on screen (an empty one when none is). */
  get task(): TaskStore {
    const id = this.app.get().taskId;
    return (id && this.open.get(id)?.store) || this.blank;
  }

  /** phaseChanged keeps the view's badge and tells the editor of a background task that
   * finished or waits (it notifies as cairn.notifyBackgroundTasks says). */
  private phaseChanged(id: string, p: Phase, before: Phase | undefined): void {
    const waiting = this.open.waiting();
    this.client.setBadge(waiting.length, waiting.length ? `${waiting.length} task${waiting.length === 1 ? "" : "s"} waiting for you` : "");
    const shown = this.app.get().taskId === id && this.app.get().view === "chat";
    if (shown || before === undefined || before === p) return;
    if (p === "waiting" || p === "done" || p === "failed") {
      const title = this.open.get(id)?.store.state?.title || id;
      this.client.taskNotice(id, p, `${title}: ${phaseText[p]}`);
    }
  }

  /** start listens to editor events, loads settings and re-opens the persisted task. */
  start(): void {
    this.stopped = false;
    this.disposeHost = this.client.onHostEvent((e) => this.onHost(e));
    this.client.ready();
    void this.loadSettings();
    // The daemon loads a task with the editor the first call names: wait for the context so
    // a task reopened after a reload works through this window's editor.
    const persisted = this.client.loadPersisted();
    this.pendingOthers = (persisted.openTasks ?? []).filter((id) => id !== persisted.taskId);
    if (persisted.taskId && this.hasContext) this.openTask(persisted.taskId);
    else this.pendingOpen = persisted.taskId;
    if (this.hasContext) this.reopenOthers();
  }

  /** The strip's other tasks of the persisted state, reopened once the context is known. */
  private pendingOthers: string[] = [];

  private reopenOthers(): void {
    const ids = this.pendingOthers;
    this.pendingOthers = [];
    const shown = this.app.get().taskId;
    for (const id of ids) this.subscribe(id);
    if (shown !== this.app.get().taskId) this.app.set({ taskId: shown });
    this.persist();
  }

  stop(): void {
    this.stopped = true;
    this.disposeHost?.();
    for (const t of this.open.all()) t.subscription.abort();
    this.board.stop();
  }

  private onHost(e: HostEvent): void {
    switch (e.event) {
      case "context": {
        this.app.set({ workspaceRoots: e.workspaceRoots, hostId: e.hostId, clientId: e.clientId, parallelWorktrees: e.parallelWorktrees ?? true });
        this.hasContext = true;
        this.contextArrived();
        const pending = this.pendingOpen;
        this.pendingOpen = undefined;
        if (pending && !this.app.get().taskId) this.openTask(pending);
        this.reopenOthers();
        this.board.watch(e.workspaceRoots[0] ?? "");
        break;
      }
      case "openTask": {
        this.openTask(e.taskId);
        break;
      }
      case "navigate":
        if (e.view === "newTask") this.showNewTask();
        else if (e.view === "newWorktreeTask") {
          this.showNewTask();
          this.app.set({ worktree: true });
        }
        else this.app.set({ view: e.view });
        break;
      case "addToInput":
        this.app.set({ inputInsert: { seq: ++this.insertSeq, text: e.text }, view: "chat" });
        break;
      case "focusInput":
        this.app.set({ focusInput: this.app.get().focusInput + 1, view: "chat" });
        break;
      case "daemon": {
        const was = this.app.get().daemon;
        this.app.set({ daemon: e.status });
        if (e.status === "ready" && was !== "ready") {
          void this.loadSettings();
          // Every open task's stream ended with the daemon: open them again.
          const shown = this.app.get().taskId;
          for (const id of this.open.ids()) {
            this.open.remove(id);
            this.subscribe(id);
          }
          this.app.set({ taskId: shown });
          this.board.watch(this.primaryRoot);
        }
        break;
      }
    }
  }

  private notify(err: unknown): void {
    if (isAbort(err)) return;
    this.app.set({ notice: err instanceof Error ? err.message : String(err) });
  }

  /** loadSettings reads the settings; while the daemon is still coming up it retries (1, 2, 4, 8 s). */
  async loadSettings(attempt = 0): Promise<void> {
    try {
      const r = await this.client.unary(StateService.method.getState, {});
      this.app.set({ settings: r.settings ?? create(SettingsSchema), settingsError: undefined });
    } catch (err) {
      this.app.set({ settingsError: err instanceof Error ? err.message : String(err) });
      if (attempt < 4 && !this.stopped) setTimeout(() => void this.loadSettings(attempt + 1), 1000 * 2 ** attempt);
    }
  }

  /** saveSettings replaces the daemon's settings (an empty api_key keeps the stored key). */
  async saveSettings(settings: Settings): Promise<boolean> {
    try {
      const r = await this.client.unary(StateService.method.updateSettings, { settings });
      this.app.set({ settings: r.settings ?? settings });
      return true;
    } catch (err) {
      this.notify(err);
      return false;
    }
  }

  async updateAutoApprove(autoApprove: AutoApprove): Promise<void> {
    const s = this.app.get().settings;
    if (s) this.app.set({ settings: create(SettingsSchema, { ...s, autoApprove }) });
    try {
      await this.client.unary(StateService.method.updateAutoApprove, { autoApprove });
    } catch (err) {
      this.notify(err);
    }
  }

  defaultAutoApprove(): AutoApprove {
    return create(AutoApproveSchema, { enabled: true, readFiles: true, safeCommands: true, maxRequests: 20 });
  }

  /** openTask shows a task of the window, subscribing to it when it is not open yet; the
   * other open tasks keep their streams (README, "Several tasks at once"). */
  openTask(taskId: string): void {
    if (!this.open.get(taskId)) this.subscribe(taskId);
    this.app.set({ taskId, view: "chat" });
    this.persist();
  }

  /** subscribe opens a task's store and its stream, which stays open while the task is in the strip. */
  private subscribe(taskId: string): void {
    const t = this.open.add(taskId);
    const ac = t.subscription;
    void (async () => {
      try {
        const hostId = this.app.get().hostId;
        for await (const ev of this.client.stream(UiService.method.subscribe, { taskId, hostId }, { signal: ac.signal })) {
          t.store.apply(ev);
        }
      } catch (err) {
        if (!ac.signal.aborted) this.notify(err);
      }
    })();
  }

  private persist(): void {
    this.client.activeTask(this.app.get().taskId ?? "");
    this.client.savePersisted({ taskId: this.app.get().taskId, openTasks: this.open.ids() });
  }

  /** showNewTask shows the new-task state; the open tasks go on running. */
  showNewTask(): void {
    this.app.set({ taskId: undefined, view: "chat" });
    this.persist();
  }

  /** busyHere says whether another open task is working or waiting in this workspace folder. */
  busyHere(): boolean {
    const root = this.primaryRoot;
    return this.open.all().some((t) => {
      const p = this.open.phase(t.id);
      const inFolder = this.board.get().tasks.find((b) => b.taskId === t.id)?.workspaceRoot;
      return (p === "working" || p === "waiting") && (inFolder === undefined || inFolder === root);
    });
  }

  async newTask(text: string, att: Attachments = noAttachments, sameFolder = false): Promise<void> {
    await this.context;
    const { workspaceRoots, hostId, mode, modeSlug, doneWhen, parallelWorktrees } = this.app.get();
    let worktree = this.app.get().worktree;
    if (!worktree && !sameFolder && this.busyHere()) {
      // Another task runs in this folder (README, "Several tasks at once"): a worktree of its
      // own by default; without, only after the warning.
      if (parallelWorktrees) worktree = true;
      else {
        this.app.set({ sameFolderWarning: { text, att } });
        return;
      }
    }
    this.app.set({ sameFolderWarning: undefined });
    // Each task of the window keeps its own model (and, once changed in its chat, its own
    // approval policy): it starts with settings of its own, so the chat's pickers change that
    // task only (UpdateTaskSettings), not the others running beside it.
    const model = this.app.get().settings?.api?.model ?? "";
    try {
      const r = await this.client.unary(TaskService.method.newTask, {
        text,
        images: att.images,
        files: att.files,
        workspaceRoots,
        hostId,
        mode,
        modeSlug,
        worktree,
        overrides: model || doneWhen.trim() ? { ...(model ? { model } : {}), ...(doneWhen.trim() ? { doneWhen: doneWhen.trim() } : {}) } : undefined,
      });
      this.app.set({ worktree: false, doneWhen: "" });
      this.openTask(r.taskId);
    } catch (err) {
      this.notify(err);
    }
  }

  /** send: a new task when none is open, else a message (answers an open ask or continues). */
  async send(text: string, att: Attachments = noAttachments): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return this.newTask(text, att);
    this.task.userActed();
    try {
      await this.client.unary(TaskService.method.sendMessage, { taskId, text, images: att.images, files: att.files, hostId: this.app.get().hostId });
    } catch (err) {
      this.notify(err);
    }
  }

  /** removeQueued takes a queued message back before the task sends it. */
  async removeQueued(id: string): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.removeQueuedMessage, { taskId, id });
    } catch (err) {
      this.notify(err);
    }
  }

  /** interrupt stops the current step; the daemon then sends what is queued. */
  interrupt(): Promise<void> {
    return this.cancel();
  }

  /** editMessage replaces a past user message: the daemon restores the checkpoint before it,
   * cuts the conversation there and sends the new text. */
  async editMessage(messageIndex: number, text: string): Promise<boolean> {
    const { taskId, hostId } = this.app.get();
    if (!taskId) return false;
    try {
      await this.client.unary(TaskService.method.editMessage, { taskId, messageIndex, text, hostId });
      return true;
    } catch (err) {
      this.notify(err);
      return false;
    }
  }

  /** exportTask renders a task as markdown and hands it to the editor's save dialog. */
  async exportTask(taskId = this.app.get().taskId): Promise<void> {
    if (!taskId) return;
    try {
      const r = await this.client.unary(TaskService.method.exportTask, { taskId });
      this.client.saveFile(r.fileName || `cairn-task-${taskId}.md`, r.markdown);
    } catch (err) {
      this.notify(err);
    }
  }

  async answer(response: AskResponse, text = "", att: Attachments = noAttachments): Promise<void> {
    const { taskId, hostId } = this.app.get();
    const open = this.task.state?.openAskIndex ?? -1;
    if (!taskId) return;
    this.task.userActed();
    try {
      await this.client.unary(TaskService.method.answerAsk, {
        taskId,
        response,
        text,
        images: att.images,
        files: att.files,
        // The ask on screen, so an answer to a question that has gone is refused; with none
        // known, whatever is open.
        messageIndex: open >= 0 ? open : undefined,
        hostId,
      });
    } catch (err) {
      this.notify(err);
    }
  }

  /** retryNow ends the wait before the retry of a failed request (the error_retry row at messageIndex). */
  async retryNow(messageIndex: number): Promise<void> {
    const { taskId, hostId } = this.app.get();
    if (!taskId) return;
    this.task.userActed();
    try {
      await this.client.unary(TaskService.method.answerAsk, { taskId, response: AskResponse.APPROVE, messageIndex, hostId });
    } catch (err) {
      this.notify(err);
    }
  }

  /** stopCommand stops a command the task left running in the background (its row's Stop). */
  async stopCommand(commandId: number): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.stopCommand, { taskId, commandId });
    } catch (err) {
      this.notify(err);
    }
  }

  async cancel(): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.cancelTask, { taskId });
    } catch (err) {
      this.notify(err);
    }
  }

  /** clearTask closes the task on screen in the daemon and shows the new-task state. */
  clearTask(): Promise<void> {
    return this.closeTask(this.app.get().taskId);
  }

  /** dismissTask takes a task off the strip (its stream ends) and leaves it in the daemon: it
   * stays in history and on the Board (a finished task's ✕, README "Several tasks at once"). */
  dismissTask(taskId: string | undefined): void {
    if (taskId) this.open.remove(taskId);
    if (!taskId || this.app.get().taskId === taskId) this.app.set({ taskId: undefined, view: "chat" });
    this.persist();
  }

  /** closeTask takes a task out of the strip and closes it in the daemon (it stays in history). */
  async closeTask(taskId: string | undefined): Promise<void> {
    this.dismissTask(taskId);
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.clearTask, { taskId });
    } catch (err) {
      this.notify(err);
    }
  }

  async resumeTask(taskId: string): Promise<void> {
    if (this.open.get(taskId)) return this.openTask(taskId);
    try {
      await this.client.unary(TaskService.method.resumeTask, { taskId, hostId: this.app.get().hostId });
      this.openTask(taskId);
    } catch (err) {
      this.notify(err);
    }
  }

  /** showRow shows a task's chat at one of its rows (a delegated subtask's, from the strip or
   * the Board; README, "Several tasks at once"), opening the task when it is not open. */
  async showRow(taskId: string, index: number): Promise<void> {
    await this.resumeTask(taskId);
    this.open.get(taskId)?.store.reveal(index);
  }

  async setMode(mode: Mode): Promise<void> {
    this.app.set({ mode, modeSlug: "" });
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(StateService.method.setMode, { taskId, mode });
    } catch (err) {
      this.notify(err);
    }
  }

  /** setModeSlug puts the open task (or the next one) in a mode of the workspace's own. */
  async setModeSlug(modeSlug: string): Promise<void> {
    this.app.set({ mode: Mode.ACT, modeSlug });
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(StateService.method.setMode, { taskId, modeSlug });
    } catch (err) {
      this.notify(err);
    }
  }

  /** listModes lists the modes of the window's workspace (built-in first); errors are shown and give none. */
  async listModes(signal?: AbortSignal): Promise<ModeEntry[]> {
    try {
      const r = await this.client.unary(WorkspaceService.method.listModes, { workspaceRoots: this.app.get().workspaceRoots }, { signal });
      return r.modes;
    } catch (err) {
      if (!signal?.aborted) this.notify(err);
      return [];
    }
  }

  /** compareCheckpoint shows the changes since a checkpoint row (up to the checkpoint toHash, or
   * the working tree) in the editor's multi-file diff; with no changes it says so. */
  async compareCheckpoint(messageIndex: number, toHash = ""): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      const r = await this.client.unary(CheckpointService.method.compareCheckpoint, { taskId, messageIndex, toHash, showInEditor: true });
      if (r.files.length === 0) this.app.set({ notice: "No file changed in that span." });
    } catch (err) {
      this.notify(err);
    }
  }

  /** restoreCheckpoint restores files, the task, or both to a checkpoint row. */
  async restoreCheckpoint(messageIndex: number, kind: RestoreKind): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(CheckpointService.method.restoreCheckpoint, { taskId, messageIndex, kind });
    } catch (err) {
      this.notify(err);
    }
  }

  /**
   * updateTaskSettings changes the model or approval policy of the open task when it has settings
   * of its own (TaskState.ownSettings): that task only; the shared settings stay as they are.
   */
  async updateTaskSettings(change: { model?: string; autoApprove?: AutoApprove }): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.updateTaskSettings, { taskId, model: change.model ?? "", autoApprove: change.autoApprove });
    } catch (err) {
      this.notify(err);
    }
  }

  /** setTaskLimits sets the task's request and cost limits (0: none). */
  async setTaskLimits(maxRequests: number, maxCost: number): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.setTaskLimits, { taskId, limits: { maxRequests, maxCost } });
    } catch (err) {
      this.notify(err);
    }
  }

  async updateFocusChain(markdown: string): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.updateFocusChain, { taskId, markdown });
    } catch (err) {
      this.notify(err);
    }
  }

  /** forkTask starts a new task from a past message (README, "Fork from any message") and shows it. */
  async forkTask(messageIndex: number, taskId = this.app.get().taskId): Promise<void> {
    if (!taskId) return;
    try {
      const r = await this.client.unary(TaskService.method.forkTask, { taskId, messageIndex, hostId: this.app.get().hostId });
      this.openTask(r.taskId);
    } catch (err) {
      this.notify(err);
    }
  }

  /** answerTask answers another task's open question from the board (Approve / Reject). */
  async answerTask(taskId: string, messageIndex: number, response: AskResponse): Promise<void> {
    // Its chat shows the end when it is shown next (util/scrollMemory.ts).
    this.open.get(taskId)?.store.userActed();
    try {
      await this.client.unary(TaskService.method.answerAsk, { taskId, response, messageIndex, hostId: this.app.get().hostId });
    } catch (err) {
      this.notify(err);
    }
  }

  /** primaryRoot is the workspace root WorkspaceService calls use. */
  get primaryRoot(): string {
    return this.app.get().workspaceRoots[0] ?? "";
  }
}

export { Mode };
