// Shared by the path-returning handlers: absolute paths of file: URIs, de-duplicated, in order.

import type * as vscode from "vscode";
import type { Result } from "./dispatcher";

export function pathsResult(uris: readonly vscode.Uri[]): Result {
  const seen = new Set<string>();
  const paths: string[] = [];
  for (const u of uris) {
    if (u.scheme !== "file" || seen.has(u.fsPath)) continue;
    seen.add(u.fsPath);
    paths.push(u.fsPath);
  }
  return { case: "paths", value: { $typeName: "cairn.host.v1.PathsResult", paths } };
}
