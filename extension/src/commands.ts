// Commands, code actions and the editor-title Save/Reject buttons. They only post host events
// to the webview or editor events to the daemon: no orchestration here.

import * as vscode from "vscode";
import * as path from "node:path";
import type { WebviewHost } from "./webview/host";
import type { View } from "@cairn/proto/envelope";
import { generateCommitMessage, type ScmDeps } from "./scm";

export interface CommandDeps {
  webviews: WebviewHost;
  /** decide reports Save (true) / Reject (false) for the active Cairn diff. */
  decide(approved: boolean): void;
  restartDaemon(): void;
  showLog(): void;
  scm: ScmDeps;
}

/** mentionFor is how a file is mentioned in the chat input: workspace-relative with "@/". */
export function mentionFor(uri: vscode.Uri): string {
  const rel = vscode.workspace.asRelativePath(uri, false);
  return rel === uri.fsPath ? `@${uri.fsPath}` : `@/${rel}`;
}

/** selectionText renders a selection as "@/path (lines a-b)" plus a fenced code block. */
export function selectionText(doc: vscode.TextDocument, range: vscode.Range): string {
  const text = doc.getText(range);
  const a = range.start.line + 1;
  const b = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  const lines = a === b ? `line ${a}` : `lines ${a}-${b}`;
  return `${mentionFor(doc.uri)} (${lines}):\n\`\`\`${doc.languageId}\n${text.replace(/\n$/, "")}\n\`\`\`\n`;
}

export function registerCommands(ctx: vscode.ExtensionContext, deps: CommandDeps): void {
  const { webviews } = deps;
  const navigate = (view: View) => () => webviews.reveal({ type: "host", event: "navigate", view });
  const addToInput = (text: string) => webviews.reveal({ type: "host", event: "addToInput", text });

  const reg = (id: string, fn: (...args: never[]) => unknown) => ctx.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg("cairn.newTask", navigate("newTask"));
  reg("cairn.newWorktreeTask", navigate("newWorktreeTask"));
  reg("cairn.board", navigate("board"));
  reg("cairn.generateCommitMessage", (arg?: unknown) => generateCommitMessage(deps.scm, arg));
  reg("cairn.focusChat", () => webviews.reveal());
  reg("cairn.focusInput", () => webviews.reveal({ type: "host", event: "focusInput" }));
  reg("cairn.history", navigate("history"));
  reg("cairn.settings", navigate("settings"));
  reg("cairn.mcp", navigate("mcp"));
  reg("cairn.openInTab", () => webviews.openInTab());
  reg("cairn.addToChat", () => {
    const ed = vscode.window.activeTextEditor;
    if (!ed) return;
    const range = ed.selection.isEmpty ? ed.document.lineAt(ed.selection.active.line).range : ed.selection;
    return addToInput(selectionText(ed.document, range));
  });
  reg("cairn.explainCode", (uri?: vscode.Uri, range?: vscode.Range) => {
    const ed = vscode.window.activeTextEditor;
    const doc = ed && (!uri || ed.document.uri.toString() === uri.toString()) ? ed.document : undefined;
    if (!doc) return;
    return addToInput(`Explain this code from ${selectionText(doc, range ?? ed!.selection)}`);
  });
  reg("cairn.fixCode", (uri?: vscode.Uri, range?: vscode.Range, diags?: vscode.Diagnostic[]) => {
    const ed = vscode.window.activeTextEditor;
    const doc = ed && (!uri || ed.document.uri.toString() === uri.toString()) ? ed.document : undefined;
    if (!doc) return;
    const r = range ?? ed!.selection;
    const problems = (diags ?? vscode.languages.getDiagnostics(doc.uri).filter((d) => d.range.intersection(r)))
      .map((d) => `- [${d.source ?? path.basename(doc.uri.fsPath)}] line ${d.range.start.line + 1}: ${d.message}`)
      .join("\n");
    return addToInput(`Fix the following problems in ${selectionText(doc, r)}${problems ? `Problems:\n${problems}\n` : ""}`);
  });
  reg("cairn.diffSave", () => deps.decide(true));
  reg("cairn.diffReject", () => deps.decide(false));
  reg("cairn.restartDaemon", () => deps.restartDaemon());
  reg("cairn.showLog", () => deps.showLog());

  ctx.subscriptions.push(
    vscode.languages.registerCodeActionsProvider({ scheme: "file" }, new CairnCodeActions(), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix, vscode.CodeActionKind.RefactorRewrite],
    }),
  );
}

class CairnCodeActions implements vscode.CodeActionProvider {
  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    if (context.diagnostics.length > 0) {
      const fix = new vscode.CodeAction("Fix with Cairn", vscode.CodeActionKind.QuickFix);
      const r = context.diagnostics.reduce((acc, d) => acc.union(d.range), range as vscode.Range);
      const full = new vscode.Range(r.start.line, 0, r.end.line, doc.lineAt(r.end.line).text.length);
      fix.command = { command: "cairn.fixCode", title: "Fix with Cairn", arguments: [doc.uri, full, [...context.diagnostics]] };
      actions.push(fix);
    }
    if (!range.isEmpty) {
      const explain = new vscode.CodeAction("Explain with Cairn", vscode.CodeActionKind.RefactorRewrite);
      explain.command = { command: "cairn.explainCode", title: "Explain with Cairn", arguments: [doc.uri, range] };
      actions.push(explain);
      const add = new vscode.CodeAction("Add to Cairn", vscode.CodeActionKind.RefactorRewrite);
      add.command = { command: "cairn.addToChat", title: "Add to Cairn" };
      actions.push(add);
    }
    return actions;
  }
}
