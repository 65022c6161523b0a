// Read-only virtual documents (scheme "cairn-diff") for the left side of diffs.

import * as vscode from "vscode";

export const DIFF_SCHEME = "cairn-diff";

export class VirtualDocs implements vscode.TextDocumentContentProvider {
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private seq = 0;

  /** add stores content and returns a uri that keeps the file's name (for the language mode). */
  add(filePath: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: DIFF_SCHEME, path: filePath || "/untitled", query: String(++this.seq) });
    this.docs.set(uri.toString(), content);
    return uri;
  }

  remove(uri: vscode.Uri): void {
    this.docs.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }
}
