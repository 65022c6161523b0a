// showChanges opens several file diffs at once: VS Code's multi-file diff editor when the
// editor has it (the vscode.changes command), otherwise one diff editor per file.

/** Change is one file: its resource and the two sides to compare (VS Code URIs). */
export type Change<U> = [resource: U, left: U, right: U];

/** Exec runs an editor command (vscode.commands.executeCommand). */
export type Exec = (command: string, ...args: unknown[]) => Thenable<unknown>;

export async function showChanges<U>(exec: Exec, title: string, changes: Change<U>[], label: (resource: U) => string): Promise<"multi" | "single"> {
  try {
    await exec("vscode.changes", title, changes);
    return "multi";
  } catch {
    // Editors without the multi-file diff editor (older code-server builds) reject the command.
    for (const [resource, left, right] of changes) {
      await exec("vscode.diff", left, right, `${title}: ${label(resource)}`, { preview: false });
    }
    return "single";
  }
}
