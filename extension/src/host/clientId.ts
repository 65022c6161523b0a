// Client ids name an editor window's host bridge and each of its webviews to the daemon. The
// host's id is made once per window session (when the extension activates) and sent in every
// Hello, so a bridge that reconnects keeps serving the window's tasks; every webview gets an id
// of its own.

import { randomBytes } from "node:crypto";

/** newClientId returns a fresh id such as "window-3f9c…" (random: replaceable in tests). */
export function newClientId(kind: "window" | "webview", random: (n: number) => Uint8Array = randomBytes): string {
  return `${kind}-${Buffer.from(random(12)).toString("hex")}`;
}
