import { describe, expect, it } from "vitest";
import { saveFile, safeName, type SaveUi } from "../src/webview/saveFile";
import { showChanges } from "../src/host/changes";

function fakeUi(answer: string | undefined, failWrite = false) {
  const log: string[] = [];
  const files = new Map<string, string>();
  const ui: SaveUi = {
    pick: async (name) => {
      log.push(`pick ${name}`);
      return answer;
    },
    write: async (p, c) => {
      if (failWrite) throw new Error("disk full");
      files.set(p, c);
    },
    info: (m) => log.push(`info ${m}`),
    error: (m) => log.push(`error ${m}`),
  };
  return { ui, log, files };
}

describe("saveFile", () => {
  it("writes where the user chose and says so", async () => {
    const { ui, log, files } = fakeUi("/tmp/out/task.md");
    expect(await saveFile(ui, "cairn-task-1.md", "# hi")).toBe("/tmp/out/task.md");
    expect(files.get("/tmp/out/task.md")).toBe("# hi");
    expect(log).toEqual(["pick cairn-task-1.md", "info Saved /tmp/out/task.md"]);
  });
  it("writes nothing when the dialog is cancelled", async () => {
    const { ui, log, files } = fakeUi(undefined);
    expect(await saveFile(ui, "a.md", "x")).toBeUndefined();
    expect(files.size).toBe(0);
    expect(log).toEqual(["pick a.md"]);
  });
  it("reports a failed write", async () => {
    const { ui, log } = fakeUi("/ro/a.md", true);
    expect(await saveFile(ui, "a.md", "x")).toBeUndefined();
    expect(log[1]).toBe("error Cairn could not save /ro/a.md: disk full");
  });
});

describe("safeName", () => {
  const cases: Array<[string, string]> = [
    ["task.md", "task.md"],
    ["../../etc/passwd", "etc-passwd.md"],
    ["", "cairn-task.md"],
    ["a:b*c", "a-b-c.md"],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => expect(safeName(input)).toBe(want));
});

describe("showChanges", () => {
  it("uses the multi-file diff editor when the editor has it", async () => {
    const calls: unknown[][] = [];
    const how = await showChanges(async (...a) => void calls.push(a), "T", [["r1", "l1", "x1"]], String);
    expect(how).toBe("multi");
    expect(calls).toEqual([["vscode.changes", "T", [["r1", "l1", "x1"]]]]);
  });
  it("falls back to one diff per file", async () => {
    const calls: unknown[][] = [];
    const exec = async (...a: unknown[]) => {
      if (a[0] === "vscode.changes") throw new Error("command 'vscode.changes' not found");
      calls.push(a);
    };
    const how = await showChanges(exec, "T", [["r1", "l1", "x1"], ["r2", "l2", "x2"]], String);
    expect(how).toBe("single");
    expect(calls.map((c) => c.slice(0, 4))).toEqual([
      ["vscode.diff", "l1", "x1", "T: r1"],
      ["vscode.diff", "l2", "x2", "T: r2"],
    ]);
  });
});
