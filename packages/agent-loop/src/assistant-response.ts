import { type AssistantMessage, type Context, type SimpleStreamOptions, streamSimple } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import type { AgentLoopConfig } from "./types.js";
import { failedAssistantMessage } from "./synthetic-messages.js";
import { copyOptions } from "./options-copy.js";
import { type ResponseStream, readResponse } from "./response-reading.js";
import { callWithLoopRequestAbort, followsLoopRequestAbort } from "./request-abort.js";

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
 * broke off), so no request outlives the step that gave up on it. A stream
 * function that follows the loop's request abort itself
 * (`followLoopRequestAbort`) receives the run's signal instead and finds
 * that abort with `loopRequestAbortOf(options)` during the call.
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
  // A conversion or key lookup that answers synchronously is not awaited.
  const converted = config.convertToLlm(transformed);
  const messages = isThenable(converted) ? await converted : converted;
  if (run.aborted) return undefined;
  const lookedUp = config.getApiKey?.(config.model.provider);
  const apiKey = (isThenable(lookedUp) ? await lookedUp : lookedUp) || config.apiKey;
  if (run.aborted) return undefined;
  const llmContext: Context = { systemPrompt: run.context.systemPrompt, messages, tools: run.context.tools };
  const streamFunction = run.streamFn ?? streamSimple;
  if (!followsLoopRequestAbort(streamFunction)) {
    return streamFunction(config.model, llmContext, requestOptions(config, apiKey, run.abortWatch.requestSignal()));
  }
  const requestAbort = run.abortWatch.requestAbort();
  return callWithLoopRequestAbort(
    streamFunction,
    config.model,
    llmContext,
    requestOptions(config, apiKey, run.signal),
    requestAbort,
  );
}

/** `{ ...config, apiKey, signal }`, as a copy that keeps one hidden class per request (see {@link copyOptions}). */
function requestOptions(
  config: AgentLoopConfig,
  apiKey: string | undefined,
  signal: AbortSignal | undefined,
): SimpleStreamOptions {
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

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}
