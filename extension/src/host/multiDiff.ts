// MultiDiff: several file diffs in VS Code's multi-diff editor (checkpoint compare), both sides
// as read-only virtual documents; one diff per file where the editor has no multi-diff editor.

import * as vscode from "vscode";
import * as path from "node:path";
import { emptyResult, type Handler } from "./dispatcher";
import type { VirtualDocs } from "./virtualDocs";
import { showChanges, type Change } from "./changes";

export function multiDiff(docs: VirtualDocs): Handler<"multiDiff"> {
  return async (req) => {
    const changes: Change<vscode.Uri>[] = req.files.map((f) => [vscode.Uri.file(f.path), docs.add(f.path, f.left), docs.add(f.path, f.right)]);
    await showChanges(
      (command, ...args) => vscode.commands.executeCommand(command, ...args),
      req.title || "Cairn: changes",
      changes,
      (u) => path.basename(u.fsPath),
    );
    return emptyResult;
  };
}
