// Navigate: where the symbol at a position is defined or used, by the editor's own providers
// (vscode.executeDefinitionProvider / executeReferenceProvider; docs/tools.md, "Code navigation").

import * as vscode from "vscode";
import { NavigateRequest_Kind } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import type { Handler } from "./dispatcher";
import { navigatePlaces, type ProvidedPlace } from "./navigatePlaces";

export const navigate: Handler<"navigate"> = async (req) => {
  const command = req.kind === NavigateRequest_Kind.REFERENCES ? "vscode.executeReferenceProvider" : "vscode.executeDefinitionProvider";
  const position = new vscode.Position(Math.max(req.line - 1, 0), Math.max(req.column - 1, 0));
  const found = await vscode.commands.executeCommand<ProvidedPlace[]>(command, vscode.Uri.file(req.path), position);
  return { case: "navigate", value: { $typeName: "cairn.host.v1.NavigateResult", places: navigatePlaces(found) } };
};
