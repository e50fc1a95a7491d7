import { SYSTEM_REMINDER_TAG } from "./defaults.js";

const OPEN = `<${SYSTEM_REMINDER_TAG}>`;
const CLOSE = `</${SYSTEM_REMINDER_TAG}>`;
const ANY_TAG = new RegExp(`<(/?)${SYSTEM_REMINDER_TAG}>`, "g");

/**
 * Wraps reminder text in exactly one `<system-reminder>` block:
 * `<system-reminder>\ntext\n</system-reminder>`.
 *
 * The text is trimmed. A text that is already one whole block is unwrapped
 * first (no nesting); any other `<system-reminder>` or `</system-reminder>`
 * tag inside it is neutralised (its `<` becomes `&lt;`), so provider text
 * (which may quote files or tool output) can never close the block early or
 * open a second one. Returns `undefined` for blank text: no block at all.
 * Throws a `TypeError` naming the argument when `text` is no string.
 */
export function wrapSystemReminder(text: string): string | undefined {
  if (typeof text !== "string") {
    throw new TypeError(`wrapSystemReminder: text must be a string, got ${text === null ? "null" : typeof text}`);
  }
  let body = text.trim();
  if (body.startsWith(OPEN) && body.endsWith(CLOSE)) body = body.slice(OPEN.length, body.length - CLOSE.length).trim();
  if (body.length === 0) return undefined;
  body = body.replace(ANY_TAG, (_tag, slash: string) => `&lt;${slash}${SYSTEM_REMINDER_TAG}>`);
  return `${OPEN}\n${body}\n${CLOSE}`;
}
