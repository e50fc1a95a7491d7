/**
 * What the compaction scenarios need to check summary requests against the
 * summary model's window as a provider counts it: histories written in
 * English or in Chinese (about four characters a token against one), the
 * provider's count of a request, and the rule for a summary request the
 * provider found too long (sent once more, never a third time).
 */
import type { Context } from "@mariozechner/pi-ai";

/** The script a generated history is written in. */
export type HistoryScript = "latin" | "cjk";

/** Every script, for generators. */
export const HISTORY_SCRIPTS: readonly HistoryScript[] = ["latin", "cjk"];

const CJK_LETTERS: Record<string, string> = { u: "问", r: "读", a: "答" };

/** Text of about `tokens` tokens as a provider counts them: 4 ASCII letters a token, or one Chinese character. */
export function textOfTokens(tokens: number, letter: string, script: HistoryScript): string {
  return script === "cjk" ? (CJK_LETTERS[letter] ?? "字").repeat(tokens) : letter.repeat(tokens * 4);
}

/**
 * The tokens a provider counts for a request's text: a quarter token per
 * ASCII character, a token per other character (an upper bound for Chinese
 * text), independent of the extension's own estimate.
 */
export function providerTokens(context: Context): number {
  let tokens = 0;
  const count = (text: string) => {
    for (const char of text) tokens += char.charCodeAt(0) < 0x80 ? 0.25 : 1;
  };
  count(context.systemPrompt ?? "");
  for (const message of context.messages) {
    if (typeof message.content === "string") count(message.content);
    else for (const block of message.content) if (block.type === "text") count(block.text);
  }
  return Math.ceil(tokens);
}

/**
 * Problems with the summary requests of one turn, given what each was
 * answered in order (`overflow` for the provider's "too long"), the
 * compactions and failures the extension reported, and the largest summary
 * request by {@link providerTokens} plus its `maxTokens`:
 *
 * - a request that does not fit `window` (the extension must cut the
 *   conversation to the summary model's window by a fair count of its
 *   script);
 * - an overflowing summary request not sent once more;
 * - more or fewer summary requests than compactions and failures account
 *   for (one each, two when the first overflowed): a summary sent a third
 *   time shows here.
 */
export function summaryRequestProblems(
  served: readonly string[],
  outcomes: number,
  largest: number,
  window: number,
): string[] {
  const problems: string[] = [];
  if (largest > window) problems.push(`a summary request of ${largest} tokens for a ${window}-token window`);
  let attempts = 0;
  for (let index = 0; index < served.length; index += 1) {
    attempts += 1;
    if (served[index] !== "overflow") continue;
    if (index + 1 >= served.length) problems.push("an overflowing summary request was not sent once more");
    index += 1;
  }
  if (attempts !== outcomes)
    problems.push(`${served.length} summary requests (${attempts} summaries) for ${outcomes} compactions and failures`);
  return problems;
}
