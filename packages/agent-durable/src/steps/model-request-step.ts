import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageEventStream,
  type Model,
  streamSimple,
} from "@mariozechner/pi-ai";
import { createFailureMessage, type LlmConfig } from "@turnkit/agent-core";
import { type StreamFn } from "@turnkit/agent-loop";
import { errorText } from "@turnkit/agent-loop/internal";
import { crashIfArmed, stallIfArmed } from "../workers/fault-point.js";
import { confirmClaimBeforeEffect } from "./confirm-claim.js";
import { runRecordedStep } from "./recorded-step.js";
import { noteStepSteering, takeSteeringInStep } from "./steering-step.js";
import type { StepSteering } from "../store/steering-inbox.js";
import type { Lane } from "../turn/step-lanes.js";
import {
  beginLiveStep,
  type LiveStart,
  liveSignal,
  recordAbort,
  replayLiveStart,
  type TurnContext,
} from "../turn/turn-context.js";

/** A streamed event as recorded: the event without its `partial` message (rebuilt on replay). */
type RecordedEvent = {
  [K in AssistantMessageEvent["type"]]: Omit<Extract<AssistantMessageEvent, { type: K }>, "partial">;
}[Exclude<AssistantMessageEvent["type"], "done" | "error">];

/** How a request ended, as recorded. */
type RecordedEnding =
  | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
  | { type: "error"; reason: "aborted" | "error"; message: AssistantMessage };

/** The checkpoint of one model request: what it streamed, how it ended, and whether the turn was aborted meanwhile. */
export interface ModelRequestRecord {
  start: LiveStart;
  events: RecordedEvent[];
  ending: RecordedEnding;
  /** The turn was aborted (not merely this attempt, e.g. by a stream watchdog of the retry layer). */
  turnAborted: boolean;
  /** The steering the step took when it ended (none for a request nested in another step, or one that asked for tool calls). */
  steering?: StepSteering;
}

/**
 * `llm` with every model request a recorded step (see
 * {@link durableStreamFn}): the turn model's `streamFn` (or pi-ai's
 * `streamSimple`), and the own `streamFn` of each `llm.fallback` model that
 * has one (a fallback model without one sends through the turn's, durable
 * already). So a request that fell back is not sent again on replay either.
 */
export function durableLlm(ctx: TurnContext, llm: LlmConfig, lane?: Lane): LlmConfig {
  const durable: LlmConfig = { ...llm, streamFn: durableStreamFn(ctx, llm.streamFn ?? streamSimple, lane) };
  const fallback = llm.fallback;
  if (fallback !== undefined && Array.isArray(fallback.models)) {
    durable.fallback = {
      ...fallback,
      models: fallback.models.map((entry) =>
        typeof entry?.streamFn === "function"
          ? { ...entry, streamFn: durableStreamFn(ctx, entry.streamFn, lane) }
          : entry,
      ),
    };
  }
  return durable;
}

/**
 * Makes each model request of a turn a durable step around `inner` (the
 * host's stream function, innermost in the runner's call stack, so every
 * transport retry is its own step).
 *
 * Live, the request streams straight through to the runner while its
 * events are recorded; the ending is held back until the step's record
 * (the streamed events and the finished message) is stored, so nothing
 * after the request happens before its checkpoint exists. On replay the
 * recorded events are streamed again and the request is never sent. A
 * request interrupted by a crash has no record and is sent again.
 *
 * An abort of the turn requested while the request streams ends it as
 * `aborted`; one requested before it starts ends it at once without
 * sending it. Either way the record says so and the turn's signal fires,
 * live and on replay. An attempt aborted by the call stack itself (a
 * stream watchdog) is recorded as it ended and does not abort the turn.
 *
 * `lane`: the requests are a parallel sub-agent call's (see `StepLanes`):
 * each step waits for its lane's turn, and once the lane's records hold
 * the abort, a request ends aborted at once, without a step.
 */
function durableStreamFn(ctx: TurnContext, inner: StreamFn, lane?: Lane): StreamFn {
  return (model, context, options) => {
    const stream = createAssistantMessageEventStream();
    void run();
    return stream;

    async function run(): Promise<void> {
      let live = false;
      const nested = DBOS.isInStep();
      let record: ModelRequestRecord;
      if (lane?.stopped) {
        stream.push({ type: "error", reason: "aborted", error: abortedMessage(model) });
        stream.end();
        return;
      }
      try {
        record = await ctx.lanes.step(nested ? undefined : lane, () =>
          ctx.turnAbort.around(() =>
            runRecordedStep(ctx, "turnkit.model-request", async () => {
              live = true;
              const start = await beginLiveStep(ctx, { nested, lane });
              let request: Omit<ModelRequestRecord, "steering">;
              if (start.abortRequested) {
                request = {
                  start,
                  events: [],
                  ending: { type: "error", reason: "aborted", message: abortedMessage(model) },
                  turnAborted: true,
                };
              } else {
                // Right before the request goes out: a stall since the claim was last confirmed (another worker
                // may have taken the turn over meanwhile) is found here, not after the request was paid for.
                await confirmClaimBeforeEffect(ctx, "model-request-before-send");
                const signal = liveSignal(ctx, options?.signal);
                stallIfArmed("model-request-after-claim-check", ctx.faultPoint);
                const events: RecordedEvent[] = [];
                const ending = await streamLive(inner, [model, context, { ...options, signal }], (event) => {
                  stream.push(event);
                  events.push(withoutPartial(event));
                });
                request = { start, events, ending, turnAborted: ctx.liveAbort.signal.aborted };
              }
              // The step boundary's steering, in this step's checkpoint (a nested request has none of its own). A
              // response that asks for tool calls is followed by those calls, not by a poll: the calls' steps take it.
              if (nested || request.ending.reason === "toolUse") return request;
              try {
                const steering = await takeSteeringInStep(ctx);
                if (steering.messages.length > 0) crashIfArmed("model-request-after-steering-take", ctx.faultPoint);
                return { ...request, steering };
              } catch (error) {
                // Another worker took the turn over: this execution stops.
                if (ctx.claim.revoked.aborted) throw error;
                // The request streamed its events to the turn already, so the record keeps them and the request
                // ends failed: a replay streams the same events and numbers the log as this execution did (a
                // step that threw would be replayed as an error without them). The steering waits for the next step.
                return { ...request, ending: { type: "error", reason: "error", message: failedMessage(model, error) } };
              }
            }),
          ),
        );
      } catch (error) {
        stream.push({ type: "error", reason: "error", error: failedMessage(model, error) });
        stream.end();
        return;
      }
      if (live && record.turnAborted) crashIfArmed("model-request-aborted-recorded", ctx.faultPoint);
      if (!live) {
        replayLiveStart(ctx, record.start, lane);
        for (const event of record.events)
          stream.push({ ...event, partial: record.ending.message } as AssistantMessageEvent);
        // Live, the runner read these events as they came, and the abort reached it only after the step's record
        // was stored. Pushed here all at once, they would still wait in the call stack's streams when the abort
        // fires below, and the runner would drop them (numbering the rest of the log differently from the log).
        if (record.turnAborted && record.events.length > 0) await untilPushedEventsRead();
      }
      noteStepSteering(ctx, record.steering);
      if (record.turnAborted) recordAbort(ctx, lane);
      stream.push(
        record.ending.type === "done"
          ? { type: "done", reason: record.ending.reason, message: record.ending.message }
          : { type: "error", reason: record.ending.reason, error: record.ending.message },
      );
      stream.end();
    }
  };
}

/**
 * Resolves once the runner has taken the events just pushed into a
 * request's stream. pi-ai's stream says nothing about how far its reader
 * got; every layer of the runner's call stack reads without waiting for
 * anything else, so one turn of the event loop is enough.
 * `test/replay-abort-timing.test.ts` runs this on the real runner and fails
 * when that stops holding.
 */
export function untilPushedEventsRead(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function streamLive(
  inner: StreamFn,
  args: Parameters<StreamFn>,
  onEvent: (event: Exclude<AssistantMessageEvent, { type: "done" | "error" }>) => void,
): Promise<RecordedEnding> {
  const [model] = args;
  try {
    const upstream = await inner(...args);
    for await (const event of upstream) {
      if (event.type === "done") return { type: "done", reason: event.reason, message: event.message };
      if (event.type === "error") return { type: "error", reason: event.reason, message: event.error };
      onEvent(event);
    }
    const message = await upstream.result();
    return message.stopReason === "error" || message.stopReason === "aborted"
      ? { type: "error", reason: message.stopReason, message }
      : { type: "done", reason: message.stopReason, message };
  } catch (error) {
    return { type: "error", reason: "error", message: failedMessage(model, error) };
  }
}

function withoutPartial(event: Exclude<AssistantMessageEvent, { type: "done" | "error" }>): RecordedEvent {
  const { partial: _partial, ...rest } = event;
  return rest as RecordedEvent;
}

function abortedMessage(model: Model<any>): AssistantMessage {
  return createFailureMessage(model, "aborted", "The turn was aborted before this request was sent.");
}

function failedMessage(model: Model<any>, error: unknown): AssistantMessage {
  return createFailureMessage(model, "error", errorText(error));
}
