// Controller turns user intents into RPCs and keeps the one task subscription open.
// It holds no task logic: the daemon decides; the UI renders what Subscribe sends.

import { create } from "@bufbuild/protobuf";
import { isAbort, type CairnClient, type HostEvent } from "../rpc";
import { AskResponse, TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { AutoApproveSchema, Mode, SettingsSchema, StateService, type AutoApprove, type Settings } from "@cairn/proto/gen/cairn/v1/state_pb";
import { CheckpointService, RestoreKind } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { AppStore } from "./appStore";
import { TaskStore, type Scheduler } from "./taskStore";

export interface Attachments {
  images: string[];
  files: string[];
}

const noAttachments: Attachments = { images: [], files: [] };

export class Controller {
  readonly app: AppStore;
  readonly task: TaskStore;
  private subscription: AbortController | undefined;
  private insertSeq = 0;
  private disposeHost: (() => void) | undefined;
  private stopped = false;
  /** The persisted task, opened once the editor context names the window's editor. */
  private pendingOpen: string | undefined;
  private hasContext = false;

  constructor(
    readonly client: CairnClient,
    options: { scheduler?: Scheduler } = {},
  ) {
    this.app = new AppStore();
    this.task = new TaskStore(options.scheduler);
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
    if (persisted.taskId && this.hasContext) this.openTask(persisted.taskId);
    else this.pendingOpen = persisted.taskId;
  }

  stop(): void {
    this.stopped = true;
    this.disposeHost?.();
    this.subscription?.abort();
  }

  private onHost(e: HostEvent): void {
    switch (e.event) {
      case "context": {
        this.app.set({ workspaceRoots: e.workspaceRoots, hostId: e.hostId, clientId: e.clientId });
        this.hasContext = true;
        const pending = this.pendingOpen;
        this.pendingOpen = undefined;
        if (pending && !this.app.get().taskId) this.openTask(pending);
        break;
      }
      case "navigate":
        if (e.view === "newTask") void this.clearTask();
        else if (e.view === "newWorktreeTask") void this.clearTask().then(() => this.app.set({ worktree: true }));
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
          const id = this.app.get().taskId;
          if (id) this.openTask(id);
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

  /** openTask subscribes to a task (closing the previous subscription) and remembers it. */
  openTask(taskId: string): void {
    this.subscription?.abort();
    const ac = new AbortController();
    this.subscription = ac;
    this.task.reset();
    this.app.set({ taskId, view: "chat" });
    this.client.savePersisted({ taskId });
    void (async () => {
      try {
        const hostId = this.app.get().hostId;
        for await (const ev of this.client.stream(UiService.method.subscribe, { taskId, hostId }, { signal: ac.signal })) {
          this.task.apply(ev);
        }
      } catch (err) {
        if (!ac.signal.aborted) this.notify(err);
      }
    })();
  }

  async newTask(text: string, att: Attachments = noAttachments): Promise<void> {
    const { workspaceRoots, hostId, mode, worktree } = this.app.get();
    try {
      const r = await this.client.unary(TaskService.method.newTask, {
        text,
        images: att.images,
        files: att.files,
        workspaceRoots,
        hostId,
        mode,
        worktree,
      });
      this.app.set({ worktree: false });
      this.openTask(r.taskId);
    } catch (err) {
      this.notify(err);
    }
  }

  /** send: a new task when none is open, else a message (answers an open ask or continues). */
  async send(text: string, att: Attachments = noAttachments): Promise<void> {
    const taskId = this.app.get().taskId;
    if (!taskId) return this.newTask(text, att);
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
    try {
      await this.client.unary(TaskService.method.answerAsk, { taskId, response: AskResponse.APPROVE, messageIndex, hostId });
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

  /** clearTask closes the task in the daemon and shows the new-task state. */
  async clearTask(): Promise<void> {
    const taskId = this.app.get().taskId;
    this.subscription?.abort();
    this.subscription = undefined;
    this.task.reset();
    this.app.set({ taskId: undefined, view: "chat" });
    this.client.savePersisted({});
    if (!taskId) return;
    try {
      await this.client.unary(TaskService.method.clearTask, { taskId });
    } catch (err) {
      this.notify(err);
    }
  }

  async resumeTask(taskId: string): Promise<void> {
    const current = this.app.get().taskId;
    if (current && current !== taskId) await this.clearTask();
    try {
      await this.client.unary(TaskService.method.resumeTask, { taskId, hostId: this.app.get().hostId });
      this.openTask(taskId);
    } catch (err) {
      this.notify(err);
    }
  }

  async setMode(mode: Mode): Promise<void> {
    this.app.set({ mode });
    const taskId = this.app.get().taskId;
    if (!taskId) return;
    try {
      await this.client.unary(StateService.method.setMode, { taskId, mode });
    } catch (err) {
      this.notify(err);
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

  /** primaryRoot is the workspace root WorkspaceService calls use. */
  get primaryRoot(): string {
    return this.app.get().workspaceRoots[0] ?? "";
  }
}

export { Mode };
