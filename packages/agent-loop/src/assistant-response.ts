import { type AssistantMessage, type Context, streamSimple } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import { failedAssistantMessage } from "./synthetic-messages.js";
import { type ResponseStream, readResponse } from "./response-reading.js";
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
