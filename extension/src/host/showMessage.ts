// ShowMessage: a notification; answered at once, without waiting for the user to dismiss it.

import * as vscode from "vscode";
import { MessageLevel } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { emptyResult, type Handler } from "./dispatcher";

export const showMessage: Handler<"showMessage"> = async (req) => {
  const show =
    req.level === MessageLevel.ERROR
      ? vscode.window.showErrorMessage
      : req.level === MessageLevel.WARNING
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  void show(req.text);
  return emptyResult;
};
