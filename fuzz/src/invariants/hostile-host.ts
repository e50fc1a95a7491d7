/**
 * Invariants 7 to 10, for turns with a hostile host (`runner-hostile-host`):
 *
 * 7. a host callback that throws (whatever its text: "429 ...", "... timed
 *    out ...", "ECONNRESET") never lets the turn complete, and when the
 *    outcome reports it, the code is `internal` and the callback is named;
 * 8. once `runTurn` settled, no host code of the turn is called (hooks,
 *    callbacks, the writer, the logger, the id allocator), even when slow
 *    or hung chain members answer late;
 * 9. every message the host handed over (poll results, `enqueue`) is either
 *    in a history change the host accepted or in the outcome's
 *    `undeliveredMessages`, never both, never neither;
 * 10. once aborted, the turn settles within the bound the agent-core README
 *    states (one second): it waits out at most two abort graces one after
 *    another (counted from the grace timers, so the check measures what the
 *    code decides, not how loaded the machine is), and it settles at all
 *    within a generous real-time limit.
 *
 * (The logger invariant, "a throwing logger changes nothing", compares two
 * runs and lives in the property.)
 */
import { type AgentMessage } from "@turnkit/agent-loop";
import { ABORT_GRACE_MS } from "@turnkit/agent-loop/internal";
import type { TurnOutcome } from "@turnkit/protocol";
import { sequentialGraces } from "@turnkit/agent-loop/testing";
import type { HostileProbe } from "../hostile-host-harness.js";
import type { TurnRunObservation } from "../observe-turn.js";
import { InvariantViolation, describeValue } from "./violation.js";

/** The abort latency bound the agent-core README states. */
export const ABORT_LATENCY_BOUND_MS = 1_000;

/**
 * Abort graces a turn may wait out one after another after the abort: the
 * turn's one shared grace, plus one that a loaded machine may start only
 * after the first fired (a wait the turn reaches late). Well inside
 * {@link ABORT_LATENCY_BOUND_MS}; a fresh grace per hung call, the old
 * behaviour, waits out 2 + n of them for n tool calls.
 */
export const SEQUENTIAL_GRACES_BOUND = 2;

/** Real time a turn may take to settle after the abort on a loaded machine before it counts as hung. */
export const ABORT_SETTLE_LIMIT_MS = 30_000;

function textOf(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: string; text?: string }) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("\n");
}

/** Checks invariants 7 to 10 for one observed turn with a hostile host. */
export function checkHostileHost(probe: HostileProbe, observation: TurnRunObservation, outcome: TurnOutcome): void {
  // 7: a host callback's failure is the host's, never the provider's.
  const threw = probe.callbackThrew;
  if (threw) {
    if (outcome.kind === "completed") {
      throw new InvariantViolation(
        "7 host callback failures end the turn internal",
        `${threw.callback} ${threw.message === undefined ? "answered what no code may accept" : `threw ${describeValue(threw.message)}`} yet the turn completed`,
      );
    }
    if (outcome.kind === "failed" && threw.message !== undefined && outcome.error.message.includes(threw.message)) {
      if (outcome.error.code !== "internal" || !outcome.error.message.includes(threw.callback)) {
        throw new InvariantViolation(
          "7 host callback failures end the turn internal",
          `${threw.callback} threw ${describeValue(threw.message)}; the outcome says ${describeValue(outcome.error)}`,
        );
      }
    }
  }
  // 8: nothing of the turn runs after it settled.
  if (probe.calledAfterSettle.length > 0) {
    throw new InvariantViolation(
      "8 nothing runs after the turn settled",
      `called after runTurn settled: ${probe.calledAfterSettle.join(", ")}`,
    );
  }
  // 9: every message the host handed over is delivered or handed back.
  const accepted = observation.offered
    .filter((offer) => offer.accepted)
    .flatMap(({ change }) => change.messages.map(textOf));
  const handedBack = (outcome.undeliveredMessages ?? []).map((message) => textOf(message as AgentMessage));
  for (const text of probe.handedOver) {
    const delivered = accepted.some((stored) => stored.includes(text));
    const returned = handedBack.filter((back) => back.includes(text)).length;
    if (!delivered && returned === 0)
      throw new InvariantViolation(
        "9 no host message lost",
        `${describeValue(text)} was neither delivered nor handed back (${outcome.kind})`,
      );
    if (delivered && returned > 0)
      throw new InvariantViolation(
        "9 no host message lost",
        `${describeValue(text)} was delivered and also handed back`,
      );
    if (returned > 1)
      throw new InvariantViolation(
        "9 no host message lost",
        `${describeValue(text)} was handed back ${returned} times`,
      );
  }
  // 10: the abort latency is bounded: by the graces waited out one after another, and by a hang limit.
  if (probe.abortedAt !== undefined && probe.settledAt !== undefined) {
    const graces = sequentialGraces(observation.graceWaits, probe.abortedAt, probe.settledAt);
    if (graces > SEQUENTIAL_GRACES_BOUND) {
      throw new InvariantViolation(
        "10 abort latency bounded",
        `after the abort the turn waited out ${graces} abort graces of ${ABORT_GRACE_MS} ms one after another (bound ${ABORT_LATENCY_BOUND_MS} ms: ${SEQUENTIAL_GRACES_BOUND})`,
      );
    }
    const latency = probe.settledAt - probe.abortedAt;
    if (latency > ABORT_SETTLE_LIMIT_MS) {
      throw new InvariantViolation(
        "10 abort latency bounded",
        `the turn settled ${Math.round(latency)} ms after the abort (hang limit ${ABORT_SETTLE_LIMIT_MS} ms)`,
      );
    }
  }
}
