import { errorText, onAbort, thrownText } from "@turnkit/agent-loop/internal";
import {
  type ActionAnswer,
  type ActionRequiredKind,
  type ActionRequiredPayload,
  type RuntimeEventPayloadMap,
  validateActionAnswer,
  validateActionRequired,
} from "@turnkit/protocol";
import { describeValue } from "./messages/content-checks.js";
import { jsonSafe } from "./event-bridge/json-safe.js";
import type { Clock } from "./clock.js";
import { TURN_DEFAULTS } from "./defaults.js";

/*
 * The channel by which code running inside a turn (a tool's `execute`, an
 * extension's tool) asks the turn's host for something only a person can
 * give: an `action.required` event on the turn's stream, answered by the
 * host function `RunTurnInput.answerActionRequest`. Everything about the
 * wait lives here: the request's id, the event, the host's answer checked
 * against its kind, the timeout on the runner's clock, the abort, and one
 * `debug.trace` (phase `action.request`) saying how the wait ended.
 */

type RequestOfKind<K extends ActionRequiredKind> = Extract<ActionRequiredPayload, { kind: K }>;

/**
 * What code in a turn asks: an `action.required` payload without the fields
 * the turn fills in (`requestId`, `messageId`, `timeoutMs`). An elicitation
 * without `toolCallId` gets the asking call's.
 */
export type ActionRequest<K extends ActionRequiredKind = ActionRequiredKind> = K extends ActionRequiredKind
  ? Omit<RequestOfKind<K>, "requestId" | "messageId" | "timeoutMs">
  : never;

/**
 * How a wait for the host ended, each with its own kind:
 *
 * - `answered`: the host answered with a valid answer of the request's kind;
 * - `timed_out`: no answer within `timeoutMs` (the host function's signal fires);
 * - `aborted`: the turn was aborted, or the asker's own signal fired, first;
 * - `refused`: nobody could be asked (the turn has no `answerActionRequest`,
 *   or it has ended) or the host failed (it threw, or answered with a value
 *   that is not an answer of this kind); `reason` says which.
 */
export type ActionRequestOutcome<K extends ActionRequiredKind = ActionRequiredKind> =
  | { kind: "answered"; requestId: string; answer: ActionAnswer<K> }
  | { kind: "timed_out"; requestId: string; timeoutMs: number }
  | { kind: "aborted"; requestId: string }
  | { kind: "refused"; requestId: string; reason: string };

/**
 * The host function that answers a turn's `action.required` requests
 * (`RunTurnInput.answerActionRequest`). It receives the event's payload,
 * after the event was handed to the event queue, and a signal that fires
 * when the turn stops waiting (timeout, abort): take the question down then.
 * It returns the person's answer for the request's kind; a throw, or a
 * value that is not such an answer, refuses the request.
 */
export type ActionRequestAnswerer = (
  request: ActionRequiredPayload,
  signal: AbortSignal,
) => ActionAnswer | Promise<ActionAnswer>;

/** Options of one {@link AskHost} call. */
export interface AskHostOptions {
  /**
   * How long to wait for the answer, in ms, more than 0 (`Infinity`: until
   * the turn's abort; at most about 24.8 days on the real clock); default
   * `TURN_DEFAULTS.actionRequestTimeoutMs` (10 min). Any other value refuses
   * the request, with a reason naming `timeoutMs`, and nobody is asked.
   */
  timeoutMs?: number;
  /** Stops waiting when it fires (for example the MCP server cancelled its request): outcome `aborted`. */
  signal?: AbortSignal;
}

/**
 * Asks the turn's host and waits (a tool's `ctx.askHost`). Emits an
 * `action.required` with a request id unique within the turn, then resolves
 * with how the wait ended. Never rejects and never hangs: without a host
 * function it resolves `refused` at once; otherwise the answer, the
 * timeout, or the turn's abort (at once, so within the abort grace) ends it.
 * A request that is no object, or not of its kind's shape
 * (`validateActionRequired`: a `tool_approval` without `toolCallId`, an
 * unknown `kind`), or an `options.signal` that is no `AbortSignal`, is
 * refused at once with a reason naming the field, and nobody is asked (so
 * is a request or options that cannot be read: a revoked proxy, a getter
 * that throws);
 * values in it JSON cannot write (a bigint in `arguments`) reach the event
 * and the host as their JSON-safe copy.
 */
export type AskHost = <R extends ActionRequest>(
  request: R,
  options?: AskHostOptions,
) => Promise<ActionRequestOutcome<R["kind"]>>;

/** What the wait needs of a running turn (the runner's turn state has it). */
export interface ActionRequestTurn {
  /** The turn has ended: nobody is asked, nothing is emitted. */
  readonly settled: boolean;
  /** The host function, when the turn has one. */
  readonly input: { readonly answerActionRequest?: ActionRequestAnswerer };
  /** The runner's clock, for the timeout. */
  readonly defaults: { readonly clock: Clock };
  /** The turn's event queue. */
  readonly events: {
    push<T extends "action.required" | "debug.trace">(type: T, payload: RuntimeEventPayloadMap[T]): void;
  };
}

/**
 * The part of a request id that keeps sub-agents apart: the keys
 * (`ToolExecutionContext.callKey`) of the sub-agent calls a turn runs
 * under, outermost first, each followed by `/` (`""` for a host's turn).
 * Two sub-agents whose own calls share an id (each model numbering its
 * calls from 1) ask under different ids: `elicitation:call_2/call_1:1` is
 * the question of call `call_1` in the sub-agent that the parent's call
 * `call_2` started.
 */
export function requestIdScope(subAgentCallKeys: readonly string[]): string {
  return subAgentCallKeys.map((callKey) => `${callKey}/`).join("");
}

/**
 * Names the calls of one turn apart when a model reuses a tool call id in
 * a later response (some OpenAI-compatible servers number calls per
 * response, `call_0` each time). Returns a function to call once per call,
 * in the order the calls start: it gives the call id itself the first
 * time, and `<id>#<k>` for the k-th call under that id within `scope` (the
 * call's {@link requestIdScope}; calls of two sub-agents are counted
 * apart). Request ids are built on the name, so two calls never ask under
 * one id, and a replay that starts the same calls in the same order gets
 * the same names.
 */
export function callIdOccurrences(): (toolCallId: string, scope?: string) => string {
  const seen = new Map<string, number>();
  return (toolCallId, scope = "") => {
    const key = `${scope}${toolCallId}`;
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    return k === 1 ? toolCallId : `${toolCallId}#${k}`;
  };
}

/** What the tool table needs to give each call an {@link AskHost}: the turn's wait. */
export type ActionRequestWait = (request: ActionRequiredPayload, signal: AbortSignal) => Promise<ActionRequestOutcome>;

/**
 * The `askHost` of one tool call: fills the request id
 * (`<kind>:<scope><callName>:<n>`, counted per call, so the same on a
 * replay of the call), the call's message id and the timeout, and waits on
 * `wait` (absent: every request is refused). The wait also ends when the
 * call's `callSignal` (the turn's abort) fires. `scope` is
 * {@link requestIdScope} of the turn the tool runs in; `callName` is the
 * call's name from {@link callIdOccurrences} (default: its tool call id).
 */
export function toolCallAskHost(
  wait: ActionRequestWait | undefined,
  call: {
    toolCallId: string;
    assistantMessageId: string | undefined;
    callSignal: AbortSignal;
    scope?: string;
    callName?: string;
  },
): AskHost {
  let asked = 0;
  return async function askHost<R extends ActionRequest>(
    request: R,
    options: AskHostOptions = {},
  ): Promise<ActionRequestOutcome<R["kind"]>> {
    asked += 1;
    const asker = `${call.scope ?? ""}${call.callName ?? call.toolCallId}:${asked}`;
    // A request that is no object cannot be put to anyone: refused, naming it (the wait checks the rest).
    if (typeof request !== "object" || request === null) {
      const reason = `the request must be an object { kind, ... }, got ${describeValue(request)}`;
      return { kind: "refused", requestId: `invalid:${asker}`, reason };
    }
    // Read once, as copies: a request or options that cannot be read (a revoked proxy, a getter that throws) are refused, never a rejection.
    let given: { request: Record<string, unknown>; signal: unknown; timeoutMs: unknown };
    try {
      given = { request: { ...request }, signal: options?.signal, timeoutMs: options?.timeoutMs };
    } catch {
      const reason = "the request or its options could not be read (a revoked proxy or a getter that throws)";
      return { kind: "refused", requestId: `invalid:${asker}`, reason };
    }
    const requestId = `${typeof given.request.kind === "string" ? given.request.kind : "invalid"}:${asker}`;
    if (given.signal !== undefined && !(given.signal instanceof AbortSignal)) {
      const reason = `options.signal must be an AbortSignal, got ${describeValue(given.signal)}`;
      return { kind: "refused", requestId, reason };
    }
    const timeoutMs = given.timeoutMs ?? TURN_DEFAULTS.actionRequestTimeoutMs;
    const payload = {
      ...(given.request.kind === "elicitation" && { toolCallId: call.toolCallId }),
      ...given.request,
      requestId,
      ...(call.assistantMessageId !== undefined && { messageId: call.assistantMessageId }),
      timeoutMs,
    } as ActionRequiredPayload;
    if (wait === undefined) return { kind: "refused", requestId, reason: "this tool runs outside a turn" };
    const signal = given.signal ? AbortSignal.any([call.callSignal, given.signal as AbortSignal]) : call.callSignal;
    return (await wait(payload, signal)) as ActionRequestOutcome<R["kind"]>;
  };
}

/**
 * One request of a turn, from the event to the outcome (see {@link AskHost}).
 * `signal` ends the wait as `aborted`. The host function's signal fires
 * whenever the wait ends without its answer.
 */
export async function waitForActionAnswer(
  turn: ActionRequestTurn,
  asked: ActionRequiredPayload,
  signal: AbortSignal,
): Promise<ActionRequestOutcome> {
  const { requestId } = asked;
  const timeoutMs = asked.timeoutMs ?? TURN_DEFAULTS.actionRequestTimeoutMs;
  // What the event carries is plain JSON, and of its kind's shape; else the request is refused, naming the field.
  // `Infinity` (wait until the abort) is no JSON number: the event leaves timeoutMs out.
  const shown = Number.isFinite(timeoutMs) ? asked : { ...asked, timeoutMs: undefined };
  const safe = jsonSafe(shown) as Record<string, unknown>;
  const checked = validateActionRequired(safe);
  const request = checked.ok ? checked.payload : asked;
  const kind = typeof safe.kind === "string" ? safe.kind : "invalid";
  const answerer = turn.input.answerActionRequest;
  const end = (outcome: ActionRequestOutcome): ActionRequestOutcome => {
    if (!turn.settled) {
      const why = outcome.kind === "refused" ? `: ${outcome.reason}` : "";
      turn.events.push("debug.trace", {
        phase: "action.request",
        level: outcome.kind === "answered" ? "info" : "warn",
        message: `${kind} ${requestId} ${outcome.kind}${why}`,
        attrs: { requestId, kind, outcome: outcome.kind },
      });
    }
    return outcome;
  };
  if (turn.settled) return { kind: "refused", requestId, reason: "the turn has ended" };
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0))
    return end({
      kind: "refused",
      requestId,
      reason: `timeoutMs must be a number of milliseconds greater than 0, got ${thrownText(timeoutMs)}`,
    });
  if (!checked.ok)
    return end({
      kind: "refused",
      requestId,
      reason: `the request is malformed: ${checked.errors.slice(0, 3).join("; ")}`,
    });
  if (answerer === undefined)
    return end({ kind: "refused", requestId, reason: "the host answers no action requests in this turn" });
  if (signal.aborted) return end({ kind: "aborted", requestId });
  turn.events.push("action.required", request);

  const stopAsking = new AbortController();
  const { clock } = turn.defaults;
  let timer: unknown;
  let stopListening: (() => void) | undefined;
  const ended = new Promise<ActionRequestOutcome>((resolve) => {
    timer = clock.setTimeout(() => resolve({ kind: "timed_out", requestId, timeoutMs }), timeoutMs);
    // The event's writer may have aborted the turn while the event was handed over.
    if (signal.aborted) resolve({ kind: "aborted", requestId });
    else stopListening = onAbort(signal, () => resolve({ kind: "aborted", requestId }));
  });
  const answered = (async (): Promise<ActionRequestOutcome> => {
    try {
      const value = await answerer(request, stopAsking.signal);
      const fits = validateActionAnswer(request.kind, value);
      if (fits.ok) return { kind: "answered", requestId, answer: fits.answer };
      return {
        kind: "refused",
        requestId,
        reason: `the host's answer does not fit a ${kind} request (${fits.errors[0]})`,
      };
    } catch (error) {
      return { kind: "refused", requestId, reason: `the host failed to answer: ${errorText(error)}` };
    }
  })();
  try {
    const outcome = await Promise.race([answered, ended]);
    if (outcome.kind !== "answered") stopAsking.abort();
    return end(outcome);
  } finally {
    clock.clearTimeout(timer);
    stopListening?.();
  }
}
