// The daemon's environment: the window's own, without the model providers' keys.

/**
 * SECRET_ENV_NAMES are the variables that hold Cairn's and the model providers' keys. They are
 * config.DefaultSecretEnv of the Go daemon (core/config/config.go), which keeps them from every
 * command it runs; test/env.test.ts fails when the two lists differ.
 */
export const SECRET_ENV_NAMES: readonly string[] = [
  "CAIRN_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
  "OPENROUTER_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY",
  "AZURE_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "XAI_API_KEY",
  "TOGETHER_API_KEY", "FIREWORKS_API_KEY", "COHERE_API_KEY", "PERPLEXITY_API_KEY",
  "CEREBRAS_API_KEY", "HF_TOKEN", "HUGGINGFACE_API_KEY", "OLLAMA_API_KEY",
];

/** Values shorter than this are not matched by value (the daemon's rule, core/config/secrets.go). */
const minSecretLength = 8;

/**
 * daemonEnv is the environment the daemon starts with: env without the key variables, and
 * without any variable whose value is one of secrets (the key in secret storage, under whatever
 * name the user also exported it). The daemon gets its key over its gRPC channel instead, so no
 * command it runs can read a key from the daemon's process (README, Security).
 */
export function daemonEnv(env: NodeJS.ProcessEnv, secrets: readonly string[] = []): NodeJS.ProcessEnv {
  const values = new Set(secrets.map((s) => s.trim()).filter((s) => s.length >= minSecretLength));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // Windows names are not case-sensitive.
    const key = process.platform === "win32" ? name.toUpperCase() : name;
    if (SECRET_ENV_NAMES.includes(key)) continue;
    if (values.has(value.trim())) continue;
    out[name] = value;
  }
  return out;
}

/** What the daemon needs to know of the editor's network and policy settings. */
export interface EditorNetwork {
  /** VS Code's `http.proxy` ("" when unset). */
  proxy: string;
  /** VS Code's `http.noProxy`. */
  noProxy: readonly string[];
  /** `cairn.managedPolicy`: a policy file's JSON text an organisation sets ("" when unset). */
  managedPolicy: string;
}

/**
 * withEditorNetwork adds the editor's proxy and managed policy to the daemon's environment
 * (README, "Networks of organisations"; docs/settings.md, "Policy files"): `http.proxy` becomes
 * HTTPS_PROXY and HTTP_PROXY and `http.noProxy` NO_PROXY, unless the window's environment already
 * sets them (the variables win, as in the daemon's own reading of them); the managed policy
 * becomes CAIRN_MANAGED_POLICY.
 */
export function withEditorNetwork(env: NodeJS.ProcessEnv, net: EditorNetwork): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const has = (name: string) => Boolean(env[name] || env[name.toLowerCase()]);
  const proxy = net.proxy.trim();
  if (proxy && !has("HTTPS_PROXY") && !has("HTTP_PROXY")) {
    out.HTTPS_PROXY = proxy;
    out.HTTP_PROXY = proxy;
  }
  const noProxy = net.noProxy.map((h) => h.trim()).filter(Boolean);
  if (noProxy.length > 0 && !has("NO_PROXY")) out.NO_PROXY = noProxy.join(",");
  if (net.managedPolicy.trim()) out.CAIRN_MANAGED_POLICY = net.managedPolicy;
  return out;
}
