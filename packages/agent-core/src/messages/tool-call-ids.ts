/*
 * Tool-call ids as runtime events, the host's history and the next request
 * carry them: a non-empty string, distinct within one response. A stream
 * function may hand over an empty id, or two calls under one id (some
 * OpenAI-compatible servers do): the call then gets an id of its own, so
 * each call has its own events and its own result, and a provider never
 * sees two results for one call.
 */
import type { AssistantMessage } from "@mariozechner/pi-ai";

/**
 * The id the `index`-th tool call of a response (counting its tool calls
 * only, from 0) goes by, given the ids `taken` by the calls before it in
 * that response, which it then joins: `id` itself when it is a non-empty
 * string not taken yet, else `<id>_<index + 1>` (`call_<index + 1>` for an
 * empty id), with `_` added until it is free. Letters, digits, `_` and `-`
 * in, the same out, as strict providers require.
 */
export function distinctToolCallId(id: unknown, index: number, taken: Set<string>): string {
  let distinct = typeof id === "string" && id !== "" ? id : `call_${index + 1}`;
  if (taken.has(distinct)) distinct = `${distinct}_${index + 1}`;
  while (taken.has(distinct)) distinct = `${distinct}_`;
  taken.add(distinct);
  return distinct;
}

/**
 * Gives, in place, each tool call of `message` its {@link distinctToolCallId};
 * calls whose ids are non-empty and distinct already are not touched.
 */
export function distinguishToolCallIds(message: AssistantMessage): void {
  if (!Array.isArray(message.content)) return;
  const taken = new Set<string>();
  let index = 0;
  for (const block of message.content) {
    if (block?.type !== "toolCall") continue;
    const id = distinctToolCallId(block.id, index++, taken);
    if (id !== block.id) block.id = id;
  }
}
