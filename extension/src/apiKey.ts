// The API key lives in VS Code's SecretStorage; the daemon keeps it in memory only (it never
// writes a run-time key to its settings file). The relay notices UpdateSettings requests that
// carry a key and stores it; after every daemon (re)start the stored key is sent again.

import type { Message } from "@bufbuild/protobuf";
import type { UpdateSettingsRequest } from "@cairn/proto/gen/cairn/v1/state_pb";

export const SECRET_KEY = "cairn.apiKey";

/** apiKeyIn returns the key carried by a relayed request, if it is an UpdateSettings with one. */
export function apiKeyIn(service: string, method: string, request: Message): string | undefined {
  if (service !== "cairn.v1.StateService" || method !== "UpdateSettings") return undefined;
  const key = (request as UpdateSettingsRequest).settings?.api?.apiKey;
  return key ? key : undefined;
}
