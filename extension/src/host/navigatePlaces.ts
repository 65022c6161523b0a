// navigatePlaces: the places a definition or reference provider answered (Locations or
// LocationLinks), as the daemon's NavigateResult wants them. Kept free of the vscode module so
// it is tested on its own.

import { create } from "@bufbuild/protobuf";
import { NavigateResult_PlaceSchema, type NavigateResult_Place } from "@cairn/proto/gen/cairn/host/v1/host_pb";

/** The parts of a vscode.Location or vscode.LocationLink read here. */
export interface ProvidedPlace {
  uri?: { scheme: string; fsPath: string };
  range?: { start: { line: number } };
  targetUri?: { scheme: string; fsPath: string };
  targetSelectionRange?: { start: { line: number } };
  targetRange?: { start: { line: number } };
}

export function navigatePlaces(found: readonly ProvidedPlace[] | undefined): NavigateResult_Place[] {
  const out: NavigateResult_Place[] = [];
  for (const p of found ?? []) {
    const uri = p.targetUri ?? p.uri;
    const range = p.targetSelectionRange ?? p.targetRange ?? p.range;
    if (!uri || !range || uri.scheme !== "file") continue;
    out.push(create(NavigateResult_PlaceSchema, { path: uri.fsPath, line: range.start.line + 1 }));
  }
  return out;
}
