import { type ActionRequestOutcome, type AskHost, TURN_DEFAULTS } from "@turnkit/agent-core";
import {
  type ActionRequestTurn,
  requestIdScope,
  sleep,
  systemClock,
  toolCallAskHost,
  waitForActionAnswer,
} from "@turnkit/agent-core/internal";
import type { ActionAnswer, ActionRequiredPayload, RuntimeEventPayloadMap } from "@turnkit/protocol";
import { HOST_ANSWER_POLL_MS } from "../defaults.js";
import type { TurnContext } from "../turn/turn-context.js";

/**
 * An event a tool call's ask logged live. The call's checkpoint keeps them,
 * so a replay of the finished call logs them again at the same place (the
 * call itself does not run again).
 */
export type AskEvent =
  | { type: "action.required"; payload: RuntimeEventPayloadMap["action.required"] }
  | { type: "debug.trace"; payload: RuntimeEventPayloadMap["debug.trace"] };

/**
 * The `ctx.askHost` of one tool call of a durable turn. The request ids are
 * the runner's (`<kind>:<scope><callName>:<n>`, the n-th ask of the call,
 * scoped by the sub-agent calls it runs under; the call's name is its id,
 * or `<id>#<k>` when the model reused the id), so a call run again after a
 * crash asks under the same ids. Each request is
 * stored in Postgres before its `action.required` is logged; the answer
 * comes from `DurableTurnClient.respond` in any process and is looked for
 * every {@link HOST_ANSWER_POLL_MS} (a tool call is a step, where DBOS's
 * `recv` cannot wait).
 *
 * A request an earlier execution stored is not asked again: its
 * `action.required` is logged only when the log lacks it, its deadline is
 * the one set when it was first asked, and an answer given meanwhile is
 * taken at once. The wait ends as the runner's does, with the same
 * outcomes and the same closing `debug.trace` (phase `action.request`):
 * `answered`, `timed_out` at the deadline, `aborted` when the turn is
 * aborted or the asker's signal fires. Every event it logs is pushed to
 * `logged` for the call's checkpoint. Its events belong to the turn whose
 * tool asks (`call.turnId`): a sub-agent's carry its `origin`.
 */
export function durableAskHost(
  ctx: TurnContext,
  call: {
    turnId: string;
    toolCallId: string;
    callName: string;
    assistantMessageId: string | undefined;
    callSignal: AbortSignal;
  },
  logged: AskEvent[],
): AskHost {
  return toolCallAskHost((request, signal) => waitDurably(ctx, call.turnId, request, signal, logged), {
    ...call,
    scope: requestScopeOf(ctx, call.turnId),
  });
}

/**
 * The request id scope of `turnId`, this turn or one of its sub-agent turns
 * (`<turn id>/<call id>/...`, as the runner names them): the same scope the
 * runner gives the tools of that turn, so ids are the same in process and
 * here, and two sub-agents whose calls share an id ask under different ones.
 */
export function requestScopeOf(ctx: TurnContext, turnId: string): string {
  const root = ctx.ref.turnId;
  if (turnId === root || !turnId.startsWith(`${root}/`)) return "";
  return requestIdScope([turnId.slice(root.length + 1)]);
}

/**
 * Asks the host `request` durably and waits for the outcome (see
 * {@link durableAskHost}): stored before its `action.required` is logged
 * (not logged again when the log holds it), answered by `respond` from
 * any process, closed by an `action.request` trace. Runs inside a step;
 * every event it logs, in `turnId`'s stream, is pushed to `logged` for
 * the step's checkpoint.
 */
export async function waitDurably(
  ctx: TurnContext,
  turnId: string,
  request: ActionRequiredPayload,
  signal: AbortSignal,
  logged: AskEvent[],
): Promise<ActionRequestOutcome> {
  const { requestId, kind } = request;
  const timeoutMs = request.timeoutMs ?? TURN_DEFAULTS.actionRequestTimeoutMs;
  let announce = true;
  let leftMs = timeoutMs;
  // A request the runner refuses (a timeout that is not more than 0) or that is aborted already is not stored.
  if (!signal.aborted && typeof timeoutMs === "number" && timeoutMs > 0) {
    const deadlineMs = Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : Number.MAX_SAFE_INTEGER;
    const stored = await ctx.stores.hostRequests.ask(ctx.claim, { requestId, kind, deadlineMs });
    // Asked by an execution that died: announced again only if its event never reached the log.
    announce = stored.created || !(await ctx.stores.eventLog.hasActionRequest(ctx.ref.workflowId, requestId));
    // Past the deadline already (it passed while no worker ran): the wait times out at once.
    leftMs = Math.max(1, stored.deadlineMs - Date.now());
  }
  const turn: ActionRequestTurn = {
    settled: false,
    input: { answerActionRequest: (_request, stop) => storedAnswer(ctx, requestId, stop) },
    defaults: { clock: systemClock },
    events: {
      push(type, payload) {
        if (type === "action.required" && !announce) return;
        // The request as asked (with its whole timeout), not the time left that this wait counts down.
        const event = (type === "action.required" ? { type, payload: request } : { type, payload }) as AskEvent;
        ctx.writer.emit(event.type, event.payload, turnId);
        logged.push(event);
      },
    },
  };
  const outcome = await waitForActionAnswer(turn, { ...request, timeoutMs: leftMs }, signal);
  return outcome.kind === "timed_out" ? { ...outcome, timeoutMs } : outcome;
}

/**
 * Closes what an interrupted call asked and will never take an answer to
 * (the call is given up after a restart, `replay: "never"`): each of its
 * requests the log announced without a closing trace is withdrawn in
 * Postgres (`respond` then refuses it) and gets its closing `debug.trace`
 * (phase `action.request`, outcome `withdrawn`), in the asking turn's
 * stream (`call.turnId`: a sub-agent's carries its `origin`). Returns the
 * traces logged, for the call's checkpoint.
 */
export async function withdrawQuestions(
  ctx: TurnContext,
  call: { turnId: string; callName: string },
): Promise<AskEvent[]> {
  const withdrawn = await ctx.stores.hostRequests.withdrawOpen(
    ctx.claim,
    `${requestScopeOf(ctx, call.turnId)}${call.callName}`,
  );
  return withdrawn.map(({ requestId, kind }) => {
    const event: AskEvent = {
      type: "debug.trace",
      payload: {
        phase: "action.request",
        level: "warn",
        message: `${kind} ${requestId} withdrawn: the tool call that asked was interrupted by a restart and is not run again`,
        attrs: { requestId, kind, outcome: "withdrawn" },
      },
    };
    ctx.writer.emit(event.type, event.payload, call.turnId);
    return event;
  });
}

/** Resolves with the request's answer once one is stored; rejects when `stop` fires (the wait ended otherwise). */
async function storedAnswer(ctx: TurnContext, requestId: string, stop: AbortSignal): Promise<ActionAnswer> {
  for (;;) {
    const answer = await ctx.stores.hostRequests.answerOf(ctx.ref.workflowId, requestId);
    if (answer !== undefined) return answer;
    await sleep(HOST_ANSWER_POLL_MS, systemClock, stop);
  }
}
