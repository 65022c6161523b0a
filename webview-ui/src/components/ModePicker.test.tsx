import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { configuredSettings, renderApp } from "../test/renderApp";
import { say, SayKind, snapshot } from "../test/fixtures";

function fakeWithModes(): FakeClient {
  const fake = new FakeClient();
  fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
  fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
  fake.on(TaskService.method.newTask, () => ({ taskId: "t-new" }));
  fake.on(WorkspaceService.method.listModes, () => ({
    modes: [
      { slug: "act", name: "Act", builtIn: true },
      { slug: "plan", name: "Plan", builtIn: true },
      { slug: "orchestrator", name: "Orchestrator", builtIn: true, description: "Split a task into subtasks" },
      { slug: "docs", name: "Docs Writer", description: "Writing docs", groups: ["read", "edit"], editPattern: "\\.md$" },
    ],
  }));
  return fake;
}

describe("the mode picker", () => {
  it("lists the workspace's modes and starts the next task in the one picked", async () => {
    const fake = fakeWithModes();
    const { user } = await renderApp({ fake });
    const list = (await screen.findByRole("combobox", { name: "Other modes" })) as HTMLSelectElement;
    expect(fake.callsTo(WorkspaceService.method.listModes).at(-1)).toMatchObject({ workspaceRoots: ["/work/proj"] });
    const options = Array.from(list.options).map((o) => o.textContent);
    expect(options).toEqual(["Other modes…", "Orchestrator", "Docs Writer (edits \\.md$)"]);
    await user.selectOptions(list, "docs");
    expect(list.value).toBe("docs");
    expect(screen.getByRole("radio", { name: "Act" }).getAttribute("aria-checked")).toBe("false");
    await user.type(screen.getByRole("textbox"), "write the docs{Enter}");
    expect(fake.callsTo(TaskService.method.newTask)).toMatchObject([{ text: "write the docs", modeSlug: "docs" }]);
  });

  it("switches the open task to a custom mode, and back to Act", async () => {
    const fake = fakeWithModes();
    const { user, push } = await renderApp({ fake, taskId: "t1" });
    await push(snapshot([say(0, SayKind.TASK, { text: "t" })], { modeSlug: "act" }));
    const list = (await screen.findByRole("combobox", { name: "Other modes" })) as HTMLSelectElement;
    await user.selectOptions(list, "orchestrator");
    expect(fake.callsTo(StateService.method.setMode)).toMatchObject([{ taskId: "t1", modeSlug: "orchestrator" }]);
    await user.click(screen.getByRole("radio", { name: "Act" }));
    expect(fake.callsTo(StateService.method.setMode)[1]).toMatchObject({ taskId: "t1", modeSlug: "" });
  });
});
