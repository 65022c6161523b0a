// Diagnostics: the Problems of the given files (all files when none are named).

import * as vscode from "vscode";
import { Severity } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import type { Handler } from "./dispatcher";

const severities: Record<vscode.DiagnosticSeverity, Severity> = {
  [vscode.DiagnosticSeverity.Error]: Severity.ERROR,
  [vscode.DiagnosticSeverity.Warning]: Severity.WARNING,
  [vscode.DiagnosticSeverity.Information]: Severity.INFORMATION,
  [vscode.DiagnosticSeverity.Hint]: Severity.HINT,
};

export const diagnostics: Handler<"diagnostics"> = async (req) => {
  const entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> = req.paths.length
    ? req.paths.map((p) => {
        const uri = vscode.Uri.file(p);
        return [uri, vscode.languages.getDiagnostics(uri)];
      })
    : vscode.languages.getDiagnostics();
  const out = entries.flatMap(([uri, diags]) =>
    uri.scheme !== "file"
      ? []
      : diags.map((d) => ({
          $typeName: "cairn.host.v1.Diagnostic" as const,
          path: uri.fsPath,
          line: d.range.start.line + 1,
          severity: severities[d.severity] ?? Severity.UNSPECIFIED,
          message: d.message,
          source: d.source ?? "",
        })),
  );
  return { case: "diagnostics", value: { $typeName: "cairn.host.v1.DiagnosticsResult", diagnostics: out } };
};
