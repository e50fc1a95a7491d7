/**
 * A stream function that calls the request's `onPayload` and `onResponse`
 * the way pi-ai's built-in providers do, around a scripted one: the payload
 * callback before the request is sent, the response callback once the
 * response "arrived" (before its first event). A throw of either ends the
 * request the way those providers end it: an `error` event whose message is
 * the throw's text, `aborted` when the request's signal has fired. Lets the
 * generated turns exercise the runner's `llm.payloadTransform` and
 * `llm.responseObserver` without a network.
 */
import { type AssistantMessage, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-loop";
import { emptyUsage } from "@turnkit/agent-loop/internal";

export function withProviderCallbacks(streamFn: StreamFn): StreamFn {
  return async (model, context, options) => {
    try {
      await options?.onPayload?.({ model: model.id, messages: context.messages.length }, model);
      await options?.onResponse?.({ status: 200, headers: {} }, model);
    } catch (error) {
      const stopReason = options?.signal?.aborted ? "aborted" : "error";
      const failure: AssistantMessage = {
        role: "assistant",
        content: [],
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage: emptyUsage(),
        stopReason,
        errorMessage: error instanceof Error ? error.message : String(error),
        timestamp: Date.now(),
      };
      const out = createAssistantMessageEventStream();
      out.push({ type: "error", reason: stopReason, error: failure });
      out.end();
      return out;
    }
    // The scripted stream function's own faults (a synchronous throw included) reach the caller as they are.
    return streamFn(model, context, options);
  };
}
