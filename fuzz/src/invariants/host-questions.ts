/**
 * Invariant 17: asking the host. Each `ctx.askHost` of a tool resolves once,
 * with the request id `<kind>:<callKey>:<n>` (`elicitation`, or
 * `tool_approval` for a call asking its own approval), where the call's key is
 * its id, or `<id>#<k>` when the model reused the id in a later response
 * (in a sub-agent the key is preceded by the sub-agent calls' keys, each
 * followed by `/`), never given to another question, and how it ended
 * follows from what the host did:
 *
 * - a question that cannot be read (a revoked proxy; request id
 *   `invalid:...`, and no trace, since it never became a request of the
 *   turn), a `timeoutMs` not more than 0, a malformed question (a
 *   `serverName` that is no string), or no host function (the first of
 *   these names the refusal): `refused` at once, never a rejection of
 *   `askHost`, nobody asked, no `action.required`;
 * - otherwise one `action.required` and one call of the host function per
 *   question, never after the turn settled; then `answered` only with the
 *   host's valid answer, `refused` only for a throw, a rejection or a value
 *   that is no answer, `timed_out` exactly `timeoutMs` after the host was
 *   asked and only when the host had not answered by then, `aborted` only
 *   when the turn's signal fired or the turn did not complete (a failing
 *   turn stops its tools), and always when the host aborted the turn while
 *   the question waited;
 * - the host function's signal fires exactly when the wait ended without
 *   its answer;
 * - at most one `debug.trace` (phase `action.request`) per request, naming
 *   the same outcome, and exactly one in a turn that completed (but for a
 *   question that cannot be read).
 *
 * On a real clock (`timing: "real"`) times are only lower bounds: an answer
 * and a timeout due close together may come in either order, a wait may
 * last longer than its timer, and the moment of an abort is not compared
 * with the moment a question ended.
 */
import { TURN_DEFAULTS } from "@turnkit/agent-core";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { type AnswerRecord, type AskRecord, type QuestionProbe, askKind, hostAnswerOf } from "../host-questions.js";
import { isCallKeyOf } from "./call-keys.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "17 asking the host";

function fail(detail: string): never {
  throw new InvariantViolation(INVARIANT, detail);
}

/** Checks the questions of one turn against its events and outcome. */
export function checkHostQuestions(
  probe: QuestionProbe,
  events: readonly RuntimeEvent[],
  outcome: TurnOutcome,
  callerAborted: boolean,
  timing: "virtual" | "real" = "virtual",
): void {
  const asked = new Map<string, number>();
  const traces = new Map<string, string[]>();
  for (const event of events) {
    if (event.type === "action.required")
      asked.set(event.payload.requestId, (asked.get(event.payload.requestId) ?? 0) + 1);
    if (event.type === "debug.trace" && event.payload.phase === "action.request") {
      const requestId = String(event.payload.attrs?.requestId);
      traces.set(requestId, [...(traces.get(requestId) ?? []), String(event.payload.attrs?.outcome)]);
    }
  }
  const answersById = new Map<string, AnswerRecord[]>();
  for (const answer of probe.answers) {
    if (answer.afterSettle) fail(`the host was asked ${answer.requestId} after the turn settled`);
    answersById.set(answer.requestId, [...(answersById.get(answer.requestId) ?? []), answer]);
  }
  const ids = new Set<string>();
  for (const ask of probe.asks) {
    if (!isCallKeyOf(ask.callKey, ask.callId))
      fail(`call ${ask.callId} has the key ${ask.callKey}: neither its id nor <id>#<k> with k from 2`);
    const requestId = `${askKind(ask.spec)}:${ask.scope}${ask.callKey}:${ask.n}`;
    if (ask.outcome.requestId !== requestId)
      fail(
        `question ${ask.n} of ${ask.scope}${ask.callKey} has request id ${ask.outcome.requestId}, expected ${requestId}`,
      );
    if (ids.has(requestId)) fail(`request id ${requestId} given twice`);
    ids.add(requestId);
    const stopped = callerAborted || outcome.kind !== "completed";
    checkAsk(ask, probe, asked.get(requestId) ?? 0, answersById.get(requestId) ?? [], stopped, timing);
    const traced = traces.get(requestId) ?? [];
    if (traced.length > 1 || (traced.length === 1 && traced[0] !== ask.outcome.kind))
      fail(`${requestId} ended ${ask.outcome.kind}, its traces say ${describeValue(traced)}`);
    // A question that cannot be read is refused by the tool's askHost before it is a request of the turn: no trace.
    if (outcome.kind === "completed" && traced.length === 0 && !ask.spec.unreadable)
      fail(`${requestId} ended ${ask.outcome.kind} in a completed turn without its debug.trace`);
  }
  for (const requestId of [...asked.keys(), ...answersById.keys()])
    if (!ids.has(requestId)) fail(`${requestId} was emitted or answered, but no tool got its outcome`);
}

function checkAsk(
  ask: AskRecord,
  probe: QuestionProbe,
  events: number,
  answers: readonly AnswerRecord[],
  turnStopped: boolean,
  timing: "virtual" | "real",
): void {
  const { outcome } = ask;
  const where = `${outcome.requestId} (${describeValue(ask.spec)})`;
  const refusedAtOnce = (reasonPart: string) => {
    if (outcome.kind !== "refused" || !outcome.reason.includes(reasonPart))
      fail(`${where}: expected refused (${reasonPart}), got ${describeValue(outcome)}`);
    if (events > 0 || answers.length > 0) fail(`${where}: refused at once, yet emitted or asked`);
  };
  if (ask.spec.unreadable) return refusedAtOnce("could not be read");
  if (ask.spec.timeoutMs !== "default" && !(ask.spec.timeoutMs > 0)) return refusedAtOnce("timeoutMs");
  if (ask.spec.malformed) return refusedAtOnce("/serverName: Expected string");
  if (probe.answerer === "absent") return refusedAtOnce("answers no action requests");
  if (events > 1 || answers.length > 1) fail(`${where}: emitted ${events} times, host asked ${answers.length} times`);
  const { abortedAt } = probe;
  if (timing === "virtual" && abortedAt !== undefined && abortedAt < ask.endedAt && outcome.kind !== "aborted")
    fail(
      `${where}: the host aborted the turn at ${abortedAt} ms, the question still ended ${outcome.kind} at ${ask.endedAt} ms`,
    );
  if (outcome.kind === "aborted") {
    if (!turnStopped) fail(`${where}: aborted in a turn that completed without its signal firing`);
    if (answers[0] && answers[0].signalFiredAt === undefined) fail(`${where}: aborted, the host's signal never fired`);
    return;
  }
  const answer = answers[0];
  if (events !== 1 || answer === undefined)
    fail(`${where}: ended ${outcome.kind} after ${events} action.required and ${answers.length} host calls`);
  const timeoutMs = ask.spec.timeoutMs === "default" ? TURN_DEFAULTS.actionRequestTimeoutMs : ask.spec.timeoutMs;
  const spec = answer.spec;
  const lateMs = spec.kind === "late" ? spec.ms : undefined;
  const waited = ask.endedAt - answer.calledAt;
  // A late answer due at the very moment of the timeout may come first or second; in real time, any late answer.
  const real = timing === "real";
  const answerInTime = lateMs === undefined || lateMs <= timeoutMs || real;
  const timeoutInTime = lateMs === undefined ? spec.kind === "never" : lateMs >= timeoutMs || real;
  const waitedFor = (expected: number) => (real ? waited >= expected : waited === expected);
  const signalFired = answer.signalFiredAt !== undefined;
  switch (outcome.kind) {
    case "answered": {
      const expected =
        spec.kind === "accept" || (spec.kind === "late" && spec.answer === "accept")
          ? hostAnswerOf("accept", askKind(ask.spec))
          : spec.kind === "decline"
            ? hostAnswerOf("decline", askKind(ask.spec))
            : undefined;
      if (!expected || !answerInTime) fail(`${where}: answered, but the host answered ${describeValue(spec)}`);
      if (describeValue(outcome.answer) !== describeValue(expected))
        fail(`${where}: the tool got ${describeValue(outcome.answer)}, the host gave ${describeValue(expected)}`);
      if (lateMs !== undefined && !waitedFor(lateMs)) fail(`${where}: answered after ${waited} ms, not ${lateMs}`);
      if (signalFired) fail(`${where}: answered, yet the host's signal fired`);
      return;
    }
    case "refused": {
      const reason =
        spec.kind === "invalid"
          ? "does not fit"
          : spec.kind === "throw" || (spec.kind === "late" && spec.answer === "reject")
            ? "the host failed to answer"
            : undefined;
      if (!reason || !answerInTime || !outcome.reason.includes(reason))
        fail(`${where}: refused (${outcome.reason}), but the host answered ${describeValue(spec)}`);
      if (lateMs !== undefined && !waitedFor(lateMs)) fail(`${where}: refused after ${waited} ms, not ${lateMs}`);
      if (!signalFired) fail(`${where}: refused, the host's signal never fired`);
      return;
    }
    case "timed_out":
      if (!timeoutInTime) fail(`${where}: timed out, but the host answered in time`);
      if (outcome.timeoutMs !== timeoutMs || !waitedFor(timeoutMs))
        fail(`${where}: timed out after ${waited} ms reporting ${outcome.timeoutMs}, expected ${timeoutMs}`);
      if (!signalFired) fail(`${where}: timed out, the host's signal never fired`);
      return;
    default: {
      const unknown: never = outcome;
      fail(`${where}: unknown outcome ${describeValue(unknown)}`);
    }
  }
}
