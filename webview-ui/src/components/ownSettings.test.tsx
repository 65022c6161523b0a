import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { renderApp } from "../test/renderApp";
import { SayKind, say, snapshot } from "../test/fixtures";

// A task started with settings of its own (cairn run --connect's flags) shows its own model and
// policy, and the chat's controls change that task only.
async function openTask(own: boolean) {
  const r = await renderApp({ taskId: "t1" });
  await r.push(
    snapshot([say(0, SayKind.TASK, { text: "do it" })], {
      model: own ? "alpha" : "gpt-4o",
      ownSettings: own,
      autoApprove: own ? { enabled: true, editFiles: true } : { enabled: true, readFiles: true, safeCommands: true },
    }),
  );
  return r;
}

describe("a task with settings of its own", () => {
  it("the header's expanded view names the task's model and policy", async () => {
    const { user } = await openTask(true);
    await user.click(screen.getByRole("button", { name: /Fix the bug/ }));
    const row = screen.getByLabelText("Task settings");
    expect(row.textContent).toContain("alpha");
    expect(row.textContent).toContain("Auto-approve: Edit");
    expect(row.textContent).toContain("this task's own settings");
  });

  it("the auto-approve bar shows and changes the task's policy, not the shared one", async () => {
    const { fake, user } = await openTask(true);
    const bar = screen.getByRole("button", { name: /^Auto-approve \(this task only\):/ });
    expect(bar.textContent).toContain("Edit");
    await user.click(bar);
    await user.click(screen.getByRole("checkbox", { name: "Read project files" }));
    const req = fake.callsTo(TaskService.method.updateTaskSettings)[0]!;
    expect(req.taskId).toBe("t1");
    expect(req.autoApprove).toMatchObject({ enabled: true, editFiles: true, readFiles: true });
    expect(fake.callsTo(StateService.method.updateAutoApprove)).toHaveLength(0);
  });

  it("the model picker shows and changes the task's model, not the shared one", async () => {
    const { fake, user } = await openTask(true);
    const picker = screen.getByRole("combobox", { name: "Model (this task only)" }) as HTMLSelectElement;
    expect(picker.value).toBe("alpha");
    await waitFor(() => expect(within(picker).getAllByRole("option").length).toBeGreaterThan(1));
    await user.selectOptions(picker, "gpt-4o-mini");
    expect(fake.callsTo(TaskService.method.updateTaskSettings)[0]).toMatchObject({ taskId: "t1", model: "gpt-4o-mini" });
    expect(fake.callsTo(StateService.method.updateSettings)).toHaveLength(0);
  });
});

describe("a task on the shared settings", () => {
  it("the header names the model and the shared policy; the controls change the shared settings", async () => {
    const { fake, user } = await openTask(false);
    await user.click(screen.getByRole("button", { name: /Fix the bug/ }));
    const row = screen.getByLabelText("Task settings");
    expect(row.textContent).toContain("gpt-4o");
    expect(row.textContent).toContain("Auto-approve: Read, Safe commands");
    expect(row.textContent).not.toContain("own settings");
    await user.click(screen.getByRole("button", { name: /^Auto-approve:/ }));
    await user.click(screen.getByRole("checkbox", { name: "Edit project files" }));
    expect(fake.callsTo(StateService.method.updateAutoApprove)).toHaveLength(1);
    expect(fake.callsTo(TaskService.method.updateTaskSettings)).toHaveLength(0);
  });
});
