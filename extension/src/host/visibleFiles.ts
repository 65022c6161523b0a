// VisibleFiles: the files shown in visible editors.

import * as vscode from "vscode";
import type { Handler } from "./dispatcher";
import { pathsResult } from "./paths";

export const visibleFiles: Handler<"visibleFiles"> = async () =>
  pathsResult(vscode.window.visibleTextEditors.map((e) => e.document.uri));
