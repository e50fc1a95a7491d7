import { getEnvApiKey, getModel, getModels, getProviders, type KnownProvider } from "@mariozechner/pi-ai";
import type { LlmConfig } from "@turnkit/agent-core";
import type { CompactionOptions } from "@turnkit/agent-runtime";
import { HostError } from "./host-error.js";

/** The model a session talks to, and how the UI describes it. */
export interface ModelChoice {
  /** `provider:id`, as the banner and the session file name it. */
  label: string;
  /** The turn's `llm` config: the model, and a key or a stream function when needed. */
  llm: LlmConfig;
  /** True when the model lists prices, so the summary can show a cost. */
  hasPrices: boolean;
  /** True for the embedded scripted model. */
  scripted: boolean;
  /** The explore sub-agent's `llm`; absent: the session's `llm`. */
  explore?: LlmConfig;
  /** What this model needs of the compaction extension (the scripted models' summariser and small window); the host's options win. */
  compaction?: CompactionOptions;
}

/** pi-ai's ambient-credential marker (Bedrock, Vertex): not a key to send. */
const AMBIENT_CREDENTIALS = "<authenticated>";

/** The variable to name in the "missing key" message, for the providers people try first. */
const KEY_VARIABLE_HINTS: Record<string, string> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  google: "GEMINI_API_KEY",
  groq: "GROQ_API_KEY",
  mistral: "MISTRAL_API_KEY",
  xai: "XAI_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  cerebras: "CEREBRAS_API_KEY",
};

/**
 * Resolves `provider:id` through pi-ai's model registry and its usual
 * environment variables. Throws `HostError` with one line a user can act on:
 * `unknown_model` for an unknown provider or model (listing what exists),
 * `missing_api_key` when the environment holds no key for the provider.
 * Never logs or returns the key anywhere but `llm.apiKey`.
 */
export function resolveModelChoice(spec: string): ModelChoice {
  const separator = spec.indexOf(":");
  const provider = spec.slice(0, separator);
  const id = spec.slice(separator + 1);
  const providers = getProviders() as string[];
  if (!providers.includes(provider)) {
    throw new HostError("unknown_model", `unknown provider "${provider}"; pi-ai knows: ${providers.join(", ")}`);
  }
  const model = getModel(provider as KnownProvider, id as never);
  if (!model) {
    const known = getModels(provider as KnownProvider).map((candidate) => candidate.id);
    const examples = known.slice(0, 5).join(", ");
    throw new HostError(
      "unknown_model",
      `unknown model "${id}" for provider ${provider}; try one of ${known.length} models, e.g. ${examples}`,
    );
  }
  const key = getEnvApiKey(provider);
  if (!key) {
    const variable = KEY_VARIABLE_HINTS[provider];
    const how = variable ? `set ${variable}` : "set the provider's API key environment variable";
    throw new HostError(
      "missing_api_key",
      `no API key for ${provider}: ${how} (or run without --model for the scripted demo)`,
    );
  }
  const llm: LlmConfig = { model };
  if (key !== AMBIENT_CREDENTIALS) llm.apiKey = key;
  const { cost } = model;
  return { label: spec, llm, hasPrices: cost.input > 0 || cost.output > 0, scripted: false };
}
