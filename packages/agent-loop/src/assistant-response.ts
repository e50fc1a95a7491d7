import { type AssistantMessage, type AssistantMessageEvent, type Context, type SimpleStreamOptions, streamSimple } from "@mariozechner/pi-ai";
import { ABORT_GRACE_MS } from "./defaults.js";
import type { LoopRun } from "./loop-run.js";
import type { EndableResponse } from "./run-abort-watch.js";
import type { AgentLoopConfig } from "./types.js";
import { failedAssistantMessage, snapshotMessage } from "./synthetic-messages.js";
import { copyOptions } from "./options-copy.js";

type ResponseStream = AsyncIterable<AssistantMessageEvent> & {
  end?: (result?: AssistantMessage) => void;
  result?: () => Promise<AssistantMessage>;
};

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
 * calling it. The stream function receives the run's request signal
 * (`RunAbortWatch.requestSignal`): it fires with the run's signal, and also as soon
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
  return consumeResponse(run, response);
}

/**
 * Builds the request context and calls the stream function. Resolves to
 * `undefined`, without calling it, when the run is aborted before or during
 * a step (hooks may ignore the signal and answer after the abort).
 */
async function startRequest(run: LoopRun): Promise<ResponseStream | undefined> {
  const { config } = run;
  if (run.aborted) return undefined;
  const transformed = config.transformContext ? await config.transformContext(run.context.messages, run.signal) : run.context.messages;
  if (run.aborted) return undefined;
  // A conversion or key lookup that answers synchronously is not awaited.
  const converted = config.convertToLlm(transformed);
  const messages = isThenable(converted) ? await converted : converted;
  if (run.aborted) return undefined;
  const lookedUp = config.getApiKey?.(config.model.provider);
  const apiKey = (isThenable(lookedUp) ? await lookedUp : lookedUp) || config.apiKey;
  if (run.aborted) return undefined;
  const llmContext: Context = { systemPrompt: run.context.systemPrompt, messages, tools: run.context.tools };
  const streamFunction = run.streamFn ?? streamSimple;
  return streamFunction(config.model, llmContext, requestOptions(config, apiKey, run.abortWatch.requestSignal()));
}

/** `{ ...config, apiKey, signal }`, as a copy that keeps one hidden class per request (see {@link copyOptions}). */
function requestOptions(config: AgentLoopConfig, apiKey: string | undefined, signal: AbortSignal): SimpleStreamOptions {
  const options: SimpleStreamOptions & Partial<AgentLoopConfig> = copyOptions(config);
  options.apiKey = apiKey;
  options.signal = signal;
  return options;
}

async function recordWholeFailure(run: LoopRun, error: unknown): Promise<AssistantMessage> {
  const failure = failedAssistantMessage(run.config.model, error, run.aborted);
  run.record(failure);
  await run.emitWholeMessage(failure);
  return failure;
}

async function consumeResponse(run: LoopRun, response: ResponseStream): Promise<AssistantMessage> {
  const { signal } = run;
  let partial: AssistantMessage | undefined;
  /** Where the partial sits in the context; each update replaces it, as in pi. */
  let placedAt = -1;
  let final: AssistantMessage | undefined;
  let streamError: unknown;
  let sinkError = false;

  // A stream that ignores the signal is ended by us after a grace period,
  // so an abort always ends the response.
  const endable = signal !== undefined && typeof response.end === "function";
  if (endable) run.abortWatch.watchResponse(response as EndableResponse);

  try {
    for await (const event of response) {
      switch (event.type) {
        case "start":
          partial = event.partial;
          placedAt = run.context.messages.push(partial) - 1;
          sinkError = true;
          const started = run.emit({ type: "message_start", message: partial });
          if (started) await started;
          sinkError = false;
          break;
        case "done":
          final = event.message;
          break;
        case "error":
          final = event.error;
          break;
        default: {
          if (!partial) break;
          partial = event.partial;
          run.context.messages[placedAt] = partial;
          sinkError = true;
          const pending = run.emit({ type: "message_update", message: partial, assistantMessageEvent: event });
          if (pending) await pending;
          sinkError = false;
        }
      }
      if (final) break;
    }
  } catch (error) {
    if (sinkError) {
      // The run fails now; the request must not go on writing into the partial it is built from.
      run.abortWatch.abortRequest();
      throw error;
    }
    streamError = error;
  } finally {
    if (endable) run.abortWatch.stopWatchingResponse();
  }

  if (!final && !streamError && !run.aborted) {
    // A stream may end without a terminal event yet still have settled its
    // result (pi's EventStream.end(message)); take it, but never wait for one.
    final = await settledResult(response);
  }
  if (final) {
    // A failure may be handed over while the request is still writing into
    // the partial it shares blocks or usage with (pi-ai's providers stream
    // into one object; a wrapper that gave up on a stalled provider builds
    // its failure from that object): deliver what it holds now. A finished
    // response (`done`) is the provider's last word and is delivered as given.
    if (partial && (final.stopReason === "error" || final.stopReason === "aborted")) final = snapshotMessage(final);
  } else {
    // The loop gives up on this stream: stop the request, then keep what had streamed.
    run.abortWatch.abortRequest();
    const reason = streamError ?? new Error("The model stream ended without a final message");
    final = failedAssistantMessage(run.config.model, reason, run.aborted, partial);
  }
  if (placedAt >= 0) {
    run.context.messages[placedAt] = final;
  } else {
    run.context.messages.push(final);
    await run.emit({ type: "message_start", message: final });
  }
  run.newMessages.push(final);
  const ended = run.emit({ type: "message_end", message: final });
  if (ended) await ended;
  return final;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
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
