// OpenTabs: the files open in editor tabs, in every group.

import * as vscode from "vscode";
import type { Handler } from "./dispatcher";
import { pathsResult } from "./paths";

export const openTabs: Handler<"openTabs"> = async () =>
  pathsResult(
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .map((t) => t.input)
      .filter((i): i is vscode.TabInputText => i instanceof vscode.TabInputText)
      .map((i) => i.uri),
  );
