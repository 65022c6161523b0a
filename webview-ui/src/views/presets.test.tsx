import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { TaskService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { FakeClient } from "../rpc/fake";
import { configuredSettings, renderApp } from "../test/renderApp";

const presets = [
  { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", needsKey: true },
  { id: "openrouter", name: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", needsKey: true, cacheControl: true },
  { id: "ollama", name: "Ollama", baseUrl: "http://localhost:11434/v1", local: true },
  { id: "azure", name: "Azure OpenAI", baseUrl: "", needsKey: true, azure: true },
  { id: "openai-compatible", name: "OpenAI-compatible (other)", baseUrl: "", needsKey: true },
];

const catalogue = [
  { id: "anthropic/claude-sonnet-4.5", contextWindow: 1_000_000n, inputPrice: 3, outputPrice: 15, cacheReadPrice: 0.3, pricesKnown: true },
  { id: "mystery/model", contextWindow: 32768n, pricesKnown: false },
];

function fake(): FakeClient {
  const f = new FakeClient();
  f.on(StateService.method.getState, () => ({ settings: configuredSettings, presets }));
  f.on(StateService.method.listModels, (req) => (req.preset === "openrouter" ? { entries: catalogue } : { entries: [] }));
  f.on(TaskService.method.listTasks, () => ({ tasks: [] }));
  f.on(WorkspaceService.method.listRules, () => ({ rules: [] }));
  f.on(StateService.method.updateSettings, (req) => ({ settings: req.settings }));
  return f;
}

describe("provider presets", () => {
  it("picks a preset, lists its models with windows and prices, and saves the pick", async () => {
    const f = fake();
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await waitFor(() => expect(within(view).getByRole("option", { name: "OpenRouter" })).toBeTruthy());
    await user.selectOptions(within(view).getByRole("combobox", { name: "Provider" }), "OpenRouter");
    expect((within(view).getByRole("textbox", { name: "Base URL" }) as HTMLInputElement).value).toBe("https://openrouter.ai/api/v1");
    const act = within(view).getByRole("combobox", { name: "Act mode model" });
    await waitFor(() => expect(within(act).getAllByRole("option")).toHaveLength(3)); // two models and Other
    expect(within(act).getByRole("option", { name: "anthropic/claude-sonnet-4.5 · 1.0m context · $3 in · $15 out · cache $0.3 /M" })).toBeTruthy();
    expect(within(act).getByRole("option", { name: "mystery/model · 33k context · price unknown" })).toBeTruthy();
    expect(within(view).queryByText(/\$0\.0000/)).toBeNull();
    await user.selectOptions(act, "anthropic/claude-sonnet-4.5");
    await user.click(within(view).getByRole("button", { name: "Save" }));
    const s = f.callsTo(StateService.method.updateSettings)[0]!.settings!;
    expect(s.api).toMatchObject({ preset: "openrouter", baseUrl: "https://openrouter.ai/api/v1", model: "anthropic/claude-sonnet-4.5" });
  });

  it("asks Azure for a deployment and an API version", async () => {
    const { user } = await renderApp({ fake: fake() });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await waitFor(() => expect(within(view).getByRole("option", { name: "Azure OpenAI" })).toBeTruthy());
    await user.selectOptions(within(view).getByRole("combobox", { name: "Provider" }), "Azure OpenAI");
    expect(within(view).getByRole("textbox", { name: "Resource endpoint" })).toBeTruthy();
    expect(within(view).getByRole("textbox", { name: "Deployment" })).toBeTruthy();
    expect(within(view).getByRole("textbox", { name: "API version" })).toBeTruthy();
  });
});

describe("history prices", () => {
  it("shows price unknown for a task whose model has no prices, never $0.0000", async () => {
    const f = fake();
    f.on(TaskService.method.listTasks, () => ({
      tasks: [
        { taskId: "a", title: "Local task", tokensIn: 5000n, tokensOut: 100n, cost: 0, pricesKnown: false, updatedUnixMs: 1_700_000_000_000n },
        { taskId: "b", title: "Priced task", tokensIn: 5000n, tokensOut: 100n, cost: 0.02, pricesKnown: true, updatedUnixMs: 1_700_000_000_000n },
      ],
    }));
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "History" }));
    const view = screen.getByRole("region", { name: "History" });
    await waitFor(() => expect(within(view).getAllByRole("listitem")).toHaveLength(2));
    expect(within(view).getByText(/price unknown/)).toBeTruthy();
    expect(within(view).getByText(/\$0\.0200/)).toBeTruthy();
    expect(within(view).queryByText(/\$0\.0000/)).toBeNull();
  });

  it("saves the tool-call format and the reasoning effort", async () => {
    const f = fake();
    const { user } = await renderApp({ fake: f });
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = screen.getByRole("region", { name: "Settings" });
    await user.selectOptions(within(view).getByRole("combobox", { name: "Tool calls" }), "Native function calling");
    await user.selectOptions(within(view).getByRole("combobox", { name: "Reasoning effort" }), "High");
    await user.click(within(view).getByRole("button", { name: "Save" }));
    const s = f.callsTo(StateService.method.updateSettings)[0]!.settings!;
    expect(s.api).toMatchObject({ toolFormat: "native", reasoningEffort: "high" });
  });
});
