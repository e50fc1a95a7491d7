/**
 * Every default a Turnkit user can observe, as named constants.
 * Code that needs one of these values imports it from here; no other file
 * hard-codes them, so the README, the docs and the behaviour can
 * be checked against one place.
 */

// ---------------------------------------------------------------------------
// Model requests
// ---------------------------------------------------------------------------

/** One model request may take at most 20 min (sent to SDK-backed providers as `timeoutMs`). */
export const LLM_REQUEST_TIMEOUT_MS = 20 * 60 * 1000;

/** Per attempt: the first stream event must arrive within 120 s. `0` disables the watchdog. */
export const LLM_FIRST_EVENT_TIMEOUT_MS = 120 * 1000;

/** Per attempt: at most 300 s may pass between two stream events. `0` disables the watchdog. */
export const LLM_STREAM_IDLE_TIMEOUT_MS = 300 * 1000;

/** Environment variable that overrides {@link LLM_FIRST_EVENT_TIMEOUT_MS} when the turn input does not set it. */
export const LLM_FIRST_EVENT_TIMEOUT_ENV = "TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS";

/** Environment variable that overrides {@link LLM_STREAM_IDLE_TIMEOUT_MS} when the turn input does not set it. */
export const LLM_STREAM_IDLE_TIMEOUT_ENV = "TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS";

// ---------------------------------------------------------------------------
// Transport retry
// ---------------------------------------------------------------------------

/** At most 5 retries after the first attempt (6 requests in total). */
export const LLM_RETRY_MAX_RETRIES = 5;

/** Exponential backoff starts at 1 s (then 2 s, 4 s, ...) before equal jitter. */
export const LLM_RETRY_BASE_DELAY_MS = 1000;

/** No single wait is longer than 30 s, also when the provider asks for more. */
export const LLM_RETRY_MAX_DELAY_MS = 30 * 1000;

/** No wait starts that would end more than 120 s after the first failure. */
export const LLM_RETRY_MAX_ELAPSED_MS = 120 * 1000;

// ---------------------------------------------------------------------------
// Requests and history
// ---------------------------------------------------------------------------

/** At most 20 images go into one model request; older ones become a text placeholder. */
export const MAX_IMAGES_PER_REQUEST = 20;

// ---------------------------------------------------------------------------
// Bash subprocess environment
// ---------------------------------------------------------------------------

/** Environment variable that picks the bash env sanitise mode when no option sets it. */
export const BASH_ENV_SANITIZE_ENV = "TURNKIT_BASH_ENV_SANITIZE";

/** Sanitise mode outside CI when neither an option nor the environment picks one. */
export const BASH_ENV_SANITIZE_MODE = "off" as const;

/** Sanitise mode when `CI` or `GITHUB_ACTIONS` is truthy and nothing else picks one. */
export const BASH_ENV_SANITIZE_MODE_IN_CI = "scrub" as const;

// ---------------------------------------------------------------------------
// Tools, queues, hooks, prompt read
// ---------------------------------------------------------------------------

/** The Agent runs the tool calls of one response in parallel unless a tool asks otherwise. */
export const AGENT_TOOL_EXECUTION = "parallel" as const;

/** A RuntimeTool that declares no `executionMode` runs sequentially. */
export const RUNTIME_TOOL_EXECUTION_MODE = "sequential" as const;

/** Steering messages are delivered one at a time. */
export const STEERING_MODE = "one-at-a-time" as const;

/** Follow-up messages are delivered one at a time. */
export const FOLLOW_UP_MODE = "one-at-a-time" as const;

/** An `afterLlmCallHook` may ask for at most 2 retries of one response. */
export const AFTER_LLM_HOOK_MAX_RETRIES = 2;

/** The prompt-read registry holds at most 128 reserved turns. */
export const PROMPT_READ_REGISTRY_CAPACITY = 128;

// ---------------------------------------------------------------- built-in tools

/** `read` returns at most this many lines per call (page on with `offset`). */
export const READ_MAX_LINES = 2000;

/** `read` returns at most this many bytes of text per call. */
export const READ_MAX_BYTES = 50 * 1024;

/** `read` and `grep` cut a single line longer than this many characters. */
export const MAX_LINE_CHARS = 2000;

/** `read` refuses images larger than this (base64 grows them by a third). */
export const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** `bash` stops a command after this long unless the call asks for another timeout. */
export const BASH_DEFAULT_TIMEOUT_MS = 120 * 1000;

/** `bash` accepts a per-call timeout of at most this long. */
export const BASH_MAX_TIMEOUT_MS = 10 * 60 * 1000;

/** `bash` keeps the last this-many bytes of combined stdout and stderr. */
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024;

/** After killing a command's process group, `bash` waits at most this long for its pipes to close. */
export const BASH_KILL_GRACE_MS = 2000;

/** `grep` returns at most this many matching lines unless the call asks for fewer. */
export const GREP_DEFAULT_MAX_MATCHES = 100;

/** `grep` skips files larger than this. */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** `glob` returns at most this many paths unless the call asks for fewer. */
export const GLOB_DEFAULT_MAX_RESULTS = 500;

/** Directories `grep` and `glob` never descend into. */
export const WALK_SKIPPED_DIRECTORIES: readonly string[] = ["node_modules", ".git"];

/** `grep` and `glob` give the event loop a turn after this many milliseconds of synchronous file-system work. */
export const SEARCH_SLICE_MS = 8;
