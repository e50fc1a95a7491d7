import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { describeValue, isRecord } from "../message-checks.js";
import {
  assertArrayArgument,
  assertOptionsArgument,
  assertStringArgument,
  readArgumentFields,
} from "../argument-checks.js";
import { DEFAULT_FAULT_ERROR_MESSAGE } from "./scripted-defaults.js";
import { response, scriptedResponseProblem, type ScriptedResponse } from "./script-blocks.js";

/** Streams the first `events` events of `response`, then an `error` event (stopReason `"error"`). */
export interface ErrorAfterFault {
  /** Selects this fault. */
  kind: "errorAfter";
  /** How many events of `response` stream before the error, counting `start`; a non-negative integer. */
  events: number;
  /** The `errorMessage` of the failed message. */
  message: string;
  /** The response whose events stream before the error. */
  response: ScriptedResponse;
}

/** The stream function throws `error` synchronously, before returning a stream. */
export interface ThrowSyncFault {
  /** Selects this fault. */
  kind: "throwSync";
  /** Thrown as it is, not wrapped. */
  error: unknown;
}

/** The stream function returns a promise rejected with `error`. */
export interface RejectFault {
  /** Selects this fault. */
  kind: "reject";
  /** The rejection reason, as it is, not wrapped. */
  error: unknown;
}

/** Streams the first `afterEvents` events of `response`, then nothing until the request's signal aborts. */
export interface HangFault {
  /** Selects this fault. */
  kind: "hang";
  /** How many events of `response` stream before the silence; 0 for none. */
  afterEvents: number;
  /** The response whose first events stream. */
  response: ScriptedResponse;
}

/** Streams every event of `response` except the terminal one, then calls `end()`. */
export interface EndWithoutDoneFault {
  /** Selects this fault. */
  kind: "endWithoutDone";
  /** The response streamed without its terminal event. */
  response: ScriptedResponse;
  /** True: the stream's `result()` resolves with the message the missing event would have carried; false: it never settles. */
  resolveResult: boolean;
}

/** Streams every event of `response` except `start`, then the terminal event. */
export interface WithoutStartFault {
  /** Selects this fault. */
  kind: "withoutStart";
  /** The response streamed without its `start` event. */
  response: ScriptedResponse;
}

/** Streams `response` normally, then pushes more events after the terminal one. */
export interface EventsAfterDoneFault {
  /** Selects this fault. */
  kind: "eventsAfterDone";
  /** The response streamed normally first. */
  response: ScriptedResponse;
  /** Pushed after the terminal event; default one `text_delta` and a second, different `done`. */
  extraEvents?: AssistantMessageEvent[];
  /** True: the stream's iterator yields the extra events too; false: the stream drops them, as pi-ai's does. */
  reachConsumer: boolean;
}

/** A script entry that makes the scripted model misbehave in one specific way. */
export type ScriptFault =
  | ErrorAfterFault
  | ThrowSyncFault
  | RejectFault
  | HangFault
  | EndWithoutDoneFault
  | WithoutStartFault
  | EventsAfterDoneFault;

const interruptedResponse = () => response("This scripted response is cut off part way through");

/**
 * The response a fault streams: text becomes `response(text)`. Throws a
 * `TypeError` naming `where` and `name` for anything but text or a response
 * built by {@link response}.
 */
function toResponse(value: unknown, where: string, name: string): ScriptedResponse {
  if (typeof value === "string") return response(value);
  const problem = isRecord(value)
    ? scriptedResponseProblem(value)
    : ` must be text or response(...), got ${describeValue(value)}`;
  if (problem) throw new TypeError(`${where}: ${name}${problem}`);
  return value as unknown as ScriptedResponse;
}

/** A `TypeError` naming `name` for a count that is no number, a `RangeError` for a number that is no non-negative integer. */
function assertEventCount(where: string, name: string, count: unknown): void {
  if (typeof count !== "number") {
    throw new TypeError(`${where}: ${name} must be a non-negative integer, got ${describeValue(count)}`);
  }
  if (!(Number.isInteger(count) && count >= 0)) {
    throw new RangeError(`${where}(): event count must be a non-negative integer, got ${count}`);
  }
}

/**
 * Streams the first `n` events of a response (counting `start`; default
 * response: one sentence of text), then ends with an `error` event whose
 * message is the partial so far with `stopReason: "error"` and
 * `errorMessage: message`. `n` larger than the response streams all of its
 * events before the error; `n = 0` ends with the error at once. Throws a
 * `RangeError` for an `n` that is no non-negative integer, a `TypeError`
 * naming the argument when `n` is no number, `message` no string or
 * `options` (when given) no object whose `response` is text or a response.
 */
export function errorAfter(
  n: number,
  message: string = DEFAULT_FAULT_ERROR_MESSAGE,
  options: { response?: ScriptedResponse | string } = {},
): ErrorAfterFault {
  assertEventCount("errorAfter", "n", n);
  assertStringArgument(message, "errorAfter", "message");
  assertOptionsArgument(options, "errorAfter");
  return {
    kind: "errorAfter",
    events: n,
    message,
    response: options.response ? toResponse(options.response, "errorAfter", "options.response") : interruptedResponse(),
  };
}

/**
 * The stream function throws `error` synchronously. The request is still
 * recorded. This breaks the `StreamFn` contract on purpose: use it to check
 * that the caller survives a provider that throws (the loop ends the run
 * with an `error` assistant message).
 */
export function throwSync(error: unknown): ThrowSyncFault {
  return { kind: "throwSync", error };
}

/**
 * The stream function returns a rejected promise instead of a stream. The
 * request is still recorded. Use it to check that the caller survives an
 * async provider that fails this way (the loop ends the run with an `error`
 * assistant message).
 */
export function reject(error: unknown): RejectFault {
  return { kind: "reject", error };
}

/**
 * Emits nothing (or the first `afterEvents` events of `response`, e.g. to
 * test an idle timeout after the first event) and never ends on its own.
 * When the request's signal aborts, it ends with an `error` event, reason
 * `"aborted"`, `errorMessage` `"Request was aborted"`, and removes its abort
 * listener. A request without a signal hangs forever; that is the point.
 * Throws a `TypeError` for options that are no object, an `afterEvents`
 * that is no number or a `response` that is neither text nor a response, a
 * `RangeError` for an `afterEvents` that is no non-negative integer.
 */
export function hang(options: { afterEvents?: number; response?: ScriptedResponse | string } = {}): HangFault {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`hang(): expected an options object { afterEvents, response }, got ${String(options)}`);
  }
  // Each option read once; an object no code can read (a revoked proxy) or an option whose read throws is said in words.
  const read = readArgumentFields(options, "hang", "options", ["afterEvents", "response"]);
  const afterEvents = (read.afterEvents as number | undefined) ?? 0;
  assertEventCount("hang", "options.afterEvents", afterEvents);
  const given = read.response as ScriptedResponse | string | undefined;
  return {
    kind: "hang",
    afterEvents,
    response: given ? toResponse(given, "hang", "options.response") : interruptedResponse(),
  };
}

/**
 * Streams every event of `response` except `done`/`error`, then ends the
 * stream with `end()`: iteration stops without a terminal event. By default
 * `result()` never settles, as with a provider whose stream was cut; with
 * `resolveResult: true`, `end(finalMessage)` resolves it with the message the
 * missing terminal event would have carried. Throws a `TypeError` naming the
 * argument when `value` is neither text nor a response, or `options` (when
 * given) is no object.
 */
export function endWithoutDone(
  value: ScriptedResponse | string,
  options: { resolveResult?: boolean } = {},
): EndWithoutDoneFault {
  const scripted = toResponse(value, "endWithoutDone", "value");
  assertOptionsArgument(options, "endWithoutDone");
  return { kind: "endWithoutDone", response: scripted, resolveResult: options.resolveResult ?? false };
}

/**
 * Streams `response` without its `start` event: the first event is a block
 * event (or the terminal one for an empty response). Partials and the final
 * message are as usual. Use it to check that a consumer still opens and
 * closes the message (one `message_start` and one `message_end` for it).
 * Throws a `TypeError` naming the argument when `value` is neither text nor
 * a response.
 */
export function withoutStart(value: ScriptedResponse | string): WithoutStartFault {
  return { kind: "withoutStart", response: toResponse(value, "withoutStart", "value") };
}

/**
 * Streams `response` normally, then pushes `extraEvents` after the terminal
 * event (default: one `text_delta` and a second `done` whose message differs
 * from the first). pi-ai's `EventStream` drops events pushed after a terminal
 * one, so by default a consumer never sees them: the fault checks that
 * nothing relies on those pushes. With `reachConsumer: true` the returned
 * stream's iterator yields them after the terminal event anyway, like a
 * hand-written stream without that guard, so a consumer must stop reading at
 * `done` itself; `result()` still resolves to the first terminal message.
 * Throws a `TypeError` naming the argument when `value` is neither text nor
 * a response, or `options` (when given) is no object or has `extraEvents`
 * that are no array.
 */
export function eventsAfterDone(
  value: ScriptedResponse | string,
  options: { extraEvents?: AssistantMessageEvent[]; reachConsumer?: boolean } = {},
): EventsAfterDoneFault {
  const scripted = toResponse(value, "eventsAfterDone", "value");
  assertOptionsArgument(options, "eventsAfterDone");
  if (options.extraEvents !== undefined)
    assertArrayArgument(options.extraEvents, "eventsAfterDone", "options.extraEvents", "stream events");
  const fault: EventsAfterDoneFault = {
    kind: "eventsAfterDone",
    response: scripted,
    reachConsumer: options.reachConsumer ?? false,
  };
  if (options.extraEvents) fault.extraEvents = structuredClone(options.extraEvents);
  return fault;
}
