// MultiDiff: several file diffs in VS Code's multi-diff editor (checkpoint compare), both sides
// as read-only virtual documents.

import * as vscode from "vscode";
import { emptyResult, type Handler } from "./dispatcher";
import type { VirtualDocs } from "./virtualDocs";

export function multiDiff(docs: VirtualDocs): Handler<"multiDiff"> {
  return async (req) => {
    const changes = req.files.map((f) => [vscode.Uri.file(f.path), docs.add(f.path, f.left), docs.add(f.path, f.right)]);
    await vscode.commands.executeCommand("vscode.changes", req.title || "Cairn: changes", changes);
    return emptyResult;
  };
}
