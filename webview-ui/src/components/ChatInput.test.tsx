import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { Mode, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { configuredSettings, flushAsync, renderApp } from "../test/renderApp";

function fakeWithWorkspace(): FakeClient {
  const fake = new FakeClient();
  fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
  fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
  fake.on(StateService.method.listModels, () => ({ models: ["gpt-4o", "gpt-4o-mini"] }));
  fake.on(TaskService.method.newTask, () => ({ taskId: "t-new" }));
  // The daemon ranks: the fake returns a fixed order that the UI must keep.
  fake.on(WorkspaceService.method.searchFiles, (req) => ({
    matches: req.query
      ? [
          { path: "src/app.ts", isDir: false },
          { path: "src", isDir: true },
          { path: "docs/my notes.md", isDir: false },
        ]
      : [{ path: "README.md", isDir: false }],
  }));
  fake.on(WorkspaceService.method.listSlashCommands, () => ({
    commands: [
      { name: "newtask", description: "Start a new task with context" },
      { name: "smol", description: "Condense the conversation" },
      { name: "deploy.md", description: "workflow", workflow: true },
    ],
  }));
  return fake;
}

const textbox = () => screen.getByRole("textbox", { name: "Message Cairn" }) as HTMLTextAreaElement;
const options = () => within(screen.getByRole("listbox")).getAllByRole("option");
const selectedOption = () => options().find((o) => o.getAttribute("aria-selected") === "true")?.textContent;

describe("chat input", () => {
  it("Enter starts a task with the editor context; Shift+Enter adds a newline", async () => {
    const { fake, user } = await renderApp();
    await user.type(textbox(), "line one{Shift>}{Enter}{/Shift}line two");
    expect(fake.callsTo(TaskService.method.newTask)).toHaveLength(0);
    expect(textbox().value).toBe("line one\nline two");
    await user.keyboard("{Enter}");
    await flushAsync();
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([
      { text: "line one\nline two", workspaceRoots: ["/work/proj"], hostId: "host-1", mode: Mode.ACT },
    ]);
    expect(textbox().value).toBe("");
    // The new task is subscribed.
    expect(fake.lastStream(UiService.method.subscribe).request).toMatchObject({ taskId: "t-new" });
    expect(fake.persisted).toEqual({ taskId: "t-new", openTasks: ["t-new"] });
  });

  it("Done when: the command typed in the task options goes with the new task", async () => {
    const { fake, user } = await renderApp();
    await user.click(screen.getByRole("button", { name: "Done when" }));
    await user.type(screen.getByRole("textbox", { name: "Done when command" }), "go test ./...");
    await user.type(textbox(), "make the tests pass{Enter}");
    await flushAsync();
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([
      { text: "make the tests pass", overrides: { doneWhen: "go test ./..." } },
    ]);
  });

  it("@ menu: server-ranked files and keywords, keyboard navigation, Enter inserts an escaped mention", async () => {
    const fake = fakeWithWorkspace();
    const { user } = await renderApp({ fake });
    await user.type(textbox(), "look at @s");
    await flushAsync();
    expect(fake.callsTo(WorkspaceService.method.searchFiles).at(-1)).toMatchObject({ workspaceRoot: "/work/proj", query: "s" });
    const labels = options().map((o) => o.textContent);
    expect(labels.slice(0, 3)).toEqual(["app.tssrc", "src", "my notes.mddocs"]);
    expect(selectedOption()).toBe("app.tssrc");
    await user.keyboard("{ArrowDown}{ArrowDown}");
    expect(selectedOption()).toBe("my notes.mddocs");
    await user.keyboard("{ArrowUp}");
    expect(selectedOption()).toBe("src");
    await user.keyboard("{Enter}");
    expect(textbox().value).toBe("look at @/src/ ");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(fake.callsTo(TaskService.method.newTask)).toHaveLength(0);
  });

  it("@ menu: keywords filter by prefix, Tab chooses, spaces in paths are escaped", async () => {
    const fake = fakeWithWorkspace();
    const { user } = await renderApp({ fake });
    await user.type(textbox(), "@pro");
    await flushAsync();
    expect(options()[0]?.textContent).toContain("Problems");
    await user.keyboard("{Tab}");
    expect(textbox().value).toBe("@problems ");
    await user.type(textbox(), "and @doc");
    await flushAsync();
    await user.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    expect(textbox().value).toBe("@problems and @/docs/my\\ notes.md ");
  });

  it("@ menu: empty query lists keywords, files and the URL hint; Escape closes it", async () => {
    const fake = fakeWithWorkspace();
    const { user } = await renderApp({ fake });
    await user.type(textbox(), "@");
    await flushAsync();
    const labels = options().map((o) => o.textContent);
    expect(labels).toEqual([
      "Problemsworkspace diagnostics",
      "Terminallatest terminal output",
      "Git Changesuncommitted changes",
      "README.md",
      "Paste URL to fetch contents",
    ]);
    // The hint cannot be selected: navigation skips it.
    await user.keyboard("{ArrowUp}");
    expect(selectedOption()).toBe("README.md");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(textbox().value).toBe("@");
  });

  it("@ is not a mention after a letter (e.g. an e-mail address)", async () => {
    const fake = fakeWithWorkspace();
    const { user } = await renderApp({ fake });
    await user.type(textbox(), "mail me@x");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("/ menu only at the start: lists built-ins and workflows, filters, Enter inserts", async () => {
    const fake = fakeWithWorkspace();
    const { user } = await renderApp({ fake });
    await user.type(textbox(), "/");
    await flushAsync();
    expect(fake.callsTo(WorkspaceService.method.listSlashCommands)).toMatchObject([{ workspaceRoot: "/work/proj" }]);
    expect(options().map((o) => o.textContent)).toEqual([
      "/newtaskStart a new task with context",
      "/smolCondense the conversation",
      "/deploy.mdworkflow",
    ]);
    await user.type(textbox(), "sm");
    expect(options().map((o) => o.textContent)).toEqual(["/smolCondense the conversation"]);
    await user.keyboard("{Enter}");
    expect(textbox().value).toBe("/smol ");
    await user.clear(textbox());
    await user.type(textbox(), "please /sm");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("images: paste and pick become data URLs sent with the message", async () => {
    const { fake, user } = await renderApp();
    const png = new File([new Uint8Array([137, 80, 78, 71])], "a.png", { type: "image/png" });
    fireEvent.paste(textbox(), { clipboardData: { items: [{ kind: "file", type: "image/png", getAsFile: () => png }] } });
    await waitFor(() => expect(screen.getAllByRole("img", { name: /image 1/ })).toHaveLength(1));
    const picker = screen.getByTestId("image-picker") as HTMLInputElement;
    await user.upload(picker, new File([new Uint8Array([1, 2])], "b.jpg", { type: "image/jpeg" }));
    await waitFor(() => expect(screen.getByRole("img", { name: "image 2" })).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "Remove image 2" }));
    await user.type(textbox(), "what is this{Enter}");
    await flushAsync();
    const req = fake.callsTo(TaskService.method.newTask)[0]!;
    expect(req.text).toBe("what is this");
    expect(req.images).toHaveLength(1);
    expect(req.images[0]).toMatch(/^data:image\/png;base64,/);
  });

  it("PLAN/ACT toggle sets the mode of the running task", async () => {
    const { fake, user } = await renderApp({ taskId: "t1" });
    await user.click(screen.getByRole("radio", { name: "Plan" }));
    expect(fake.callsTo(StateService.method.setMode)).toMatchObject([{ taskId: "t1", mode: Mode.PLAN }]);
    expect(screen.getByRole("radio", { name: "Plan" }).getAttribute("aria-checked")).toBe("true");
  });

  it("model picker lists models and saves the choice with UpdateSettings", async () => {
    const { fake, user } = await renderApp();
    fake.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
    const picker = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() => expect(within(picker).getAllByRole("option")).toHaveLength(2));
    await user.selectOptions(picker, "gpt-4o-mini");
    const req = fake.callsTo(StateService.method.updateSettings)[0]!;
    expect(req.settings?.api?.model).toBe("gpt-4o-mini");
    expect(req.settings?.api?.baseUrl).toBe("http://127.0.0.1:9/v1");
    expect(req.settings?.api?.apiKey).toBe("");
  });

  it("auto-approve bar toggles a category with UpdateAutoApprove", async () => {
    const { fake, user } = await renderApp();
    await user.click(screen.getByRole("button", { name: /^Auto-approve:/ }));
    await user.click(screen.getByRole("checkbox", { name: "Edit project files" }));
    const req = fake.callsTo(StateService.method.updateAutoApprove)[0]!;
    expect(req.autoApprove).toMatchObject({ enabled: true, readFiles: true, editFiles: true, safeCommands: true, maxRequests: 20 });
  });

  it("addToInput from the editor appends to the draft", async () => {
    const { fake } = await renderApp();
    act(() => fake.emitHost({ type: "host", event: "addToInput", text: "```ts\nconst x = 1\n```" }));
    expect(textbox().value).toBe("```ts\nconst x = 1\n```");
  });
});
