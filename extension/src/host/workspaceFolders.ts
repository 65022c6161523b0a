// WorkspaceFolders: the roots of the window's workspace.

import * as vscode from "vscode";
import type { Handler } from "./dispatcher";
import { pathsResult } from "./paths";

export const workspaceFolders: Handler<"workspaceFolders"> = async () =>
  pathsResult((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri));
