// saveFile: the webview's "export" ends here. The webview cannot write files; it hands the
// content over and the extension asks the user where to put it with the editor's save dialog.

/** SaveUi is the slice of the editor that saving needs (vscode.window and workspace.fs). */
export interface SaveUi {
  /** Shows the save dialog with defaultName suggested; undefined when the user cancels. */
  pick(defaultName: string): Promise<string | undefined>;
  write(path: string, content: string): Promise<void>;
  info(message: string): void;
  error(message: string): void;
}

/** saveFile asks where to save content and writes it there. It reports the outcome to the
 * user itself and never throws: the webview does not wait for an answer. */
export async function saveFile(ui: SaveUi, fileName: string, content: string): Promise<string | undefined> {
  const name = safeName(fileName);
  let path: string | undefined;
  try {
    path = await ui.pick(name);
    if (!path) return undefined;
    await ui.write(path, content);
  } catch (err) {
    ui.error(`Cairn could not save ${path ?? name}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  ui.info(`Saved ${path}`);
  return path;
}

/** safeName keeps a suggested file name to one path segment with a .md ending. */
export function safeName(fileName: string): string {
  const base = fileName.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "-").replace(/^[.\s-]+/, "").trim();
  const name = base || "cairn-task";
  return /\.md$/i.test(name) ? name : `${name}.md`;
}
