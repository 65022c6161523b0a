// The daemon's ready line: one JSON object on stdout (docs/cli.md, "cairn serve").

/** Handshake is what `cairn serve` prints once it accepts connections. */
export interface Handshake {
  address: string;
  token_file: string;
  pid: number;
  version: string;
  /** The daemon's binary, when it watches it for upgrades. */
  executable?: string;
}

/** parseHandshake validates one stdout line; it throws with a readable reason. */
export function parseHandshake(line: string): Handshake {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new Error(`the daemon printed something that is not a handshake: ${line.slice(0, 200)}`);
  }
  const h = v as Partial<Handshake>;
  if (typeof h?.address !== "string" || typeof h.token_file !== "string") {
    throw new Error(`the daemon's handshake lacks address or token_file: ${line.slice(0, 200)}`);
  }
  const hs: Handshake = { address: h.address, token_file: h.token_file, pid: Number(h.pid ?? 0), version: String(h.version ?? "") };
  if (typeof h.executable === "string" && h.executable) hs.executable = h.executable;
  return hs;
}

/**
 * socketPath turns "unix:///path" (or "unix:/path") into a path, and a Windows daemon's
 * "pipe://\\.\pipe\NAME" into the pipe's path (node's net.connect opens both); other
 * addresses are returned as host:port.
 */
export function socketPath(address: string): { kind: "unix"; path: string } | { kind: "tcp"; hostPort: string } {
  if (address.startsWith("pipe://")) return { kind: "unix", path: address.slice("pipe://".length) };
  if (address.startsWith("unix://")) return { kind: "unix", path: address.slice("unix://".length) };
  if (address.startsWith("unix:")) return { kind: "unix", path: address.slice("unix:".length) };
  return { kind: "tcp", hostPort: address.replace(/^[a-z]+:\/\//, "") };
}

/** LineSplitter turns chunks into complete lines. */
export class LineSplitter {
  private buf = "";

  push(chunk: string): string[] {
    this.buf += chunk;
    const parts = this.buf.split("\n");
    this.buf = parts.pop() ?? "";
    return parts.map((l) => l.replace(/\r$/, ""));
  }

  flush(): string[] {
    const rest = this.buf;
    this.buf = "";
    return rest ? [rest] : [];
  }
}
