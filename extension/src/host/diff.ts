// OpenDiff / UpdateDiff / SaveDiff / RevertDiff: VS Code's diff editor with the original as a
// read-only virtual document on the left and the real file, editable, on the right
// (docs/tools.md, "write_to_file and replace_in_file").
// Nothing is saved until SaveDiff; RevertDiff leaves the file as it was (a new file and the
// folders created for it are removed) and no dirty document behind.

import * as vscode from "vscode";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { emptyResult, type Handler, type Handlers } from "./dispatcher";
import { DIFF_SCHEME, type VirtualDocs } from "./virtualDocs";
import { changedRange } from "./textRange";

interface Session {
  id: string;
  uri: vscode.Uri;
  original: string;
  originalUri: vscode.Uri;
  isNew: boolean;
  /** Folders created for a new file, outermost first. */
  createdDirs: string[];
  /** Serialises edits to the document. */
  chain: Promise<unknown>;
}

export class DiffSessions implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  private readonly writing = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("editor.findMatchHighlightBackground"),
    isWholeLine: true,
  });
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly docs: VirtualDocs) {
    this.subs.push(vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()));
  }

  handlers(): Handlers {
    return {
      openDiff: this.open,
      updateDiff: this.update,
      saveDiff: this.save,
      revertDiff: this.revert,
    };
  }

  /** sessionOfActiveEditor names the diff the user is looking at (for Save/Reject buttons). */
  sessionOfActiveEditor(): string | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    if (!uri) return [...this.sessions.values()].at(-1)?.id;
    for (const s of this.sessions.values()) {
      if (s.uri.toString() === uri.toString() || s.originalUri.toString() === uri.toString()) return s.id;
    }
    return undefined;
  }

  private updateContext(): void {
    void vscode.commands.executeCommand("setContext", "cairn.diffActive", this.sessionOfActiveEditor() !== undefined && this.sessions.size > 0);
  }

  private readonly open: Handler<"openDiff"> = async (req) => {
    const uri = vscode.Uri.file(req.path);
    const createdDirs: string[] = [];
    if (req.isNew) {
      await mkdirsRecording(path.dirname(req.path), createdDirs);
      await fs.writeFile(req.path, "", { flag: "a" });
    }
    const originalUri = this.docs.add(req.path, req.original);
    const s: Session = { id: req.sessionId, uri, original: req.original, originalUri, isNew: req.isNew, createdDirs, chain: Promise.resolve() };
    this.sessions.set(req.sessionId, s);
    const doc = await vscode.workspace.openTextDocument(uri);
    const title = `${path.basename(req.path)}: Original ↔ Cairn's changes`;
    await vscode.commands.executeCommand("vscode.diff", originalUri, uri, title, { preview: false, preserveFocus: true } satisfies vscode.TextDocumentShowOptions);
    void doc;
    this.updateContext();
    return emptyResult;
  };

  private readonly update: Handler<"updateDiff"> = (req) =>
    this.queue(req.sessionId, async (s) => {
      const doc = await vscode.workspace.openTextDocument(s.uri);
      const change = changedRange(doc.getText(), req.content);
      if (change) {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(s.uri, new vscode.Range(doc.positionAt(change.start), doc.positionAt(change.end)), change.text);
        if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not update ${s.uri.fsPath}`);
      }
      for (const ed of vscode.window.visibleTextEditors) {
        if (ed.document.uri.toString() !== s.uri.toString()) continue;
        if (req.final || req.scrollLine <= 0) {
          ed.setDecorations(this.writing, []);
        } else {
          const line = Math.min(req.scrollLine - 1, ed.document.lineCount - 1);
          const range = new vscode.Range(line, 0, line, 0);
          ed.setDecorations(this.writing, [range]);
          ed.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        }
      }
      return emptyResult;
    });

  private readonly save: Handler<"saveDiff"> = (req) =>
    this.queue(req.sessionId, async (s) => {
      const doc = await vscode.workspace.openTextDocument(s.uri);
      if (doc.isDirty && !(await doc.save())) throw new Error(`VS Code did not save ${s.uri.fsPath}`);
      const saved = await fs.readFile(s.uri.fsPath, "utf8");
      await this.close(s);
      // Leave the saved file open as a normal editor, as after a manual edit.
      await vscode.window.showTextDocument(s.uri, { preview: false, preserveFocus: true }).then(undefined, () => undefined);
      return { case: "saveDiff", value: { $typeName: "cairn.host.v1.SaveDiffResult", savedContent: saved } };
    });

  private readonly revert: Handler<"revertDiff"> = (req) =>
    this.queue(req.sessionId, async (s) => {
      const doc = await vscode.workspace.openTextDocument(s.uri);
      if (s.isNew) {
        // Saving first keeps VS Code from asking "save changes?" when the tab closes.
        if (doc.isDirty) await doc.save();
        await this.close(s);
        await fs.rm(s.uri.fsPath, { force: true });
        for (const dir of [...s.createdDirs].reverse()) await fs.rmdir(dir).catch(() => undefined);
        return emptyResult;
      }
      if (doc.getText() !== s.original) {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(s.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), s.original);
        await vscode.workspace.applyEdit(edit);
      }
      if (doc.isDirty) await doc.save();
      // Format-on-save may have touched the text: put the original bytes back.
      const disk = await fs.readFile(s.uri.fsPath, "utf8").catch(() => undefined);
      if (disk !== s.original) await fs.writeFile(s.uri.fsPath, s.original);
      await this.close(s);
      return emptyResult;
    });

  private queue<T>(id: string, fn: (s: Session) => Promise<T>): Promise<T> {
    const s = this.sessions.get(id);
    if (!s) return Promise.reject(new Error(`no open diff ${id}`));
    const next = s.chain.then(() => fn(s));
    s.chain = next.catch(() => undefined);
    return next;
  }

  private async close(s: Session): Promise<void> {
    this.sessions.delete(s.id);
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.toString() === s.uri.toString()) ed.setDecorations(this.writing, []);
    }
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === DIFF_SCHEME && t.input.modified.toString() === s.uri.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    this.docs.remove(s.originalUri);
    this.updateContext();
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.writing.dispose();
  }
}

async function mkdirsRecording(dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    try {
      await fs.stat(d);
      break;
    } catch {
      missing.unshift(d);
      const parent = path.dirname(d);
      if (parent === d) break;
      d = parent;
    }
  }
  for (const m of missing) {
    await fs.mkdir(m);
    created.push(m);
  }
}
