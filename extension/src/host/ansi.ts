// AnsiStripper removes terminal control sequences (colours, cursor moves, VS Code's OSC 633
// shell-integration marks) from streamed output, holding back a sequence split across chunks.

// CSI: ESC [ params final; OSC: ESC ] ... (BEL | ESC \); other two-byte escapes: ESC x.
const complete = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;
// An escape that has started but not ended at the end of the buffer.
const partialTail = /(\x1b(\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?|\x9b[0-?]*[ -/]*)$/;

export class AnsiStripper {
  private held = "";

  push(chunk: string): string {
    let s = this.held + chunk;
    this.held = "";
    const m = partialTail.exec(s);
    if (m && m[0].length > 0) {
      this.held = m[0];
      s = s.slice(0, s.length - m[0].length);
    }
    return clean(s);
  }

  flush(): string {
    const s = this.held;
    this.held = "";
    return clean(s);
  }
}

function clean(s: string): string {
  return s.replace(complete, "").replace(/\r\n/g, "\n").replace(/\r(?!\n)/g, "");
}
