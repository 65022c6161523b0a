// Provider presets in code-server (README, "Providers"): the settings view's Act model list offers the
// endpoint's models with their context windows and prices, and says "price unknown" for a model
// without known prices (never $0.0000).
//
// run.mjs calls it at the end of the window-B sequence, after browserStep:
//
//   import { presetsStep } from "./steps/presets.mjs";
//   await presetsStep({ page: pageB, view: viewB, fakeRoot, screenshot, poll, log, fail });
//
// It replaces the fake model's script (POST /_script) to change the ids its /v1/models lists.
// Every wait is on a state, never a fixed sleep.

const script = {
  models: ["gpt-4o", "gpt-5-mini", "my-local-model"],
  turns: [],
  on_end: { text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>" },
};

export async function presetsStep({ page, view, fakeRoot, screenshot, poll, log, fail }) {
  const res = await fetch(`${fakeRoot}/_script`, { method: "POST", body: JSON.stringify(script) });
  if (!res.ok) fail(`the fake model refused the presets script: ${res.status} ${await res.text()}`);

  await view.getByRole("button", { name: "Settings", exact: true }).click();
  const settings = view.getByRole("region", { name: "Settings" });
  const provider = settings.getByRole("combobox", { name: "Provider" });
  await provider.waitFor({ timeout: 30_000 });
  await poll("the presets to be offered", async () => (await provider.locator("option").count()) >= 10);
  const offered = await provider.locator("option").allTextContents();
  for (const want of ["OpenAI", "OpenRouter", "Ollama", "LM Studio", "vLLM", "DeepSeek", "Azure OpenAI"]) {
    if (!offered.includes(want)) fail(`the provider list lacks ${want}: ${JSON.stringify(offered)}`);
  }
  // The configured endpoint is the fake model: list its models. The Act model is chosen from
  // them (each with its window and prices), a typed name only through "Other".
  await settings.getByRole("button", { name: /^Fetch models/ }).click();
  const act = settings.getByRole("combobox", { name: "Act mode model" });
  await poll("the fake model's three models to be listed", async () => (await act.locator("option").count()) === 4);
  const rows = await act.locator("option").allTextContents();
  const gpt4o = rows.find((r) => r.startsWith("gpt-4o"));
  if (!gpt4o?.includes("128k context") || !gpt4o.includes("$2.5 in")) fail(`gpt-4o row lacks its window or price: ${gpt4o}`);
  if (rows.some((r) => r.includes("$0.0000"))) fail(`a model shows $0.0000: ${JSON.stringify(rows)}`);
  if (rows.at(-1) !== "Other (type a name)") fail(`the model list does not end with Other: ${JSON.stringify(rows)}`);
  // A model nothing is known about is listed by its name; chosen, it says "price unknown".
  await act.selectOption("my-local-model");
  const facts = settings.locator("#settings-act-facts");
  await poll("the chosen model's facts", async () => (await facts.textContent())?.includes("price unknown"), 10_000);
  await act.scrollIntoViewIfNeeded();
  await screenshot(page, "settings-presets");
  log(`settings list the endpoint's models: ${rows.join(" | ")}`);
  await view.getByRole("button", { name: "New Task", exact: true }).click();
}
