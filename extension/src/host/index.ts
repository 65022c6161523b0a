// The host: every request kind's handler, assembled for the dispatcher.

import type { Handlers } from "./dispatcher";
import type { CommandRunner } from "./commandRunner";
import type { DiffSessions } from "./diff";
import type { VirtualDocs } from "./virtualDocs";
import type { LanguageModels } from "./languageModels";
import { diagnostics } from "./diagnostics";
import { multiDiff } from "./multiDiff";
import { navigate } from "./navigate";
import { openFile } from "./openFile";
import { openTabs } from "./openTabs";
import { showMessage } from "./showMessage";
import { killCommand, releaseCommand, runCommand } from "./terminal";
import { visibleFiles } from "./visibleFiles";
import { workspaceFolders } from "./workspaceFolders";

export function hostHandlers(diffs: DiffSessions, runner: CommandRunner, docs: VirtualDocs, lm: LanguageModels): Handlers {
  return {
    ...lm.handlers(),
    ...diffs.handlers(),
    runCommand: runCommand(runner),
    killCommand: killCommand(runner),
    releaseCommand: releaseCommand(runner),
    visibleFiles,
    openTabs,
    diagnostics,
    navigate,
    openFile,
    showMessage,
    workspaceFolders,
    multiDiff: multiDiff(docs),
  };
}
