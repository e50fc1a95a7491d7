/**
 * Invariant 26: with `hookTimeoutMs`, no hook or host callback holds a turn.
 * A turn that sets it (a hostile host's, or one whose sub-agent has a hook
 * that never answers), and where nothing but host code can keep the turn
 * waiting (no tool, stream or child that hangs), ends on its own: the
 * driver never has to abort it, however slow or hung a chain member, a
 * child's hook or the event writer is.
 */
import type { TurnScenario } from "../scenario.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "26 with hookTimeoutMs no hook holds the turn";

/** Whether something of `scenario` other than host code may wait until the turn is aborted. */
function mayWaitWithoutHooks(scenario: TurnScenario): boolean {
  const childHangs = (scenario.subAgents ?? []).some(({ child }) =>
    child.kind === "nested" ? child.inner === "hang" : child.kind === "hang" || child.kind === "toolHang",
  );
  if (childHangs) return true;
  return scenario.requests.some(
    (request) =>
      request.response.ending.kind === "hang" || request.response.calls.some((call) => call.behaviour.kind === "hang"),
  );
}

/** Throws when a turn of `scenario` with `hookTimeoutMs` needed the driver's abort although only host code could hold it. */
export function checkHookTimeoutBoundsHooks(scenario: TurnScenario, watchdogAborted: boolean): void {
  const timeoutMs = scenario.hostile?.hookTimeoutMs ?? scenario.hookTimeoutMs;
  if (timeoutMs === undefined || !watchdogAborted || mayWaitWithoutHooks(scenario)) return;
  throw new InvariantViolation(
    INVARIANT,
    `the turn stalled and was aborted by the driver, although hookTimeoutMs was ${timeoutMs} and only host code could hold it (${describeMember(scenario)})`,
  );
}

function describeMember(scenario: TurnScenario): string {
  const chain = scenario.hostile?.chainMember;
  const childHooks = (scenario.subAgents ?? []).flatMap(({ name, child }) =>
    child.kind === "hookHang" ? [`${name}'s ${child.hook}`] : [],
  );
  if (childHooks.length > 0) return `a sub-agent's hook never answers: ${childHooks.join(", ")}`;
  return chain ? `${chain.member.kind} member in ${chain.hook}` : "no chain member";
}
