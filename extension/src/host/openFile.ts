// OpenFile: show a file, at a 1-based line when given.

import * as vscode from "vscode";
import { emptyResult, type Handler } from "./dispatcher";

export const openFile: Handler<"openFile"> = async (req) => {
  const opts: vscode.TextDocumentShowOptions = { preview: false };
  if (req.line > 0) {
    const pos = new vscode.Position(req.line - 1, 0);
    opts.selection = new vscode.Range(pos, pos);
  }
  await vscode.window.showTextDocument(vscode.Uri.file(req.path), opts);
  return emptyResult;
};
