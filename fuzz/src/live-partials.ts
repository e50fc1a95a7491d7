/**
 * Streams the way pi-ai's providers stream: every event's `partial` (and
 * the final message) is one live message that the provider keeps writing
 * into as it reads its connection, whether or not the turn has read the
 * events before. The wrapper reads the scripted model's stream on its own,
 * as a provider reads a socket, copies each event's state into the live
 * message at once and queues the event on a pi-ai event stream; a turn
 * that is slower than the script (a slow writer, a hook, an abort in
 * between) then finds text of unread events in the partial it holds.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-loop";
import { createFailureMessage } from "@turnkit/agent-core";

/** `streamFn` whose every response is streamed into one live message (see the module); `false` leaves it as it is. */
export function withLivePartials(streamFn: StreamFn, live: boolean | undefined): StreamFn {
  if (!live) return streamFn;
  return (model, context, options) => {
    const out = createAssistantMessageEventStream();
    let message: AssistantMessage | undefined;
    const intoLive = (state: AssistantMessage): AssistantMessage => {
      message ??= { ...state, content: [] };
      Object.assign(message, state, { content: state.content.map((block) => ({ ...block })) });
      return message;
    };
    void (async () => {
      try {
        for await (const event of await streamFn(model, context, options)) {
          out.push(liveEvent(event, intoLive));
          if (event.type === "done" || event.type === "error") break;
        }
      } catch (error) {
        // As a provider does: a failure it meets ends its stream with an error built from what it holds.
        const stopReason = options?.signal?.aborted ? "aborted" : "error";
        const errorMessage = error instanceof Error ? error.message : String(error);
        const failed = message
          ? intoLive({ ...message, stopReason, errorMessage })
          : createFailureMessage(model, stopReason, errorMessage);
        out.push({ type: "error", reason: stopReason, error: failed });
      }
      out.end();
    })();
    return out;
  };
}

/** `event` with its partial (or final message) replaced by the live message, brought up to the event's state. */
function liveEvent(
  event: AssistantMessageEvent,
  intoLive: (state: AssistantMessage) => AssistantMessage,
): AssistantMessageEvent {
  const state = event as { partial?: unknown };
  if (event.type === "done") return isMessage(event.message) ? { ...event, message: intoLive(event.message) } : event;
  if (event.type === "error") return isMessage(event.error) ? { ...event, error: intoLive(event.error) } : event;
  if (isMessage(state.partial)) return { ...event, partial: intoLive(state.partial) } as AssistantMessageEvent;
  return event;
}

function isMessage(value: unknown): value is AssistantMessage {
  return typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content);
}
