/**
 * Invariant 16: a sub-agent's events in its parent's stream. Each child turn
 * (`origin.turnId`) follows a turn's rules on its own numbering: `origin.seq`
 * is the child's next number, which also counts every event the child
 * passed on from its own sub-agents (turn ids `<turnId>/<callKey>` down
 * the path, a call's key being its id, or `<id>#<k>` when the model reused
 * the id), so nothing of a child is lost; `running` first, at most one
 * terminal status and nothing of it after that. It belongs to a call of the
 * parent to a sub-agent of that name (`origin.path[0]`); it may lack its
 * terminal status only when the parent did not complete; and the parent's
 * report lists each child that ended, with the outcome its stream showed,
 * its usage summed in `usage.subAgents`. A call whose task is blank starts
 * no child turn: no more children start than the model made calls with a
 * task.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { CHILD_PREAMBLE } from "../sub-agent-tools.js";
import type { TurnRunObservation } from "../observe-turn.js";
import { isCallKeyOf } from "./call-keys.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "16 sub-agent events marked, numbered and reported";

/** The observation with only the parent's own events (those without `origin`), for the parent's invariants. */
export function withOwnEvents<T extends TurnRunObservation>(observation: T): T {
  return { ...observation, events: observation.events.filter((event) => event.origin === undefined) };
}

interface ChildStream {
  agent: string;
  toolCallId: string;
  /** The child's events so far: its own and those it passed on. */
  numbered: number;
  terminal: string | undefined;
}

/** `subAgentNames`: the names of the sub-agents the turn offered; `tasks`: how many of the model's calls to them had a task that is not blank. */
export function checkSubAgentEvents(
  observation: TurnRunObservation,
  outcome: TurnOutcome,
  subAgentNames: readonly string[],
  tasks = Number.POSITIVE_INFINITY,
): void {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  const children = new Map<string, ChildStream>();
  const parentTurnId = observation.events[0]?.turnId ?? "";
  for (const event of observation.events) {
    const origin = event.origin;
    if (!origin) continue;
    const step = origin.path[0];
    if (!step || step.toolCallId !== origin.toolCallId)
      fail(`origin.path does not start at origin.toolCallId: ${describeValue(origin)}`);
    if (!subAgentNames.includes(step!.agent)) fail(`an event from an unknown sub-agent: ${describeValue(origin)}`);
    // The emitting turn's id names the key of each call on the path (the call id, or `<id>#<k>` when reused).
    const keys = origin.turnId.startsWith(`${parentTurnId}/`)
      ? origin.turnId.slice(parentTurnId.length + 1).split("/")
      : [];
    if (
      keys.length !== origin.path.length ||
      keys.some((key, depth) => !isCallKeyOf(key, origin.path[depth]!.toolCallId))
    )
      fail(`origin.turnId ${origin.turnId} is not a turn its path names: ${describeValue(origin.path)}`);
    // Every turn on the path numbered the event: the ones above the emitting turn passed it on.
    let turnId = parentTurnId;
    origin.path.forEach((pathStep, depth) => {
      turnId = `${turnId}/${keys[depth]}`;
      const emitting = depth === origin.path.length - 1;
      let child = children.get(turnId);
      if (!child) {
        if (!emitting || !isStatus(event, "running"))
          fail(`sub-agent turn ${turnId} starts with ${emitting ? describe(event) : "an event it passed on"}`);
        child = { agent: pathStep.agent, toolCallId: pathStep.toolCallId, numbered: 0, terminal: undefined };
        children.set(turnId, child);
      } else if (child.terminal) {
        fail(`sub-agent turn ${turnId} numbered ${describe(event)} after its terminal status`);
      }
      child.numbered++;
      if (!emitting) return;
      if (origin.seq !== child.numbered)
        fail(
          `sub-agent turn ${turnId}: origin.seq ${origin.seq}, expected ${child.numbered} (a gap, or a number twice)`,
        );
      if (event.type === "session.status" && event.payload.status !== "running") child.terminal = event.payload.status;
    });
  }
  const depth = parentTurnId.split("/").length + 1;
  const started = [...children.keys()].filter((turnId) => turnId.split("/").length === depth).length;
  if (started > tasks) fail(`${started} sub-agent turns started, but the model made only ${tasks} calls with a task`);
  for (const [turnId, child] of children) {
    if (!child.terminal && outcome.kind === "completed")
      fail(`sub-agent turn ${turnId} has no terminal status, yet the parent completed`);
  }
  // The report: each call listed ended with the status its stream showed (when its end was not cut off).
  const calls = outcome.subAgentCalls ?? [];
  let cost = 0;
  for (const call of calls) {
    cost += call.usage?.total.cost.total ?? 0;
    const child = children.get(call.turnId);
    if (!child) {
      if (outcome.kind === "completed") fail(`the report lists ${call.turnId}, whose events never reached the stream`);
      continue;
    }
    if (child.agent !== call.agent || child.toolCallId !== call.toolCallId)
      fail(
        `the report of ${call.turnId} names ${call.agent}/${call.toolCallId}, its events ${child.agent}/${child.toolCallId}`,
      );
    if (child.terminal && child.terminal !== call.outcome)
      fail(`sub-agent turn ${call.turnId} ended ${child.terminal} in the stream, ${call.outcome} in the report`);
  }
  if (outcome.kind === "completed") {
    const direct = [...children].filter(([turnId]) => turnId.split("/").length === parentTurnId.split("/").length + 1);
    const ended = direct.filter(([, child]) => child.terminal).length;
    if (ended !== calls.length) fail(`${ended} sub-agent turns ended in the stream, the report lists ${calls.length}`);
  }
  const summed = outcome.usage?.subAgents?.cost.total ?? 0;
  if (Math.abs(summed - cost) > 1e-9) fail(`usage.subAgents costs ${summed}, the calls ${cost}`);
  if (calls.length === 0 && outcome.usage?.subAgents !== undefined) fail("usage.subAgents without a sub-agent call");
}

function isStatus(event: RuntimeEvent, status: string): boolean {
  return event.type === "session.status" && event.payload.status === status;
}

function describe(event: RuntimeEvent): string {
  return event.type === "session.status" ? `session.status ${event.payload.status}` : event.type;
}

/**
 * Invariant 16, the answers: a sub-agent call's successful result is its
 * child's final response, never text the child wrote before a tool call
 * (`CHILD_PREAMBLE`, which a `textless` child writes and then ends without
 * text: that call is an error result).
 */
export function checkSubAgentAnswers(history: readonly AgentMessage[], subAgentNames: readonly string[]): void {
  for (const message of history) {
    if (message.role !== "toolResult" || message.isError || !subAgentNames.includes(message.toolName)) continue;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (text.includes(CHILD_PREAMBLE))
      throw new InvariantViolation(
        INVARIANT,
        `sub-agent call ${message.toolCallId} answered with what its child wrote before a tool call: ${describeValue(text)}`,
      );
  }
}
