import { thrownText } from "../synthetic-messages.js";
import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Context,
  type Model,
  type SimpleStreamOptions,
} from "@mariozechner/pi-ai";
import { describeValue, isRecord } from "../message-checks.js";
import type { StreamFn } from "../types.js";
import { assertOptionsArgument } from "../argument-checks.js";
import { emptyUsage } from "./message-builders.js";
import { recordRequest, type RecordedRequest } from "./request-recording.js";
import { endedMessage, lastPartialOf, planResponse, type MessageIdentity } from "./response-plan.js";
import { response, type ScriptedResponse } from "./script-blocks.js";
import { assertScriptEntries, type ResolvedEntry, resolveEntry, type ScriptEntry } from "./script-entry.js";
import type { RejectFault, ScriptFault, ThrowSyncFault } from "./script-faults.js";
import {
  SCRIPTED_API,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_MAX_TOKENS,
  SCRIPTED_MODEL_ID,
  SCRIPTED_PROVIDER,
} from "./scripted-defaults.js";
import { leakEventsPastEnd, pumpEvents, type StreamEnding } from "./stream-pump.js";
import { ScriptedModelError, ScriptedModelErrorCode } from "./scripted-model-error.js";
import { realTimerClock, type TimerClock } from "./timer-clock.js";

/** Options of {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /** Clock for `eventDelayMs` and message timestamps. Default: real timers and `Date.now()`. */
  clock?: TimerClock;
  /** Fields that replace the defaults of the returned `model` (e.g. `reasoning: true`, `maxTokens`). */
  model?: Partial<Model<any>>;
  /** Delay before every event of every response that sets none. Default 0: no timers at all. */
  eventDelayMs?: number;
  /** Delta size of every response that sets none. Default: words for text, 10 characters for tool arguments. */
  chunkSize?: number;
  /**
   * Fail loudly on a request the script does not expect: `streamFn` throws a
   * {@link ScriptedModelError} (`unexpected_request`) instead of streaming an
   * error response the code under test might swallow. Default false.
   * `assertScriptConsumed()` reports such requests either way.
   */
  strict?: boolean;
  /**
   * Stream as pi-ai's providers do: every event's `partial`, and the final
   * message, is one message object that is written up to each event as the
   * event is queued, before a slow consumer has read it (content blocks are
   * written in place). Default false: each event carries a snapshot of its
   * own. Turn it on to test code that keeps a partial, or a block of it,
   * past its event, or that ends a response early (an abort, a failing
   * listener): with a real provider such a partial already holds text of
   * events not yet read.
   */
  livePartial?: boolean;
}

/** A fake model that answers each request with the next script entry. */
export interface ScriptedModel {
  /**
   * A pi-ai model description (api `"scripted"`, provider `"scripted"`, id
   * `"scripted-model"`, zero costs). It is not registered with pi-ai's API
   * registry: pass {@link ScriptedModel.streamFn} wherever a stream function
   * is accepted.
   */
  model: Model<any>;
  /**
   * The stream function (`streamSimple`'s signature). Records the request,
   * takes the next entry and streams it as real pi-ai events, asynchronously.
   * It never throws or rejects except when the entry is `throwSync` or
   * `reject`; an exhausted script or a failing entry function ends the
   * stream with an `error` event instead.
   */
  streamFn: StreamFn;
  /** Every request so far, in call order (the array grows; entries never change). */
  readonly requests: readonly RecordedRequest[];
  /** The most recent request, or `undefined` before the first. */
  lastRequest(): RecordedRequest | undefined;
  /** Entries not yet consumed. */
  remaining(): number;
  /** Adds entries to the end of the script. */
  append(...entries: ScriptEntry[]): void;
  /**
   * Throws a {@link ScriptedModelError} unless the script was used exactly:
   * `unexpected_request` when some request found no entry left (naming the
   * first, with its last message), else `unconsumed_entries` when entries
   * remain. Call it at the end of a test.
   */
  assertScriptConsumed(): void;
}

/** Entries that produce a stream (everything but `throwSync` and `reject`). */
type StreamedEntry = Exclude<ResolvedEntry, ThrowSyncFault | RejectFault>;

/**
 * Creates a scripted model: each call of `streamFn` consumes the next entry
 * of `script` (see {@link ScriptEntry}) and streams it as a real pi-ai event
 * sequence (`start`, per-block start/delta/end, then `done` or `error`). If
 * the request's signal aborts mid-stream (or was aborted already), the
 * stream ends with an `error` event, reason `"aborted"`, `errorMessage`
 * `"Request was aborted"`; abort listeners are removed when a stream ends.
 * Messages report the requested model's `api`, `provider` and `id`.
 * Throws a `TypeError` naming the argument when `script` is no array of
 * entries or `options` (when given) no object whose `clock` is a clock,
 * `model` an object and `strict` and `livePartial` booleans, a `RangeError`
 * for an `eventDelayMs` below zero or a `chunkSize` that is no positive
 * integer.
 */
export function createScriptedModel(
  script: readonly ScriptEntry[] = [],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  assertScriptEntries(script, "createScriptedModel: script");
  assertModelOptions(options);
  const clock = options.clock ?? realTimerClock;
  const queue: ScriptEntry[] = [...script];
  const requests: RecordedRequest[] = [];
  let consumed = 0;
  let toolCallCount = 0;
  const unexpected: RecordedRequest[] = [];
  const nextToolCallId = () => {
    toolCallCount += 1;
    return `call_${toolCallCount}`;
  };

  const model: Model<any> = {
    id: SCRIPTED_MODEL_ID,
    name: "Scripted Model",
    api: SCRIPTED_API,
    provider: SCRIPTED_PROVIDER,
    baseUrl: "scripted://local",
    reasoning: false,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: SCRIPTED_CONTEXT_WINDOW,
    maxTokens: SCRIPTED_MAX_TOKENS,
    ...options.model,
  };

  const streamEntry = (
    entry: StreamedEntry,
    identity: MessageIdentity,
    signal: AbortSignal | undefined,
  ): AssistantMessageEventStream => {
    const stream = createAssistantMessageEventStream();
    const plan = (scripted: ScriptedResponse) =>
      planResponse(scripted, identity, { chunkSize: options.chunkSize, nextToolCallId });
    const pump = (
      scripted: ScriptedResponse | undefined,
      events: AssistantMessageEvent[],
      ending: StreamEnding,
      initial: AssistantMessage,
    ) =>
      pumpEvents({
        stream,
        events,
        ending,
        initial,
        eventDelayMs: scripted?.eventDelayMs ?? options.eventDelayMs ?? 0,
        clock,
        signal,
        livePartial: options.livePartial,
      });

    switch (entry.kind) {
      case "failure": {
        const initial: AssistantMessage = {
          role: "assistant",
          content: [],
          api: identity.api,
          provider: identity.provider,
          model: identity.model,
          usage: emptyUsage(),
          stopReason: "stop",
          timestamp: identity.timestamp,
        };
        const error = endedMessage(initial, "error", entry.message);
        pump(undefined, [], { kind: "terminal", event: { type: "error", reason: "error", error } }, initial);
        return stream;
      }
      case "response": {
        const planned = plan(entry);
        pump(entry, planned.events, { kind: "terminal", event: planned.terminal }, planned.initial);
        return stream;
      }
      case "errorAfter": {
        const planned = plan(entry.response);
        const events = planned.events.slice(0, entry.events);
        const error = endedMessage(lastPartialOf(events, planned.initial), "error", entry.message);
        pump(
          entry.response,
          events,
          { kind: "terminal", event: { type: "error", reason: "error", error } },
          planned.initial,
        );
        return stream;
      }
      case "hang": {
        const planned = plan(entry.response);
        pump(entry.response, planned.events.slice(0, entry.afterEvents), { kind: "hang" }, planned.initial);
        return stream;
      }
      case "endWithoutDone": {
        const planned = plan(entry.response);
        const ending: StreamEnding = entry.resolveResult
          ? { kind: "silentEnd", result: planned.final }
          : { kind: "silentEnd" };
        pump(entry.response, planned.events, ending, planned.initial);
        return stream;
      }
      case "withoutStart": {
        const planned = plan(entry.response);
        pump(entry.response, planned.events.slice(1), { kind: "terminal", event: planned.terminal }, planned.initial);
        return stream;
      }
      case "eventsAfterDone": {
        const planned = plan(entry.response);
        const extraEvents = entry.extraEvents ?? defaultEventsAfterDone(planned.final);
        pump(
          entry.response,
          planned.events,
          { kind: "terminalThenExtra", event: planned.terminal, extraEvents },
          planned.initial,
        );
        if (entry.reachConsumer) leakEventsPastEnd(stream, extraEvents);
        return stream;
      }
      default: {
        const unknown: never = entry;
        throw new Error(`Unknown script entry: ${JSON.stringify(unknown)}`);
      }
    }
  };

  const streamFn: StreamFn = (requestModel: Model<any>, context: Context, streamOptions?: SimpleStreamOptions) => {
    const request = recordRequest(requests.length, requestModel, context, streamOptions);
    requests.push(request);
    const hadEntry = queue.length > 0;
    const entry = queue.shift();
    if (hadEntry) consumed += 1;
    else {
      unexpected.push(request);
      if (options.strict) throw unexpectedRequestError(request, consumed);
    }
    const identity: MessageIdentity = {
      api: requestModel?.api ?? model.api,
      provider: requestModel?.provider ?? model.provider,
      model: requestModel?.id ?? model.id,
      timestamp: clock.now(),
    };
    const resolved = resolveEntry(entry, request, consumed);
    if (resolved.kind === "throwSync") throw resolved.error;
    if (resolved.kind === "reject") return Promise.reject(resolved.error);
    try {
      return streamEntry(resolved, identity, streamOptions?.signal);
    } catch (error) {
      // A malformed entry (e.g. tool arguments that cannot be serialised) still ends as a stream.
      const message = `Scripted model could not stream request #${request.index + 1}: ${thrownText(error)}`;
      return streamEntry({ kind: "failure", message }, identity, streamOptions?.signal);
    }
  };

  return {
    model,
    streamFn,
    requests,
    lastRequest: () => requests[requests.length - 1],
    remaining: () => queue.length,
    append: (...entries) => {
      assertScriptEntries(entries, "ScriptedModel.append: entries");
      queue.push(...entries);
    },
    assertScriptConsumed() {
      const first = unexpected[0];
      if (first) throw unexpectedRequestError(first, consumed, unexpected.length);
      if (queue.length > 0) {
        throw new ScriptedModelError({
          code: ScriptedModelErrorCode.UnconsumedEntries,
          message: `Scripted model: ${queue.length} of ${consumed + queue.length} script entries were never requested (${requests.length} requests arrived)`,
        });
      }
    },
  };
}

function unexpectedRequestError(request: RecordedRequest, consumed: number, count = 1): ScriptedModelError {
  const last = request.context.messages[request.context.messages.length - 1];
  const more = count > 1 ? ` (and ${count - 1} more)` : "";
  return new ScriptedModelError({
    code: ScriptedModelErrorCode.UnexpectedRequest,
    message: `Scripted model: request #${request.index + 1}${more} arrived after all ${consumed} script entries were used; its last message is ${describeMessage(last)}`,
  });
}

function describeMessage(message: Context["messages"][number] | undefined): string {
  if (!message) return "none";
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
  return `${message.role} "${text.slice(0, 80)}"`;
}

/** Throws like {@link createScriptedModel} says for options it cannot use. */
function assertModelOptions(options: unknown): asserts options is ScriptedModelOptions | undefined {
  assertOptionsArgument(options, "createScriptedModel");
  if (options === undefined) return;
  const { clock, model, eventDelayMs, chunkSize, strict, livePartial } = options;
  const isClock =
    isRecord(clock) && ["now", "setTimeout", "clearTimeout"].every((method) => typeof clock[method] === "function");
  if (clock !== undefined && !isClock) {
    throw new TypeError(
      `createScriptedModel: options.clock must be a clock { now, setTimeout, clearTimeout }, got ${describeValue(clock)}`,
    );
  }
  assertOptionsArgument(model, "createScriptedModel", "options.model");
  if (eventDelayMs !== undefined && !(typeof eventDelayMs === "number" && eventDelayMs >= 0))
    throw new RangeError(`createScriptedModel: options.eventDelayMs must be >= 0, got ${describeValue(eventDelayMs)}`);
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && (chunkSize as number) > 0))
    throw new RangeError(
      `createScriptedModel: options.chunkSize must be a positive integer, got ${describeValue(chunkSize)}`,
    );
  for (const [field, value] of [
    ["strict", strict],
    ["livePartial", livePartial],
  ] as const) {
    if (value !== undefined && typeof value !== "boolean")
      throw new TypeError(`createScriptedModel: options.${field} must be a boolean, got ${describeValue(value)}`);
  }
}

/** A `text_delta` and a second, different `done`: either reaching a consumer is visible. */
function defaultEventsAfterDone(final: AssistantMessage): AssistantMessageEvent[] {
  const late: AssistantMessage = {
    ...structuredClone(final),
    content: [...structuredClone(final.content), { type: "text", text: "late text after done" }],
  };
  const reason = final.stopReason === "error" || final.stopReason === "aborted" ? "stop" : final.stopReason;
  return [
    { type: "text_delta", contentIndex: final.content.length, delta: "late text after done", partial: late },
    { type: "done", reason, message: { ...late, stopReason: reason } },
  ];
}
