// The provider picker's choices. The daemon's presets (core/llm/presets, its one table, in
// the order it lists them) are the list: adding a provider is one entry there, and the
// picker, the welcome view and Settings all offer it.

import type { ProviderPreset } from "@cairn/proto/gen/cairn/v1/state_pb";

/** customPreset is the daemon's preset of any other OpenAI-compatible endpoint; settings store it as "". */
export const customPreset = "openai-compatible";

/** ProviderOption is one choice: the value stored in ApiConfig.preset and the name shown. */
export interface ProviderOption {
  value: string;
  label: string;
}

/** providerOptions maps the presets to choices; before they load, the custom endpoint is the one choice. */
export function providerOptions(presets: readonly ProviderPreset[]): ProviderOption[] {
  const list = presets.length > 0 ? presets : [{ id: customPreset, name: "OpenAI-compatible (other)" }];
  return list.map((p) => ({ value: p.id === customPreset ? "" : p.id, label: p.name }));
}
