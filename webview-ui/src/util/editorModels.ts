// The editor's own language models (the vscode-lm provider, README "Providers"): how the
// settings, the model pickers and the task header speak of them. They need no endpoint or
// key, are listed by the editor, and have no price.

import type { ModelEntry } from "@cairn/proto/gen/cairn/v1/state_pb";
import { costOrUnknown, type Priced } from "./format";

/** EDITOR_MODELS is the preset id of the editor's own models. */
export const EDITOR_MODELS = "vscode-lm";

/** INCLUDED stands where a cost would: these requests have no price of their own. */
export const INCLUDED = "included with the editor's models";

export function isEditorModels(preset: string | undefined): boolean {
  return preset === EDITOR_MODELS;
}

/** taskCost is the header's cost text: INCLUDED for the editor's models, else the cost or "price unknown". */
export function taskCost(t: Priced & { included?: boolean }): string {
  return t.included ? INCLUDED : costOrUnknown(t);
}

/** taskModel names the task's model: "vendor · family" for the editor's models, else the id. */
export function taskModel(t: { model: string; modelLabel?: string }): string {
  return t.modelLabel || t.model;
}

/** entryLabel names a listed model: "vendor · family" when the editor gave them. */
export function entryLabel(m: Pick<ModelEntry, "id" | "vendor" | "family">): string {
  return m.vendor && m.family ? `${m.vendor} · ${m.family}` : m.id;
}
