import type { EventOrigin, RuntimeEvent, SubAgentStep, TurnOutcome } from "@turnkit/protocol";
import { requestIdScope } from "../action-requests.js";
import type { RunTurnInput } from "../pi-turn-runner/run-turn-input.js";
import type { TurnState } from "../pi-turn-runner/turn-state.js";

/** What a sub-agent call asks its turn for. */
export interface ChildTurnRequest {
  /** The sub-agent's name: it marks the child's events (`origin.path`) and names its report. */
  agent: string;
  /** The child turn's input, without what the parent provides (ids, event writer, signal). */
  input: Omit<RunTurnInput, "sessionId" | "turnId" | "eventWriter" | "signal">;
  /** The tool call's signal: when it fires (the parent was aborted), the child turn is aborted. */
  signal: AbortSignal;
}

/**
 * Runs a child turn for the parent's tool call `call` (its id and its
 * `callKey`, see `ToolExecutionContext`):
 *
 * - its id is `<parent turnId>/<callKey>`, its session the parent's; what
 *   its tools ask the host is scoped by the call's key;
 * - every event it emits is passed on into the parent's stream with the
 *   parent's next `seq` and an `origin` naming the child (events its own
 *   children passed on keep their origin, one step deeper); nothing once
 *   the parent settled;
 * - it is aborted with `request.signal`;
 * - what its tools ask the host (`ctx.askHost`) goes to the parent's
 *   `answerActionRequest` (unless the child has its own): the child's
 *   `action.required` reaches the parent's stream marked like its other
 *   events, and the host's answer reaches the child;
 * - its budget is narrowed to what is left of the parent's when it starts,
 *   and it keeps to the output-token and cost limits of every turn above it
 *   as those turns spend (siblings running beside it included): before
 *   each request, a limit above that is reached ends it with
 *   `budget_exceeded`;
 * - when it ends, its report (usage, timing, outcome) joins the parent's
 *   `subAgentCalls` and its spending counts for the parent's budget.
 *
 * Resolves to the child's outcome (never rejects, as `runTurn`), or rejects
 * with the `TurnkitConfigError` of an invalid child input, before any of
 * its events.
 */
export async function runChildTurn(
  parent: TurnState,
  call: { toolCallId: string; callKey: string },
  request: ChildTurnRequest,
): Promise<TurnOutcome> {
  const { toolCallId } = call;
  const step: SubAgentStep = { toolCallId, agent: request.agent };
  const turnId = childTurnId(parent.input.turnId, call.callKey);
  const eventWriter = { push: (event: RuntimeEvent) => passOn(parent, step, event) };
  const outcome = await parent.nesting.startTurn(
    {
      ...request.input,
      sessionId: parent.input.sessionId,
      turnId,
      eventWriter,
      signal: request.signal,
      budget: narrowedBudget(request.input.budget, parent.watch.budgetLeft()),
      answerActionRequest: request.input.answerActionRequest ?? parent.input.answerActionRequest,
    },
    {
      subAgentPath: [...parent.nesting.subAgentPath, step],
      requestIdScope: parent.nesting.requestIdScope + requestIdScope([call.callKey]),
      parentWatch: parent.watch,
    },
    parent.watch.toolTraceContext(toolCallId),
  );
  parent.watch.subAgentCallEnded({
    toolCallId,
    agent: request.agent,
    turnId,
    outcome: outcome.kind,
    ...(outcome.kind === "failed" && { error: outcome.error }),
    ...(outcome.usage && { usage: outcome.usage }),
    ...(outcome.timing && { timing: outcome.timing }),
    ...(outcome.subAgentCalls && { subAgentCalls: outcome.subAgentCalls }),
  });
  return outcome;
}

/** The id of the child turn that the call with key `callKey` (`ToolExecutionContext.callKey`) runs in turn `turnId`. */
export function childTurnId(turnId: string, callKey: string): string {
  return `${turnId}/${callKey}`;
}

/** One event of the child, into the parent's stream. */
function passOn(parent: TurnState, step: SubAgentStep, event: RuntimeEvent): void {
  if (parent.settled) return;
  const origin: EventOrigin = event.origin
    ? {
        toolCallId: step.toolCallId,
        path: [step, ...event.origin.path],
        turnId: event.origin.turnId,
        seq: event.origin.seq,
      }
    : { toolCallId: step.toolCallId, path: [step], turnId: event.turnId, seq: event.seq };
  parent.events.push(event.type, event.payload, origin);
}

/** The child's own budget, each of its output-token and cost limits lowered to what the parent has left. */
function narrowedBudget(
  own: RunTurnInput["budget"],
  left: { maxOutputTokens?: number; maxCost?: number },
): RunTurnInput["budget"] {
  if (left.maxOutputTokens === undefined && left.maxCost === undefined) return own;
  const budget = { ...own };
  if (left.maxOutputTokens !== undefined)
    budget.maxOutputTokens = Math.min(own?.maxOutputTokens ?? Infinity, left.maxOutputTokens);
  if (left.maxCost !== undefined) budget.maxCost = Math.min(own?.maxCost ?? Infinity, left.maxCost);
  return budget;
}
