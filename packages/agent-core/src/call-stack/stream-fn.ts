import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Context,
  type Model,
  type SimpleStreamOptions,
} from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-loop";
import { assertObjectArgument, describeValue, emptyUsage, errorText } from "@turnkit/agent-loop/internal";
import { attachClassifiedError, classifyError } from "./classify-error.js";
import { pipeEvents, RelayStream } from "./relay-stream.js";

export { errorText };
export type { StreamFn };

/** The options a {@link StreamFn} receives (pi-ai `SimpleStreamOptions`). */
export type StreamFnOptions = SimpleStreamOptions;

/** Any pi-ai model, whatever its API. */
export type AnyModel = Model<any>;

/**
 * The assistant message that reports a request which failed (`"error"`) or
 * was aborted (`"aborted"`) before the provider answered anything: no
 * content, zero usage, `errorMessage` as given, the model's api, provider
 * and id, and the current time. For stream functions a host writes itself,
 * which must encode a failure as a terminal `error` event with such a
 * message instead of throwing; `classifyError` later reads its
 * `errorMessage`. Builds a new object each call. Throws a `TypeError`
 * naming the argument when `model` is no object, `stopReason` neither
 * `"error"` nor `"aborted"`, or `errorMessage` no string.
 */
export function createFailureMessage(
  model: AnyModel,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  assertObjectArgument(model, "createFailureMessage", "model");
  if (stopReason !== "error" && stopReason !== "aborted")
    throw new TypeError(
      `createFailureMessage: stopReason must be "error" or "aborted", got ${describeValue(stopReason)}`,
    );
  if (typeof errorMessage !== "string")
    throw new TypeError(`createFailureMessage: errorMessage must be a string, got ${describeValue(errorMessage)}`);
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    errorMessage,
    timestamp: Date.now(),
  };
}

/**
 * The failure that stands for a response whose final message or one of
 * whose events is malformed (`problem` says how, see `responseProblem` and
 * `streamEventProblem`; `message` is that final message, or the partial
 * message so far): stopReason `"error"`, no
 * content, an `errorMessage` naming the field (and the response's own
 * `errorMessage`, when it had one), and the response's usage when it
 * reported one (the tokens were spent all the same).
 */
export function malformedResponseFailure(model: AnyModel, message: unknown, problem: string): AssistantMessage {
  const where = problem.startsWith(".")
    ? problem.slice(1)
    : problem.startsWith(" ")
      ? `the message${problem}`
      : problem;
  const original = (message as { errorMessage?: unknown } | null)?.errorMessage;
  const text = `The model's response is malformed: ${where}${typeof original === "string" ? ` (its error: ${original})` : ""}`;
  const failure = createFailureMessage(model, "error", text);
  const usage = (message as { usage?: unknown } | null)?.usage;
  if (typeof usage === "object" && usage !== null) failure.usage = usage as AssistantMessage["usage"];
  return failure;
}

/** A copy of a partial message as a failed final message, without pi-ai's streaming scratch fields. */
export function snapshotAsFailure(
  partial: AssistantMessage,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  const content = partial.content.map((block) => {
    const copy = { ...block } as Record<string, unknown>;
    delete copy.partialArgs;
    delete copy.streamIndex;
    delete copy.index;
    return copy as unknown as AssistantMessage["content"][number];
  });
  return { ...partial, content, stopReason, errorMessage };
}

/** A stream that holds only the terminal `error` event for `message`. */
export function failedStream(message: AssistantMessage): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  pushTerminalError(stream, message);
  return stream;
}

/** Pushes the terminal `error` event for `message` and ends `stream`. */
export function pushTerminalError(stream: AssistantMessageEventStream, message: AssistantMessage): void {
  stream.push({ type: "error", reason: message.stopReason === "aborted" ? "aborted" : "error", error: message });
  stream.end();
}

/** True for the two events that end a stream. */
export function isTerminalEvent(
  event: AssistantMessageEvent,
): event is Extract<AssistantMessageEvent, { type: "done" | "error" }> {
  return event.type === "done" || event.type === "error";
}

/**
 * Calls `streamFn` and always returns an event stream: a synchronous throw or
 * a rejected promise becomes a terminal `error` event (`aborted` when
 * `options.signal` has fired) whose message carries the classification of
 * the thrown value (so a status or Retry-After on it is not lost). Never throws.
 */
export function invokeStreamFn(
  streamFn: StreamFn,
  model: AnyModel,
  context: Context,
  options: StreamFnOptions | undefined,
): AssistantMessageEventStream {
  let result: ReturnType<StreamFn>;
  try {
    result = streamFn(model, context, options);
  } catch (error) {
    return failedStream(thrownFailureMessage(model, options, error));
  }
  if (!isPromiseLike(result)) return isEventStream(result) ? result : notAStream(model, result);
  const out = new RelayStream();
  // Through a promise of our own: a host's thenable whose `then` throws or calls back twice is answered as a rejection.
  Promise.resolve(result).then(
    (inner) => {
      if (!isEventStream(inner)) {
        pushTerminalError(out, notAStreamMessage(model, inner));
        return;
      }
      pipeEvents(inner, {
        event(event) {
          out.push(event);
          if (isTerminalEvent(event)) out.end();
        },
        end: () => out.end(),
        fail: (error) => pushTerminalError(out, thrownFailureMessage(model, options, error)),
      });
    },
    (error: unknown) => {
      pushTerminalError(out, thrownFailureMessage(model, options, error));
    },
  );
  return out;
}

/**
 * The failure message for a value a stream function threw or rejected with:
 * `aborted` when the request's signal has fired. The thrown value may carry
 * more than its text (an HTTP status, Retry-After headers), so it is
 * classified now and the result attached to the message.
 */
function thrownFailureMessage(model: AnyModel, options: StreamFnOptions | undefined, error: unknown): AssistantMessage {
  const message = createFailureMessage(model, options?.signal?.aborted ? "aborted" : "error", errorText(error));
  return attachClassifiedError(message, classifyError(message.stopReason === "aborted" ? message : error));
}

// A value whose fields cannot be read (a revoked proxy, a getter that throws) is neither a stream nor a promise.
function isEventStream(value: unknown): value is AssistantMessageEventStream {
  try {
    return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === "function";
  } catch {
    return false;
  }
}

/**
 * The failure of a request whose stream function returned something that is
 * not a stream of events: a bug of the host's `llm.streamFn`, so `internal`
 * (never retried), naming the function and what it returned.
 */
function notAStreamMessage(model: AnyModel, value: unknown): AssistantMessage {
  const got = value === null ? "null" : typeof value === "object" ? "an object" : typeof value;
  const text = `llm.streamFn returned ${got}, not a stream of assistant message events (an async iterable)`;
  return attachClassifiedError(createFailureMessage(model, "error", text), {
    code: "internal",
    message: text,
    retryable: false,
  });
}

function notAStream(model: AnyModel, value: unknown): AssistantMessageEventStream {
  return failedStream(notAStreamMessage(model, value));
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  try {
    return typeof (value as PromiseLike<T> | undefined)?.then === "function";
  } catch {
    return false;
  }
}
