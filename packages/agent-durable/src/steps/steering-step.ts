import { DBOS } from "@dbos-inc/dbos-sdk";
import type { TurnInputMessage } from "@turnkit/agent-core";
import type { StepSteering } from "../store/steering-inbox.js";
import type { TurnContext } from "../turn/turn-context.js";
import { type ConditionalRecord, runRecordedStep } from "./recorded-step.js";

/**
 * Inside a live step, at its end: takes the steering messages waiting for
 * the turn, marked with the step's own key, so a re-run of the step after a
 * crash takes the same ones (plus newer). The caller puts the result in the
 * step's record, so the step's checkpoint is what records the take: the
 * step boundary's poll then needs no step or commit of its own. Reads only
 * when nothing waits.
 */
export function takeSteeringInStep(ctx: TurnContext): Promise<StepSteering> {
  const key = (DBOS.stepID ?? 0) + 1;
  return ctx.stores.steering.take(ctx.claim, key).then((taken) => ({ key, ...taken }));
}

/**
 * The record of a live step (`result`, at position `stepId`) with the
 * steering it takes when it ends, as {@link takeSteeringInStep} takes it:
 * when nothing waits (no message, no abort requested), the record saying
 * so is stored in the same statement that checks it, one round trip;
 * otherwise the take runs and its result goes in the record.
 */
export function withSteeringAtEnd<T extends { steering?: StepSteering }>(
  ctx: TurnContext,
  result: T,
  stepId: number,
): ConditionalRecord<T> {
  const key = stepId + 1;
  return {
    value: { ...result, steering: { key, messages: [], abortRequested: false } },
    condition: (first) => ({ sql: ctx.stores.steering.nothingToTake(1, first), params: [key] }),
    otherwise: async () => ({ ...result, steering: { key, ...(await ctx.stores.steering.take(ctx.claim, key)) } }),
  };
}

/** After a step that took steering (live or from its record): what it took waits for the runner's next poll. */
export function noteStepSteering(ctx: TurnContext, taken: StepSteering | undefined): void {
  if (taken === undefined) return;
  ctx.steering.tookSincePoll = true;
  if (taken.messages.length > 0 || taken.abortRequested) ctx.steering.pending.push(taken);
}

/**
 * The runner's steering source for a durable turn. A poll receives what
 * the steps since the last poll took when they ended (each take is in its
 * step's record, so a replay receives the same messages at the same
 * boundary), in the order `steer` accepted them; only a poll with no step
 * since the last one (a poll again after a refused close) takes in a step
 * of its own. Each received message is also logged as a `debug.trace`
 * (`durable.steering`). An abort request a take found is recorded here and
 * nothing is received (what the takes held is handed back when the turn
 * ends). Once the abort is recorded, the answer is "nothing" at once,
 * without a step.
 */
export function durableSteeringSource(ctx: TurnContext): () => TurnInputMessage[] | Promise<TurnInputMessage[]> {
  return () => {
    if (ctx.turnAbort.stopped) return [];
    const poll = ++ctx.counters.polls;
    return ctx.turnAbort.around(async () => {
      if (!ctx.steering.tookSincePoll) {
        const taken = await runRecordedStep(ctx, "turnkit.steering-poll", () => takeSteeringInStep(ctx));
        noteStepSteering(ctx, taken);
      }
      ctx.steering.tookSincePoll = false;
      if (ctx.steering.pending.some((taken) => taken.abortRequested)) {
        ctx.turnAbort.record();
        return [];
      }
      const received = ctx.steering.pending.flatMap((taken) => taken.messages).sort((a, b) => a.id - b.id);
      ctx.steering.delivered.push(...ctx.steering.pending.map((taken) => taken.key));
      ctx.steering.pending = [];
      for (const { message } of received) {
        ctx.writer.emit("debug.trace", {
          phase: "durable.steering",
          level: "info",
          message: "steering received",
          attrs: { poll, text: message.text },
        });
      }
      return received.map(({ message }) => message);
    });
  };
}

/**
 * The keys of the takes whose messages the runner received. Every other
 * message of the turn is handed back when it ends: those no take took,
 * those of takes the runner never received (an abort or a stop came
 * first), and those a step took in an execution that died before the
 * step's record held them, when the step run again took none (a model
 * request sent again that asks for tool calls this time).
 */
export function deliveredTakeKeys(ctx: TurnContext): number[] {
  return [...ctx.steering.delivered];
}

/**
 * The runner's `tryBeginClose` for a durable turn: a step that closes the
 * turn's intake unless a steering message is waiting. After it returned
 * `true`, `steer` refuses messages for this turn (the host starts a new
 * turn instead), so no message is ever accepted and then dropped. Once the
 * abort is recorded it answers `true` at once: the workflow closes the
 * intake when the turn ends, however it ends, and hands back what waits.
 */
export function durableCloseIntake(ctx: TurnContext): () => boolean | Promise<boolean> {
  return () => {
    if (ctx.turnAbort.stopped) return true;
    return ctx.turnAbort.around(() =>
      runRecordedStep(ctx, "turnkit.close-intake", () => ctx.stores.steering.tryCloseIntake(ctx.claim)),
    );
  };
}
