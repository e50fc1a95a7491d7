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
