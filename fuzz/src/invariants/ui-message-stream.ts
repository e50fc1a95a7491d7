/**
 * Invariant 18: a web chat can read every turn. The turn's events, mapped
 * by `@turnkit/ui-stream` (`toUIMessageChunks`), are read by the AI SDK's
 * own reader (`readUIMessageStream`, what `useChat` runs) without a
 * processing error: every part is started before it is added to and ended
 * once, every tool output answers a call it saw. The only errors the reader
 * may report are the turn's own `error` chunks (a failed turn says why).
 * And the message a page shows at the end (superseded parts left out,
 * approvals' answers on their parts) passes the AI SDK's own
 * `validateUIMessages` unchanged: no part it refuses, no field it drops.
 * A question (elicitation) whose wait ended in the events is closed in the
 * message: its part carries the outcome of its `action.request` trace, so a
 * page reloaded while the call that asked still runs never asks it again.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import { toUIMessageChunks, withApprovalAnswers, withoutSupersededParts } from "@turnkit/ui-stream";
import { type UIMessage, type UIMessageChunk, readUIMessageStream, safeValidateUIMessages } from "ai";
import { isDeepStrictEqual } from "node:util";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "18 the UI message stream reads without an error";

export async function checkUIMessageStream(events: readonly RuntimeEvent[]): Promise<void> {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  const chunks = toUIMessageChunks(events);
  const ownErrors = new Set<string>();
  const problems: string[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) return controller.close();
        if (next.value.chunk.type === "error") ownErrors.add(next.value.chunk.errorText);
        controller.enqueue(next.value.chunk as UIMessageChunk);
      } catch (error) {
        problems.push(`the mapper threw: ${error instanceof Error ? error.message : String(error)}`);
        controller.close();
      }
    },
  });
  const reader = readUIMessageStream({
    stream,
    onError: (error) => {
      const text = error instanceof Error ? error.message : String(error);
      if (!ownErrors.has(text)) problems.push(`the reader failed: ${text}`);
    },
  });
  let last: UIMessage | undefined;
  for await (const message of reader) last = message;
  if (problems.length > 0) fail(problems.join("; "));
  if (last === undefined) return;
  checkQuestionsClosed(events, last, fail);
  const shown = withApprovalAnswers(withoutSupersededParts(last));
  const chat = [{ id: "q", role: "user" as const, parts: [{ type: "text" as const, text: "Go." }] }, shown];
  const checked = await safeValidateUIMessages({ messages: structuredClone(chat) });
  if (!checked.success) fail(`validateUIMessages refused the message: ${checked.error.message.slice(0, 500)}`);
  if (checked.success && !isDeepStrictEqual(JSON.parse(JSON.stringify(checked.data)), JSON.parse(JSON.stringify(chat))))
    fail("validateUIMessages changed the message (it drops what its schema does not name)");
}

/** Each elicitation part of the turn (not a sub-agent's) says how its wait ended, as the events' trace does; or nothing while it waits. */
function checkQuestionsClosed(
  events: readonly RuntimeEvent[],
  message: UIMessage,
  fail: (detail: string) => never,
): void {
  const outcomes = new Map<string, unknown>();
  for (const event of events)
    if (!event.origin && event.type === "debug.trace" && event.payload.phase === "action.request")
      outcomes.set(String(event.payload.attrs?.requestId), event.payload.attrs?.outcome);
  for (const part of message.parts) {
    if (part.type !== "data-turnkit-elicitation") continue;
    const { id, data } = part as { id?: string; data: { outcome?: unknown } };
    if (data.outcome !== outcomes.get(String(id)))
      fail(
        `the question ${id} shows outcome ${String(data.outcome)}, its trace says ${String(outcomes.get(String(id)))}`,
      );
  }
}
