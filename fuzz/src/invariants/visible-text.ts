/**
 * Invariant 5: no retry after visible output. Text the host saw is never
 * duplicated and is exactly what the kept message says.
 *
 * Every scripted attempt streams a text that starts with its own `«token»`
 * (in runner turns now and then whole, at its block's end:
 * `src/whole-blocks.ts`).
 * For the `Agent`: the `text_delta`s of each assistant message concatenate
 * to the text of its final `message_end` (a stream without `start` is shown
 * whole at its end, behaviour L2: then no update streamed and nothing was shown
 * before). For the runner: the text chunks of
 * each message id start with one token (or, cut inside it, with the start
 * of some attempt's text) and are a prefix of that attempt's scripted text (the whole text when the message finished normally); no
 * token is shown under two message ids (an attempt shown twice, or a
 * committed attempt retried); and a kept history message carrying the token
 * says exactly what was shown (or starts with it, when a writer given up on
 * missed the last chunks, as announced), and was shown at all when it
 * ended normally (no hook dropped or replaced it).
 */
import type { AgentEvent, AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { droppedOfType } from "./event-numbering.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "5 no retry after visible output";

/** The visible text of an assistant message: its text blocks, concatenated. */
export function assistantText(message: AgentMessage): string {
  if (message.role !== "assistant") return "";
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

const TOKEN_PATTERN = /^«([^»]+)»/;

/** The `«token»` a text starts with, if any. */
export function leadingToken(text: string): string | undefined {
  return TOKEN_PATTERN.exec(text)?.[1];
}

function countMarks(text: string): number {
  return text.split("«").length - 1;
}

export function checkAgentVisibleText(events: readonly AgentEvent[]): void {
  let streamed: string | undefined;
  let updates = 0;
  const tokens = new Set<string>();
  events.forEach((event, index) => {
    const fail = (detail: string): never => {
      throw new InvariantViolation(INVARIANT, `event #${index}: ${detail}`);
    };
    if (event.type === "message_start" && event.message.role === "assistant") {
      streamed = "";
      updates = 0;
    }
    if (event.type === "message_update" && streamed !== undefined) {
      updates++;
      const source = event.assistantMessageEvent;
      if (source.type === "text_delta") streamed += source.delta;
    }
    if (event.type === "message_end" && event.message.role === "assistant" && streamed !== undefined) {
      const final = assistantText(event.message);
      if (streamed !== final && updates > 0)
        fail(`the host saw ${describeValue(streamed)} but the message says ${describeValue(final)}`);
      if (countMarks(streamed) > 1) fail(`one message streamed two attempts: ${describeValue(streamed)}`);
      const token = leadingToken(streamed);
      if (token !== undefined) {
        if (tokens.has(token)) fail(`the text of attempt ${token} was streamed twice`);
        tokens.add(token);
      }
      streamed = undefined;
    }
  });
}

/**
 * `scriptedTexts` maps every token to the full text its attempt streams (a
 * kept response that ended normally must have been shown: its text blocks
 * streamed, or came whole at their ends);
 * `history` is everything offered to the host's history.
 */
export function checkRunnerVisibleText(
  events: readonly RuntimeEvent[],
  scriptedTexts: ReadonlyMap<string, string>,
  history: readonly AgentMessage[],
): void {
  const shown = new Map<string, string>();
  const finished = new Set<string>();
  for (const event of events) {
    if (event.type !== "stream.resp") continue;
    const { messageId, chunk } = event.payload;
    if (chunk.kind === "text") shown.set(messageId, (shown.get(messageId) ?? "") + chunk.delta);
    if (chunk.kind === "finish" && chunk.reason !== "error") finished.add(messageId);
  }
  const shownByToken = new Map<string, string>();
  for (const [messageId, text] of shown) {
    const fail = (detail: string): never => {
      throw new InvariantViolation(INVARIANT, `${messageId}: ${detail}`);
    };
    if (countMarks(text) > 1) fail(`shown text mixes attempts (text seen twice?): ${describeValue(text)}`);
    const token = leadingToken(text);
    if (token === undefined) {
      // Cut inside the token (one-character deltas): it must still be the start of some attempt's text.
      if (!text.startsWith("«") || ![...scriptedTexts.values()].some((full) => full.startsWith(text))) {
        fail(`shown text is not the start of any attempt's text: ${describeValue(text)}`);
      }
      if (finished.has(messageId)) fail(`finished normally after showing only ${describeValue(text)}`);
      continue;
    }
    if (shownByToken.has(token)) fail(`the text of attempt ${token} was shown under two message ids`);
    shownByToken.set(token, text);
    const full = scriptedTexts.get(token);
    if (full === undefined) return fail(`unknown attempt token ${token}`);
    if (!full.startsWith(text))
      fail(`shown ${describeValue(text)} is not what attempt ${token} streamed (${describeValue(full)})`);
    if (finished.has(messageId) && text !== full)
      fail(`finished normally after showing only ${describeValue(text)} of ${describeValue(full)}`);
  }
  // A writer given up on may have missed the last text chunks (as announced): the kept text then only starts with what was shown.
  const cutShort = droppedOfType(events, "stream.resp") > 0;
  for (const message of history) {
    if (message.role !== "assistant") continue;
    const text = assistantText(message);
    const token = leadingToken(text);
    if (token === undefined) continue;
    // A response that ended normally was shown to the host, whether its blocks streamed or came whole
    // (an after-LLM hook's replacement, `«replacedN»`, may not be: the host was shown the response it replaced).
    if (!shownByToken.has(token) && !token.startsWith("replaced") && !cutShort && endedNormally(message))
      throw new InvariantViolation(
        INVARIANT,
        `history keeps ${describeValue(text)}, but the host was shown none of it`,
      );
    if (!shownByToken.has(token)) continue;
    const shownText = shownByToken.get(token)!;
    if (cutShort ? !text.startsWith(shownText) : text !== shownText) {
      throw new InvariantViolation(
        INVARIANT,
        `history keeps ${describeValue(text)} for attempt ${token}, but the host was shown ${describeValue(shownText)}`,
      );
    }
  }
}

/** A response the provider ended normally and no hook dropped (a dropped one may show nothing). */
function endedNormally(message: Extract<AgentMessage, { role: "assistant" }>): boolean {
  if ((message as { turnkitDropped?: unknown }).turnkitDropped !== undefined) return false;
  return message.stopReason === "stop" || message.stopReason === "toolUse" || message.stopReason === "length";
}
