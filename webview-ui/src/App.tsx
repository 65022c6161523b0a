// App: navigation between chat, the board, history, settings and MCP; welcome on first run.

import { useEffect } from "react";
import type { Controller } from "./state/controller";
import { hasApiConfig, useApp } from "./state/appStore";
import { ControllerContext } from "./state/context";
import { ChatView } from "./views/ChatView";
import { HistoryView } from "./views/HistoryView";
import { SettingsView } from "./views/SettingsView";
import { McpView } from "./views/McpView";
import { BoardView } from "./views/BoardView";
import { WelcomeView } from "./views/WelcomeView";
import { TaskStrip } from "./components/TaskStrip";

export function App({ ctrl }: { ctrl: Controller }) {
  const view = useApp(ctrl.app, (s) => s.view);
  const settings = useApp(ctrl.app, (s) => s.settings);
  const daemon = useApp(ctrl.app, (s) => s.daemon);
  const notice = useApp(ctrl.app, (s) => s.notice);
  const taskId = useApp(ctrl.app, (s) => s.taskId);
  const sameFolder = useApp(ctrl.app, (s) => s.sameFolderWarning);

  useEffect(() => {
    ctrl.start();
    return () => ctrl.stop();
  }, [ctrl]);

  const welcome = settings !== undefined && !hasApiConfig(settings) && !taskId;
  const go = (v: "chat" | "board" | "history" | "settings" | "mcp") => ctrl.app.set({ view: v });
  const done = () => go("chat");

  return (
    <ControllerContext.Provider value={ctrl}>
      <div className="app">
        <nav className="navbar" aria-label="Cairn">
          <button className="icon-button" aria-label="New Task" title="New Task" onClick={() => ctrl.showNewTask()}>
            <span className="codicon codicon-add" aria-hidden />
          </button>
          <button className={`icon-button${view === "board" ? " active" : ""}`} aria-label="Board" title="Board: the tasks of this workspace" onClick={() => go("board")}>
            <span className="codicon codicon-git-branch" aria-hidden />
          </button>
          <button className={`icon-button${view === "mcp" ? " active" : ""}`} aria-label="MCP Servers" title="MCP Servers" onClick={() => go("mcp")}>
            <span className="codicon codicon-server" aria-hidden />
          </button>
          <button className={`icon-button${view === "history" ? " active" : ""}`} aria-label="History" title="History" onClick={() => go("history")}>
            <span className="codicon codicon-history" aria-hidden />
          </button>
          <button className={`icon-button${view === "settings" ? " active" : ""}`} aria-label="Settings" title="Settings" onClick={() => go("settings")}>
            <span className="codicon codicon-settings-gear" aria-hidden />
          </button>
        </nav>
        {daemon !== "ready" && (
          <div className={`banner ${daemon === "failed" ? "error" : ""}`} role="status">
            {bannerText(daemon)}
          </div>
        )}
        {notice && (
          <div className="banner error" role="alert">
            <span>{notice}</span>
            <button className="icon-button" aria-label="Dismiss" onClick={() => ctrl.app.set({ notice: undefined })}>
              <span className="codicon codicon-close" aria-hidden />
            </button>
          </div>
        )}
        {sameFolder && (
          <div className="banner" role="alert">
            <span>Another task is running in this folder: both would change the same files. Start this one in a worktree of its own?</span>
            <button className="button primary" onClick={() => { ctrl.app.set({ worktree: true }); void ctrl.newTask(sameFolder.text, sameFolder.att); }}>
              Use a worktree
            </button>
            <button className="button secondary" onClick={() => void ctrl.newTask(sameFolder.text, sameFolder.att, true)}>
              Start here anyway
            </button>
          </div>
        )}
        {view === "chat" && <TaskStrip ctrl={ctrl} />}
        {view === "chat" && welcome && <WelcomeView ctrl={ctrl} />}
        {/* One ChatView per shown task: a hidden task is not rendered, its store still fills. */}
        <ChatView key={taskId ?? ""} ctrl={ctrl} hidden={view !== "chat" || welcome} />
        {view === "history" && <HistoryView ctrl={ctrl} onDone={done} />}
        {view === "settings" && <SettingsView ctrl={ctrl} onDone={done} />}
        {view === "mcp" && <McpView ctrl={ctrl} onDone={done} />}
        {view === "board" && <BoardView ctrl={ctrl} onDone={done} />}
      </div>
    </ControllerContext.Provider>
  );
}

/**
 * bannerText is what the user sees while Cairn's background process is not ready: what is
 * happening and, when it stopped, what to do; never the bare status word.
 */
function bannerText(daemon: string): string {
  switch (daemon) {
    case "failed":
      return "Cairn stopped. Use the command “Cairn: Restart Daemon” to start it again.";
    case "restarting":
      return "Cairn stopped unexpectedly and is starting again…";
    default:
      return "Starting Cairn…";
  }
}
