/** The defaults, before they are frozen (see {@link TURN_DEFAULTS}). */
const defaults = {
  // ------------------------------------------------------------ model requests

  /** One model request may take at most 20 min (sent to SDK-backed providers as `timeoutMs`). */
  llmRequestTimeoutMs: 20 * 60 * 1000,
  /** Per attempt: the first stream event must arrive within 120 s. `0` disables the watchdog. */
  llmFirstEventTimeoutMs: 120 * 1000,
  /** Per attempt: at most 300 s may pass between two stream events. `0` disables the watchdog. */
  llmStreamIdleTimeoutMs: 300 * 1000,
  /** Environment variable that overrides `llmFirstEventTimeoutMs` when the turn input does not set it. */
  llmFirstEventTimeoutEnv: "TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS",
  /** Environment variable that overrides `llmStreamIdleTimeoutMs` when the turn input does not set it. */
  llmStreamIdleTimeoutEnv: "TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS",

  // ------------------------------------------------------------ transport retry

  /** At most 5 retries after the first attempt (6 requests in total). */
  llmRetryMaxRetries: 5,
  /** Exponential backoff starts at 1 s (then 2 s, 4 s, ...) before equal jitter. */
  llmRetryBaseDelayMs: 1000,
  /** No single wait is longer than 30 s, also when the provider asks for more. */
  llmRetryMaxDelayMs: 30 * 1000,
  /** No wait starts that would end more than 120 s after the first failure. */
  llmRetryMaxElapsedMs: 120 * 1000,

  // ------------------------------------------------------------ requests and history

  /** At most 20 images go into one model request; older ones become a text placeholder. */
  maxImagesPerRequest: 20,
  /** An image smaller than this many pixels on a side is left out of a request (providers reject it). */
  minImageDimensionPx: 8,

  // ------------------------------------------------------------ bash subprocess environment

  /** Environment variable that picks the bash env sanitise mode when no option sets it. */
  bashEnvSanitizeEnv: "TURNKIT_BASH_ENV_SANITIZE",
  /** Sanitise mode outside CI when neither an option nor the environment picks one. */
  bashEnvSanitizeMode: "off" as const,
  /** Sanitise mode when `CI` or `GITHUB_ACTIONS` is truthy and nothing else picks one. */
  bashEnvSanitizeModeInCi: "scrub" as const,

  // ------------------------------------------------------------ tools, queues, hooks, prompt read

  /** The Agent runs the tool calls of one response in parallel unless a tool asks otherwise. */
  agentToolExecution: "parallel" as const,
  /** A RuntimeTool that declares no `executionMode` runs sequentially. */
  runtimeToolExecutionMode: "sequential" as const,
  /** Steering messages are delivered one at a time. */
  steeringMode: "one-at-a-time" as const,
  /** Follow-up messages are delivered one at a time. */
  followUpMode: "one-at-a-time" as const,
  /** An `afterLlmCallHook` may ask for at most 2 retries of one response. */
  afterLlmHookMaxRetries: 2,
  /** How long code in a turn waits for the host's answer to an `action.required` (`ctx.askHost`) unless it says otherwise: 10 min. */
  actionRequestTimeoutMs: 10 * 60 * 1000,
  /** The prompt-read registry holds at most 128 reserved turns. */
  promptReadRegistryCapacity: 128,
  /** The failures after which a main request moves on to `llm.fallback`'s next model, unless `llm.fallback.on` names others. */
  modelFallbackTriggers: Object.freeze(["overloaded", "unavailable", "quota"]) as readonly (
    | "overloaded"
    | "unavailable"
    | "quota"
  )[],
  /** A sub-agent runs at most 2 levels below the host's turn (a sub-agent of a sub-agent); deeper calls are refused. */
  subAgentMaxDepth: 2,

  // ------------------------------------------------------------ built-in tools

  /** `read` returns at most this many lines per call (page on with `offset`). */
  readMaxLines: 2000,
  /** `read` returns at most this many bytes of text per call. */
  readMaxBytes: 50 * 1024,
  /** `read` and `grep` cut a single line longer than this many characters. */
  maxLineChars: 2000,
  /** `read` refuses images larger than this (base64 grows them by a third). */
  readMaxImageBytes: 5 * 1024 * 1024,
  /** `bash` stops a command after this long unless the call asks for another timeout. */
  bashDefaultTimeoutMs: 120 * 1000,
  /** `bash` accepts a per-call timeout of at most this long. */
  bashMaxTimeoutMs: 10 * 60 * 1000,
  /** `bash` keeps the last this-many bytes of combined stdout and stderr. */
  bashMaxOutputBytes: 50 * 1024,
  /** After killing a command's process group, `bash` waits at most this long for its pipes to close. */
  bashKillGraceMs: 2000,
  /** `grep` returns at most this many matching lines unless the call asks for fewer. */
  grepDefaultMaxMatches: 100,
  /** `grep` skips files larger than this. */
  grepMaxFileBytes: 2 * 1024 * 1024,
  /** `glob` returns at most this many paths unless the call asks for fewer. */
  globDefaultMaxResults: 500,
  /** Directories `grep` and `glob` never descend into. */
  walkSkippedDirectories: Object.freeze(["node_modules", ".git"]) as readonly string[],
  /** `grep` and `glob` give the event loop a turn after this many milliseconds of synchronous file-system work. */
  searchSliceMs: 8,
};

/**
 * Every default a Turnkit user can observe, in one frozen object. Code that
 * needs one of these values reads it from here; no other file hard-codes
 * them, so the README, the docs and the behaviour can be checked against
 * one place.
 */
export const TURN_DEFAULTS: Readonly<typeof defaults> = Object.freeze(defaults);
