/**
 * Every user-visible default of `@turnkit/agent-runtime`, in one place.
 * Nothing else in the package hard-codes these values.
 */

/**
 * Priority of a reminder provider that sets none. Reminders are sorted by
 * ascending priority (lower numbers first, nearer the top of the turn);
 * providers with equal priority keep extension order, then registration order.
 */
export const DEFAULT_REMINDER_PRIORITY = 100;

/** Joins system-prompt parts and user-prompt-prefix parts: one blank line. */
export const PROMPT_PART_SEPARATOR = "\n\n";

/** The tag every reminder is wrapped in, exactly once: `<system-reminder>…</system-reminder>`. */
export const SYSTEM_REMINDER_TAG = "system-reminder";

/** Longest extension id accepted. */
export const MAX_EXTENSION_ID_LENGTH = 64;

// ---------------------------------------------------------------- compaction

/**
 * Tokens the compaction extension keeps free for the answer (and for the
 * system prompt and tool definitions, which its estimate without provider
 * usage does not see): a request whose history is estimated above the
 * model's context window minus this is compacted first.
 */
export const COMPACTION_RESERVE_TOKENS = 16_384;

/**
 * Estimated tokens of the newest history a compaction keeps verbatim (at
 * least, up to the nearest cut point that keeps every tool call with its
 * result; at most half of the window minus the reserve).
 */
export const COMPACTION_KEEP_RECENT_TOKENS = 20_000;

/** The summary request's `maxTokens`. */
export const COMPACTION_SUMMARY_MAX_TOKENS = 4_096;

/**
 * Estimated tokens the chain of earlier summaries may grow to. Below it a
 * compaction summarises only the newly compacted messages and keeps the
 * earlier summaries verbatim; past it the next summary folds the whole
 * chain into one.
 */
export const COMPACTION_SUMMARY_CHAIN_MAX_TOKENS = 12_000;

/** Characters of one tool result the summary request shows; the rest is cut with a note of its length. */
export const COMPACTION_TOOL_RESULT_MAX_CHARS = 2_000;

/**
 * Share of the summary model's context window (less the summary's
 * `maxTokens`) the summary request's input may fill by the estimate; a
 * longer conversation loses its oldest part in the request (the estimate of
 * 4 characters per token is optimistic for code and JSON, hence the margin).
 */
export const COMPACTION_SUMMARY_INPUT_SHARE = 0.75;

/**
 * Characters per token of the estimate used where the provider reported no
 * usage, for ASCII text (English, code, JSON). Other scripts take more
 * tokens per character: see {@link ESTIMATE_OTHER_CHARS_PER_TOKEN} and
 * {@link ESTIMATE_WIDE_CHARS_PER_TOKEN}.
 */
export const ESTIMATE_CHARS_PER_TOKEN = 4;

/** Characters per token of the estimate for non-ASCII characters below U+2E80 (accented Latin, Greek, Cyrillic, Arabic, Hebrew, Indic scripts). */
export const ESTIMATE_OTHER_CHARS_PER_TOKEN = 2;

/** Characters per token of the estimate from U+2E80 on (Chinese, Japanese, Korean, and UTF-16 halves of emoji): each counts as a token. */
export const ESTIMATE_WIDE_CHARS_PER_TOKEN = 1;

/** Tokens an image counts for in the estimate. */
export const ESTIMATE_IMAGE_TOKENS = 1_200;

/** The `kind` of the host-only record a compaction puts first in the new history. */
export const COMPACTION_RECORD_KIND = "compaction";

/** The `source` of the hidden message that carries the summaries to the model. */
export const COMPACTION_SUMMARY_SOURCE = "compaction";

/** The system prompt of the summary request. */
export const COMPACTION_SUMMARY_SYSTEM_PROMPT =
  "You write summaries of conversations between a user and an AI assistant that uses tools, so that the assistant " +
  "can continue the work from the summary alone. Do not answer or continue the conversation; write only the summary.";

/**
 * The default instructions of the summary request, after the conversation
 * to summarise (replace them with the extension's `summaryPrompt`).
 */
export const DEFAULT_COMPACTION_PROMPT = `Summarise the conversation above for the assistant that continues it. Use these sections:

## Goal
What the user wants, in their own words where it matters.

## Progress
What has been done, what is in progress.

## Key decisions and findings
Decisions taken and why; facts learnt (file paths, function names, commands, error messages, values).

## Next steps
What remains to be done.

Be concise and concrete. Keep exact paths, identifiers and error texts.`;
