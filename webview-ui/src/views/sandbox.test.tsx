import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { TaskService, TaskStatus } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { ask, AskKind, say, SayKind, snapshot } from "../test/fixtures";
import { configuredSettings, flushAsync, renderApp } from "../test/renderApp";

// The command sandbox in the chat and the settings (README "Security").

const mechanism = "Linux namespaces (user, mount, pid), Landlock and seccomp (Landlock ABI 7)";

describe("the task header's sandbox pill", () => {
  const cases = [
    { name: "on: no pill", sandbox: { available: true, mechanism }, pill: undefined, title: undefined },
    { name: "on with the network: no pill", sandbox: { available: true, mechanism, network: true }, pill: undefined, title: undefined },
    { name: "a daemon that does not say: no pill", sandbox: undefined, pill: undefined, title: undefined },
    {
      name: "off by the setting",
      sandbox: { available: true, mechanism, off: true, offBy: "sandboxDisabled setting" },
      pill: "Sandbox off",
      title: "Commands run without the kernel's protection (turned off by sandboxDisabled setting).",
    },
    {
      name: "off where none is available: off wins",
      sandbox: { available: false, reason: "no user namespaces", off: true, offBy: "--no-sandbox" },
      pill: "Sandbox off",
      title: "Commands run without the kernel's protection (turned off by --no-sandbox).",
    },
    {
      name: "unavailable",
      sandbox: { available: false, reason: "unprivileged user namespaces are not available" },
      pill: "No sandbox — every command asks",
      title: "unprivileged user namespaces are not available",
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { push } = await renderApp({ taskId: "t1" });
      await push(snapshot([say(0, SayKind.TASK, { text: "t" })], { sandbox: c.sandbox }));
      const header = screen.getByRole("region", { name: "Task" });
      const pills = ["Sandbox off", "No sandbox — every command asks"].map((t) => within(header).queryByText(t)).filter((e) => e !== null);
      if (c.pill === undefined) {
        expect(pills).toHaveLength(0);
        return;
      }
      expect(pills.map((p) => p.textContent)).toEqual([c.pill]);
      expect(pills[0]!.getAttribute("title")).toBe(c.title);
    });
  }
});

describe("a command's sandbox notes", () => {
  it("an asked command outside the sandbox says why, and a rerun's ask says what the sandbox stopped", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const m = ask(1, AskKind.COMMAND, {
      payload: {
        case: "command",
        value: {
          command: "npm install",
          sandbox: "no sandbox here: unprivileged user namespaces are not available",
          sandboxDenied: "a connection to registry.npmjs.org:443; the rerun may use the network",
        },
      },
    });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.getByRole("note", { name: "How this command runs" }).textContent).toContain(
      "Runs without the sandbox: no sandbox here: unprivileged user namespaces are not available",
    );
    expect(screen.getByRole("note", { name: "What the sandbox stopped" }).textContent).toContain(
      "The sandbox stopped it: a connection to registry.npmjs.org:443; the rerun may use the network",
    );
    expect(screen.getByText("no sandbox")).toBeTruthy();
  });

  it("a command in the sandbox has neither note", async () => {
    const { push } = await renderApp({ taskId: "t1" });
    const m = ask(1, AskKind.COMMAND, { payload: { case: "command", value: { command: "make" } } });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" }), m], { status: TaskStatus.WAITING, openAskIndex: 1 }));
    expect(screen.queryByRole("note", { name: "How this command runs" })).toBeNull();
    expect(screen.queryByRole("note", { name: "What the sandbox stopped" })).toBeNull();
  });
});

function settingsFake(getState: () => object): FakeClient {
  const fake = new FakeClient();
  fake.on(StateService.method.getState, getState);
  fake.on(StateService.method.listModels, () => ({ models: [] }));
  fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
  fake.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
  fake.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
  return fake;
}

describe("the settings' Sandbox section", () => {
  it("edits the three sandbox settings and saves them", async () => {
    const fake = settingsFake(() => ({
      settings: { ...configuredSettings, sandbox: { maskedPaths: ["~/.vault"] } },
      sandbox: { available: true, mechanism },
    }));
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await flushAsync();
    expect(within(view).getByRole("note", { name: "Sandbox status" }).textContent).toBe(`Sandbox on: ${mechanism}.`);
    const network = within(view).getByRole("checkbox", { name: "Let auto-approved commands use the network" });
    await user.click(network);
    const paths = within(view).getByRole("textbox", { name: /More paths that read as absent/ });
    expect((paths as HTMLTextAreaElement).value).toBe("~/.vault");
    await user.type(paths, "\n  /srv/keys \n\n");
    const off = within(view).getByRole("checkbox", { name: "Run commands without the sandbox" });
    expect(off.getAttribute("aria-describedby")).toBe("settings-sandbox-off-hint");
    expect(view.querySelector("#settings-sandbox-off-hint")?.textContent).toContain("they can read your credentials and write anywhere");
    await user.click(off);
    expect((network as HTMLInputElement).disabled).toBe(true);
    await user.click(within(view).getByRole("button", { name: "Save" }));
    const s = fake.callsTo(StateService.method.updateSettings)[0]!.settings!;
    expect(s.sandbox).toMatchObject({ disabled: true, network: true, maskedPaths: ["~/.vault", "/srv/keys"] });
  });

  it("a save that never touched the section leaves the daemon's sandbox settings unset, so they stay", async () => {
    const fake = settingsFake(() => ({ settings: { ...configuredSettings, sandbox: undefined } }));
    const { user } = await renderApp({ fake });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await user.click(within(view).getByRole("button", { name: "Save" }));
    expect(fake.callsTo(StateService.method.updateSettings)[0]!.settings!.sandbox).toBeUndefined();
  });

  it("says why there is no sandbox, and when the settings turn it off", async () => {
    for (const [sandbox, want] of [
      [{ available: false, reason: "Landlock is not enabled in this kernel." }, "No sandbox here: Landlock is not enabled in this kernel. Every command asks."],
      [{ available: true, mechanism, off: true, offBy: "sandboxDisabled setting" }, "Sandbox off: commands run without the kernel's protection."],
    ] as const) {
      const fake = settingsFake(() => ({ settings: configuredSettings, sandbox }));
      const { user, unmount } = await renderApp({ fake });
      await user.click(screen.getByRole("button", { name: "Settings" }));
      const view = screen.getByRole("region", { name: "Settings" });
      await flushAsync();
      expect(within(view).getByRole("note", { name: "Sandbox status" }).textContent).toBe(want);
      unmount();
    }
  });
});
