import type { RuntimeEvent } from "@turnkit/protocol";
import { readUIMessageStream } from "ai";
import { withApprovalAnswers } from "./approval-answers.js";
import type { TurnkitUIMessage, TurnkitUIMessageChunk } from "./turnkit-ui-message.js";
import { toUIMessageChunks } from "./ui-message-chunks.js";

/**
 * The assistant `UIMessage` a turn's events make, built by the AI SDK's
 * own reader (`readUIMessageStream`) from {@link toUIMessageChunks}: what a
 * `useChat` page shows once it read the whole stream, with the answers to
 * its approval requests on their tool parts ({@link withApprovalAnswers}),
 * so the AI SDK's `validateUIMessages` takes it. Serve it to a page
 * that loads a session's history. A failed turn's error stays in
 * `metadata.error` (the reader's error callback is not an exception here).
 * Rejects with the mapper's `UIStreamError` for events it cannot map, and
 * when there are no events at all.
 */
export async function readTurnUIMessage(
  events: AsyncIterable<RuntimeEvent> | Iterable<RuntimeEvent>,
  options: { messageId?: string } = {},
): Promise<TurnkitUIMessage> {
  const source = toUIMessageChunks(events, options);
  let failure: unknown;
  const stream = new ReadableStream<TurnkitUIMessageChunk>({
    async pull(controller) {
      try {
        const next = await source.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value.chunk);
      } catch (error) {
        failure = error;
        controller.close();
      }
    },
  });
  let message: TurnkitUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<TurnkitUIMessage>({ stream, onError: () => {} })) message = snapshot;
  if (failure !== undefined) throw failure;
  if (message === undefined) throw new TypeError("readTurnUIMessage: the turn has no events");
  return withApprovalAnswers(message);
}
