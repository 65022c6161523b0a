import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { SettingsSchema, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { renderApp } from "../test/renderApp";
import { SayKind, say, snapshot } from "../test/fixtures";
import { FakeClient } from "../rpc/fake";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { hasApiConfig } from "../state/appStore";
import { create } from "@bufbuild/protobuf";

// The editor's own language models (vscode-lm): no price, the model named "vendor · family".
describe("a task on the editor's language models", () => {
  it("the header says the requests are included instead of a cost, and names the model by vendor and family", async () => {
    const r = await renderApp({ taskId: "t1" });
    await r.push(
      snapshot([say(0, SayKind.TASK, { text: "do it" })], {
        model: "gpt-4o-copilot",
        modelLabel: "copilot · gpt-4o",
        included: true,
        pricesKnown: false,
        tokensIn: 1200n,
        tokensOut: 40n,
      }),
    );
    expect(screen.queryByLabelText("Cost")).toBeNull();
    await r.user.click(screen.getByRole("button", { name: /Fix the bug/ }));
    expect(screen.getByLabelText("Task settings").textContent).toContain("copilot · gpt-4o");
    const cost = screen.getByLabelText("Cost limit");
    expect(cost.textContent).toContain("included with the editor's models");
    expect(cost.textContent).not.toContain("price unknown");
  });

  it("shows no $0.0000 pill for a task cancelled before the editor's model reported anything", async () => {
    const r = await renderApp({ taskId: "t1" });
    await r.push(snapshot([say(0, SayKind.TASK, { text: "do it" })], { included: true, pricesKnown: false, tokensIn: 0n, tokensOut: 0n }));
    expect(screen.queryByLabelText("Cost")).toBeNull();
    expect(screen.queryByText("$0.0000")).toBeNull();
  });

  it("counts as configured without a base URL or key", () => {
    expect(hasApiConfig(create(SettingsSchema, { api: { preset: "vscode-lm", model: "gpt-4o" } }))).toBe(true);
    expect(hasApiConfig(create(SettingsSchema, { api: { preset: "openai", model: "gpt-4o" } }))).toBe(false);
  });

  it("the settings list the editor's models by vendor and family, without a base URL or key", async () => {
    const fake = new FakeClient();
    fake.on(StateService.method.getState, () => ({
      settings: { api: { preset: "vscode-lm", model: "gpt-4o" } },
      presets: [{ id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", needsKey: true }, { id: "vscode-lm", name: "VS Code language models (no key)" }],
    }));
    fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    fake.on(StateService.method.listModels, () => ({
      models: ["gpt-4o"],
      entries: [{ id: "gpt-4o", vendor: "copilot", family: "gpt-4o", name: "GPT-4o", contextWindow: 63800n }],
    }));
    const r = await renderApp({ fake });
    await r.user.click(screen.getByRole("button", { name: "Settings" }));
    const act = (await screen.findByRole("combobox", { name: "Act mode model" })) as HTMLSelectElement;
    await waitFor(() => expect(act.textContent).toContain("copilot · gpt-4o · 64k context · included with the editor's models"));
    expect(act.value).toBe("gpt-4o");
    expect(screen.queryByText("Base URL")).toBeNull();
    expect(screen.queryByLabelText("API key")).toBeNull();
    const req = fake.callsTo(StateService.method.listModels).find((c) => c.preset === "vscode-lm");
    expect(req?.hostId).toBe("host-1");
  });
});
