// "Generate commit message" in the Source Control view (README, "Commit messages"): the staged
// diff, read through VS Code's git extension, goes to the daemon's GenerateCommitMessage with
// the task on screen (its model; none: the settings' model); the answer fills the commit box.

import * as vscode from "vscode";
import { createClient, type Transport } from "@connectrpc/connect";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";

/** The part of the git extension's API (vscode.git, version 1) this uses. */
interface GitRepository {
  rootUri: vscode.Uri;
  inputBox: { value: string };
  diff(cached?: boolean): Promise<string>;
}
interface GitApi {
  repositories: GitRepository[];
}

export interface ScmDeps {
  transport(): Promise<Transport>;
  /** The task shown in a Cairn view ("" when none). */
  activeTask(): string;
}

/** pickRepository is the repository the command was run for (the SCM title's argument), else the only or first one. */
export function pickRepository(repos: GitRepository[], arg: unknown): GitRepository | undefined {
  const root = (arg as { rootUri?: vscode.Uri } | undefined)?.rootUri?.fsPath;
  return repos.find((r) => root !== undefined && r.rootUri.fsPath === root) ?? repos[0];
}

export async function generateCommitMessage(deps: ScmDeps, arg?: unknown): Promise<void> {
  const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>("vscode.git");
  if (!git) {
    void vscode.window.showErrorMessage("Cairn: the Git extension is not available.");
    return;
  }
  const api = (git.isActive ? git.exports : await git.activate()).getAPI(1);
  const repo = pickRepository(api.repositories, arg);
  if (!repo) {
    void vscode.window.showErrorMessage("Cairn: no git repository is open.");
    return;
  }
  await vscode.window.withProgress({ location: vscode.ProgressLocation.SourceControl, title: "Writing a commit message…" }, async () => {
    try {
      const diff = await repo.diff(true);
      if (!diff.trim()) {
        void vscode.window.showInformationMessage("Cairn: nothing is staged. Stage the changes to describe first.");
        return;
      }
      const client = createClient(WorkspaceService, await deps.transport());
      const r = await client.generateCommitMessage({ diff, taskId: deps.activeTask() });
      repo.inputBox.value = r.message;
    } catch (err) {
      void vscode.window.showErrorMessage(`Cairn: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}
