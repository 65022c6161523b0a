import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { RpcError } from "../rpc";
import { configuredSettings, renderApp } from "../test/renderApp";

const skills = [
  { id: "cairn:.cairn/skills/release", name: "release", description: "Cut a release.", source: "cairn", enabled: true },
  {
    id: "claude:.claude/skills/broken",
    name: "broken",
    source: "claude",
    enabled: true,
    problem: "SKILL.md has no frontmatter",
  },
  { id: "global:pdf", name: "pdf", description: "Fill PDF forms.", source: "global", enabled: false },
];

async function openSettings(fake: FakeClient) {
  fake.on(StateService.method.getState, () => ({ settings: configuredSettings }));
  fake.on(StateService.method.listModels, () => ({ models: [] }));
  fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
  const app = await renderApp({ fake });
  await app.user.click(screen.getByRole("button", { name: "Settings" }));
  return { ...app, section: await screen.findByRole("group", { name: "Skills" }) };
}

describe("SkillsSection", () => {
  it("lists skills with their source, description and problem, and toggles one at once", async () => {
    const fake = new FakeClient();
    fake.on(WorkspaceService.method.listSkills, () => ({ skills }));
    const { user, section } = await openSettings(fake);
    const release = await within(section).findByRole("checkbox", { name: /release/ });
    expect((release as HTMLInputElement).checked).toBe(true);
    expect((within(section).getByRole("checkbox", { name: /pdf/ }) as HTMLInputElement).checked).toBe(false);
    expect(within(section).getByText("Cut a release.")).toBeTruthy();
    expect(within(section).getByText(".claude/skills")).toBeTruthy();
    expect(within(section).getByRole("status").textContent).toBe("Not offered to the model: SKILL.md has no frontmatter");
    await user.click(release);
    expect(fake.callsTo(WorkspaceService.method.toggleSkill)).toMatchObject([{ id: "cairn:.cairn/skills/release", enabled: false }]);
    expect((release as HTMLInputElement).checked).toBe(false);
  });

  it("says how to add a skill when there is none, and shows a failed list", async () => {
    const empty = new FakeClient();
    empty.on(WorkspaceService.method.listSkills, () => ({ skills: [] }));
    const { section, unmount } = await openSettings(empty);
    expect(await within(section).findByText(/No skills found/)).toBeTruthy();
    unmount();

    const failing = new FakeClient();
    failing.on(WorkspaceService.method.listSkills, () => {
      throw new RpcError("unavailable", "daemon gone");
    });
    const { section: failed } = await openSettings(failing);
    expect(await within(failed).findByText(/Could not list skills: .*daemon gone/)).toBeTruthy();
  });
});
