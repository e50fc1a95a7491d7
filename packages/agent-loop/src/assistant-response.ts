import { type AssistantMessage, type AssistantMessageEvent, type Context, streamSimple } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import { describeValue } from "./message-checks.js";
import { failedAssistantMessage } from "./synthetic-messages.js";
import type { RequestAbort } from "./request-abort.js";

/**
 * Requests and streams one assistant response (behaviour L2), recording it in the
 * run's context and returning the final message.
 *
 * Never throws for failures of the request: a throwing `transformContext`,
 * `convertToLlm`, `getApiKey` or stream function, a stream that ends without
 * a terminal event, and an abort all yield a final message with `stopReason`
 * `"error"` or `"aborted"` (behaviour L9). Only a failing event sink propagates.
 *
 * Once the run's signal has fired, no request is started: the abort is
 * checked before `transformContext` and again after each awaited step before
 * the stream function, and an aborted run gets an `aborted` message without
 * calling it. The stream function receives the request's signal (see
 * {@link RequestAbort}): it fires with the run's signal, and also as soon
 * as the loop stops reading the stream early (a failing sink, a stream that
 * broke off), so no request outlives the step that gave up on it.
 * A failed response delivered with `message_end` never changes afterwards,
 * even when the request goes on writing into the partial it came from.
 */
export async function streamAssistantResponse(run: LoopRun): Promise<AssistantMessage> {
  let response: ResponseStream | undefined;
  try {
    response = await startRequest(run);
  } catch (error) {
    return recordWholeFailure(run, error);
  }
  if (!response) return recordWholeFailure(run, undefined);
  return readResponse(run, response);
}

/**
 * Builds the request context and calls the stream function. Resolves to
 * `undefined`, without calling it, when the run is aborted before or during
 * a step (hooks may ignore the signal and answer after the abort).
 */
async function startRequest(run: LoopRun): Promise<ResponseStream | undefined> {
  const { config } = run;
  if (run.aborted) return undefined;
  const transformed = config.transformContext
    ? await config.transformContext(run.context.messages, run.signal)
    : run.context.messages;
  if (run.aborted) return undefined;
  // Turnkit addition: what the hook answered is named, instead of failing inside convertToLlm.
  if (!Array.isArray(transformed))
    throw new TypeError(`transformContext must resolve to an array of messages, got ${describeValue(transformed)}`);
  const messages = await config.convertToLlm(transformed);
  if (run.aborted) return undefined;
  const apiKey = (await config.getApiKey?.(config.model.provider)) || config.apiKey;
  if (run.aborted) return undefined;
  const llmContext: Context = { systemPrompt: run.context.systemPrompt, messages, tools: run.context.tools };
  const streamFunction = run.streamFn ?? streamSimple;
  return streamFunction(config.model, llmContext, { ...config, apiKey, signal: run.requestAbort.signal });
}

async function recordWholeFailure(run: LoopRun, error: unknown): Promise<AssistantMessage> {
  const failure = failedAssistantMessage(run.config.model, error, run.aborted);
  run.record(failure);
  await run.emitWholeMessage(failure);
  return failure;
}

/** A model response as the loop reads it: pi-ai's `AssistantMessageEventStream`, or any async iterable of its events. */
type ResponseStream = AsyncIterable<AssistantMessageEvent> & {
  end?: (result?: AssistantMessage) => void;
  result?: () => Promise<AssistantMessage>;
};

/**
 * Reads `response` to its final message with `for await`, as pi does,
 * records that message in the run's context and announces it; resolves to
 * it. The stream is closed (`return()`) once its terminal event arrived.
 *
 * A stream that fails, or ends without a final message, gives a failed
 * message (`error`, or `aborted` once the run's signal fired) keeping what
 * had streamed, and the request is aborted. A stream that ignores the
 * run's signal is ended by the loop when the run's abort grace runs out. Rejects
 * only when the event sink fails (the request is then aborted first).
 */
async function readResponse(run: LoopRun, response: ResponseStream): Promise<AssistantMessage> {
  // A stream that ignores the run's signal is ended when the run's grace runs out.
  const endResponse = typeof response.end === "function" ? () => response.end!() : undefined;
  if (endResponse) run.grace.whenRunOut(endResponse);
  let partial: AssistantMessage | undefined;
  /** Where the partial sits in the context; each update replaces it, as in pi. */
  let placedAt = -1;
  let final: AssistantMessage | undefined;
  let streamFailure: { error: unknown } | undefined;
  /** True while the sink handles an event: a throw then fails the run instead of the response. */
  let delivering = false;
  try {
    for await (const event of response) {
      if (event.type === "done") final = event.message;
      else if (event.type === "error") final = event.error;
      else if (event.type === "start") {
        partial = event.partial;
        placedAt = run.context.messages.push(partial) - 1;
        delivering = true;
        await run.emit({ type: "message_start", message: partial });
        delivering = false;
      } else if (partial && isUpdateEvent(event)) {
        partial = event.partial;
        run.context.messages[placedAt] = partial;
        delivering = true;
        const delivered = run.emit({ type: "message_update", message: partial, assistantMessageEvent: event });
        if (delivered) await delivered;
        delivering = false;
      }
      if (final) break;
    }
  } catch (error) {
    if (delivering) {
      // The run fails now; the request must not go on writing into the partial it is built from.
      run.requestAbort.giveUp();
      throw error;
    }
    streamFailure = { error };
  } finally {
    if (endResponse) run.grace.stopWaiting(endResponse);
  }

  // A stream may end without a terminal event yet still have settled its
  // result (pi's EventStream.end(message)); take it, but never wait for one.
  if (!final && !streamFailure && !run.aborted) final = await settledResult(response);
  if (!final) {
    // The loop gives up on this stream: stop the request, then keep what had streamed.
    run.requestAbort.giveUp();
    const reason = streamFailure ? streamFailure.error : new Error("The model stream ended without a final message");
    final = failedAssistantMessage(run.config.model, reason, run.aborted, partial && run.shownPart(partial));
  } else if (partial && (final.stopReason === "error" || final.stopReason === "aborted")) {
    // A failure may be handed over while the request is still writing into
    // the partial it shares blocks or usage with (pi-ai's providers stream
    // into one object; a wrapper that gave up on a stalled provider, as the
    // call stack's timeouts and aborts do, builds its failure from that
    // object, which may hold text of events never read): deliver it as the
    // listeners were shown it. A finished response (`done`) is the
    // provider's last word and is delivered as given.
    final = run.shownPart(final);
  }

  if (placedAt >= 0) run.context.messages[placedAt] = final;
  else {
    run.context.messages.push(final);
    await run.emit({ type: "message_start", message: final });
  }
  run.newMessages.push(final);
  await run.emit({ type: "message_end", message: final });
  return final;
}

/** The events announced as `message_update`, as pi announces them; an event of another type is skipped. */
function isUpdateEvent(event: AssistantMessageEvent): boolean {
  switch (event.type) {
    case "text_start":
    case "text_delta":
    case "text_end":
    case "thinking_start":
    case "thinking_delta":
    case "thinking_end":
    case "toolcall_start":
    case "toolcall_delta":
    case "toolcall_end":
      return true;
    default:
      return false;
  }
}

const NOT_SETTLED = Symbol("not settled");

/** The stream's `result()` if it has already settled, without waiting for one that has not. */
async function settledResult(response: ResponseStream): Promise<AssistantMessage | undefined> {
  if (typeof response.result !== "function") return undefined;
  try {
    const result = await Promise.race([response.result(), Promise.resolve(NOT_SETTLED)]);
    return result === NOT_SETTLED || result?.role !== "assistant" ? undefined : result;
  } catch {
    return undefined;
  }
}
