import { DBOS } from "@dbos-inc/dbos-sdk";
import type { TurnInputMessage } from "@turnkit/agent-core";
import type { TurnContext } from "../turn/turn-context.js";

/**
 * The runner's steering source for a durable turn: each poll is a step that
 * takes the messages `steer` queued since the last poll. The step's record
 * is what the turn received, so a replay receives the same messages at the
 * same boundary; each received message is also logged as a `debug.trace`
 * (`durable.steering`). A pending abort request is observed here too: the
 * abort is recorded and nothing is taken (what waits is handed back when
 * the turn ends). Once the abort is recorded, the answer is "nothing" at
 * once, without a step.
 */
export function durableSteeringSource(ctx: TurnContext): () => TurnInputMessage[] | Promise<TurnInputMessage[]> {
  return () => {
    if (ctx.turnAbort.stopped) return [];
    const poll = ++ctx.counters.polls;
    return ctx.turnAbort.around(async () => {
      const taken = await DBOS.runStep(() => ctx.stores.steering.take(ctx.claim, poll), {
        name: "turnkit.steering-poll",
      });
      if (taken.abortRequested) {
        ctx.turnAbort.record();
        return [];
      }
      for (const message of taken.messages) {
        ctx.writer.emit("debug.trace", {
          phase: "durable.steering",
          level: "info",
          message: "steering received",
          attrs: { poll, text: message.text },
        });
      }
      return taken.messages;
    });
  };
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
      DBOS.runStep(() => ctx.stores.steering.tryCloseIntake(ctx.claim), { name: "turnkit.close-intake" }),
    );
  };
}
