// ChatInput: the message box with image attachments, the @ and / menus, the PLAN/ACT toggle
// and the model picker.

import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from "react";
import { WorkspaceService, type SlashCommand } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { Mode } from "@cairn/proto/gen/cairn/v1/state_pb";
import { isAbort } from "../rpc";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { useTaskState } from "../state/taskStore";
import { activeToken, mentionText, replaceToken, type ActiveToken } from "../util/mentions";
import { ContextMenu, type MenuItem } from "./ContextMenu";
import { ModelPicker } from "./ModelPicker";
import { ModePicker } from "./ModePicker";

export const MAX_ATTACHMENTS = 20;

const keywords: MenuItem[] = [
  { id: "kw-problems", label: "Problems", detail: "workspace diagnostics", icon: "warning", insert: "@problems" },
  { id: "kw-terminal", label: "Terminal", detail: "latest terminal output", icon: "terminal", insert: "@terminal" },
  { id: "kw-git", label: "Git Changes", detail: "uncommitted changes", icon: "git-commit", insert: "@git-changes" },
];

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

export interface DraftState {
  text: string;
  images: string[];
  setText(t: string): void;
  setImages(i: string[]): void;
}

export function ChatInput({
  ctrl,
  draft,
  placeholder,
  onSend,
}: {
  ctrl: Controller;
  draft: DraftState;
  placeholder: string;
  onSend(): void;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | undefined>(undefined);
  const [caret, setCaret] = useState(0);
  const [selected, setSelected] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | undefined>();
  const [files, setFiles] = useState<MenuItem[]>([]);
  const [loading, setLoading] = useState(false);
  const [commands, setCommands] = useState<SlashCommand[] | undefined>();
  const root = useApp(ctrl.app, (s) => s.workspaceRoots[0] ?? "");
  const appMode = useApp(ctrl.app, (s) => s.mode);
  const appModeSlug = useApp(ctrl.app, (s) => s.modeSlug);
  const worktree = useApp(ctrl.app, (s) => s.worktree);
  const doneWhen = useApp(ctrl.app, (s) => s.doneWhen);
  const [doneWhenOpen, setDoneWhenOpen] = useState(false);
  const newTask = useApp(ctrl.app, (s) => s.taskId === undefined);
  const taskState = useTaskState(ctrl.task);
  const mode = taskState && taskState.mode !== Mode.UNSPECIFIED ? taskState.mode : appMode;
  const modeSlug = taskState ? taskState.modeSlug : appModeSlug;
  const insert = useApp(ctrl.app, (s) => s.inputInsert);

  const tok: ActiveToken | undefined = useMemo(() => {
    const t = activeToken(draft.text, caret);
    return t && t.start !== dismissedAt ? t : undefined;
  }, [draft.text, caret, dismissedAt]);

  // The "Focus Chat Input" command.
  const focusSeq = useApp(ctrl.app, (s) => s.focusInput);
  useEffect(() => {
    if (focusSeq) ref.current?.focus();
  }, [focusSeq]);

  // Text the editor sends ("Add to Cairn").
  useEffect(() => {
    if (!insert) return;
    const sep = draft.text && !draft.text.endsWith("\n") ? "\n" : "";
    draft.setText(draft.text + sep + insert.text);
    ref.current?.focus();
  }, [insert?.seq]); // only when a new insert arrives

  // @ menu: files from the daemon's fuzzy index; the previous query is cancelled.
  useEffect(() => {
    if (tok?.kind !== "mention") return;
    const ac = new AbortController();
    setLoading(true);
    ctrl.client
      .unary(WorkspaceService.method.searchFiles, { workspaceRoot: root, query: tok.query, limit: 20 }, { signal: ac.signal })
      .then((r) => {
        setFiles(
          r.matches.map((m) => {
            const name = m.path.split("/").filter(Boolean).pop() ?? m.path;
            // The folder part is the detail; a file at the root needs none.
            const dir = m.path.replace(/\/$/, "").slice(0, -name.length).replace(/\/$/, "");
            return {
            id: `f-${m.path}`,
            label: name,
            detail: dir || undefined,
            icon: m.isDir ? "folder" : "file",
            insert: mentionText(m.path, m.isDir),
            };
          }),
        );
        setLoading(false);
      })
      .catch((e: unknown) => {
        if (!isAbort(e)) {
          setFiles([]);
          setLoading(false);
        }
      });
    return () => ac.abort();
  }, [tok?.kind, tok?.query, root, ctrl.client]);

  // / menu: commands are listed once per workspace and filtered here.
  useEffect(() => {
    if (tok?.kind !== "slash" || commands) return;
    const ac = new AbortController();
    ctrl.client
      .unary(WorkspaceService.method.listSlashCommands, { workspaceRoot: root }, { signal: ac.signal })
      .then((r) => setCommands(r.commands))
      .catch(() => {});
    return () => ac.abort();
  }, [tok?.kind, commands, root, ctrl.client]);

  const items: MenuItem[] = useMemo(() => {
    if (!tok) return [];
    if (tok.kind === "slash") {
      const q = tok.query.toLowerCase();
      const list = (commands ?? []).filter((c) => c.name.replace(/^\//, "").toLowerCase().includes(q));
      list.sort((a, b) => Number(!a.name.replace(/^\//, "").startsWith(q)) - Number(!b.name.replace(/^\//, "").startsWith(q)));
      return list.map((c) => {
        const name = c.name.startsWith("/") ? c.name : `/${c.name}`;
        return { id: `s-${name}`, label: name, detail: c.description || (c.workflow ? "workflow" : ""), icon: c.workflow ? "notebook" : c.name.startsWith("mcp:") ? "server" : "symbol-event", insert: name };
      });
    }
    const q = tok.query.toLowerCase();
    const kws = keywords.filter((k) => k.insert!.slice(1).startsWith(q) || k.label.toLowerCase().startsWith(q));
    const url: MenuItem[] =
      q === "" || "http".startsWith(q.slice(0, 4)) || q.startsWith("http")
        ? [
            /^https?:\/\/\S+$/.test(tok.query)
              ? { id: "url", label: tok.query, detail: "fetch this URL", icon: "link", insert: `@${tok.query}` }
              : { id: "url", label: "Paste URL to fetch contents", icon: "link" },
          ]
        : [];
    return [...kws, ...files, ...url];
  }, [tok, files, commands]);

  useEffect(() => setSelected(0), [tok?.kind, tok?.query]);

  const menuOpen = !!tok && (tok.kind === "mention" || items.length > 0 || commands === undefined);

  const selectable = (i: number) => items[i]?.insert !== undefined;
  const move = (delta: number) => {
    if (items.length === 0) return;
    let i = selected;
    for (let n = 0; n < items.length; n++) {
      i = (i + delta + items.length) % items.length;
      if (selectable(i)) break;
    }
    setSelected(i);
  };

  const choose = (i: number) => {
    const it = items[i];
    if (!tok || !it || it.insert === undefined) return;
    const r = replaceToken(draft.text, caret, tok, it.insert);
    pendingCaret.current = r.caret;
    draft.setText(r.text);
    setCaret(r.caret);
  };

  // Place the caret after an inserted menu entry once the new value is in the DOM.
  useLayoutEffect(() => {
    const el = ref.current;
    const c = pendingCaret.current;
    if (!el || c === undefined) return;
    pendingCaret.current = undefined;
    el.focus();
    el.setSelectionRange(c, c);
  }, [draft.text]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (menuOpen && items.length > 0) {
      if (e.key === "ArrowDown") return e.preventDefault(), move(1);
      if (e.key === "ArrowUp") return e.preventDefault(), move(-1);
      if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
        if (selectable(selected)) {
          e.preventDefault();
          return choose(selected);
        }
      }
    }
    if (menuOpen && e.key === "Escape") {
      e.preventDefault();
      setDismissedAt(tok?.start);
      return;
    }
    // Ctrl/Cmd+Enter is the chat's "approve" (AskBar), not send.
    if (e.key === "Enter" && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      onSend();
    }
  };

  const addFiles = async (list: Iterable<File>) => {
    const imgs = [...list].filter((f) => /^image\/(png|jpeg|webp|gif)$/.test(f.type));
    if (imgs.length === 0) return;
    const urls = await Promise.all(imgs.map(readAsDataUrl));
    draft.setImages([...draft.images, ...urls].slice(0, MAX_ATTACHMENTS));
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const fs = [...e.clipboardData.items].filter((i) => i.kind === "file" && i.type.startsWith("image/")).map((i) => i.getAsFile());
    const files = fs.filter((f): f is File => !!f);
    if (files.length > 0) {
      e.preventDefault();
      void addFiles(files);
    }
  };

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    if (e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    void addFiles(e.dataTransfer.files);
  };

  const syncCaret = () => setCaret(ref.current?.selectionStart ?? draft.text.length);
  const canSend = draft.text.trim() !== "" || draft.images.length > 0;

  return (
    <div className="chat-input" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      {menuOpen && (
        <ContextMenu
          items={items}
          selected={selected}
          onChoose={choose}
          onHover={setSelected}
          loading={loading || (tok?.kind === "slash" && commands === undefined)}
          label={tok?.kind === "slash" ? "Slash commands" : "Add context"}
        />
      )}
      {draft.images.length > 0 && (
        <div className="thumbs">
          {draft.images.map((src, i) => (
            <div key={i} className="thumb-wrap">
              <img src={src} className="thumb" alt={`image ${i + 1}`} />
              <button
                className="thumb-remove"
                aria-label={`Remove image ${i + 1}`}
                onClick={() => draft.setImages(draft.images.filter((_, j) => j !== i))}
              >
                <span className="codicon codicon-close" aria-hidden />
              </button>
            </div>
          ))}
        </div>
      )}
      {newTask && doneWhenOpen && (
        <label className="done-when">
          Done when
          <input
            type="text"
            aria-label="Done when command"
            placeholder="a command that must exit 0, e.g. go test ./..."
            value={doneWhen}
            onChange={(e) => ctrl.app.set({ doneWhen: e.target.value })}
          />
        </label>
      )}
      <div className="input-box">
        <textarea
          ref={ref}
          aria-label="Message Cairn"
          aria-controls={menuOpen ? "cairn-context-menu" : undefined}
          // A textarea is a textbox, not a combobox: it may not carry aria-expanded (axe:
          // aria-allowed-attr); the menu is announced through aria-autocomplete and the list.
          aria-autocomplete="list"
          aria-activedescendant={menuOpen && items.length > 0 ? `cairn-menu-${selected}` : undefined}
          placeholder={placeholder}
          rows={3}
          value={draft.text}
          onChange={(e) => {
            draft.setText(e.target.value);
            setCaret(e.target.selectionStart);
            if (dismissedAt !== undefined && activeToken(e.target.value, e.target.selectionStart)?.start !== dismissedAt)
              setDismissedAt(undefined);
          }}
          onSelect={syncCaret}
          onClick={syncCaret}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
      </div>
      <div className="input-controls">
        <ModePicker ctrl={ctrl} mode={mode} modeSlug={modeSlug} />
        {newTask && (
          <button
            className={`worktree-toggle${worktree ? " on" : ""}`}
            aria-label="Worktree"
            aria-pressed={worktree}
            title={worktree ? "Worktree: on. The task starts in a git worktree of its own, on a new branch" : "Worktree: start the task in a git worktree of its own, on a new branch"}
            onClick={() => ctrl.app.set({ worktree: !worktree })}
          >
            <span className="codicon codicon-git-branch" aria-hidden />
          </button>
        )}
        {newTask && (
          <button
            className={`worktree-toggle${doneWhen || doneWhenOpen ? " on" : ""}`}
            aria-label="Done when"
            aria-expanded={doneWhenOpen}
            title={doneWhen ? `Done when \`${doneWhen}\` exits 0` : "Done when: a command that must pass before the task's result is accepted"}
            onClick={() => setDoneWhenOpen(!doneWhenOpen)}
          >
            <span className="codicon codicon-pass" aria-hidden />
          </button>
        )}
        <ModelPicker ctrl={ctrl} mode={mode} />
        <span className="spacer" />
        <button className="icon-button" aria-label="Add context (@)" title="Add context" onClick={() => {
          const t = draft.text + (draft.text === "" || /\s$/.test(draft.text) ? "@" : " @");
          draft.setText(t);
          setCaret(t.length);
          setDismissedAt(undefined);
          ref.current?.focus();
        }}>
          <span className="codicon codicon-mention" aria-hidden />
        </button>
        <button className="icon-button" aria-label="Attach images" title="Attach images" onClick={() => fileRef.current?.click()}>
          <span className="codicon codicon-device-camera" aria-hidden />
        </button>
        <input
          ref={fileRef}
          type="file"
          accept="image/png,image/jpeg,image/webp"
          multiple
          hidden
          data-testid="image-picker"
          onChange={(e) => {
            if (e.target.files) void addFiles(e.target.files);
            e.target.value = "";
          }}
        />
        <button className="icon-button send" aria-label="Send" title="Send (Enter)" disabled={!canSend} onClick={onSend}>
          <span className="codicon codicon-send" aria-hidden />
        </button>
      </div>
    </div>
  );
}
