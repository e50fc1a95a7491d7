/**
 * A hostile host for `PiTurnRunner`: what the generated turns of the
 * `runner-hostile-host` property add to a {@link TurnScenario}. Plain,
 * printable data (fast-check prints it as the counterexample); applied to a
 * run by `run-turn-scenario.ts`, checked by `invariants/hostile-host.ts`.
 */
import type { PiTurnHooks } from "@turnkit/agent-core";

/** How the runner's logger behaves. */
export type LoggerBehaviour = "quiet" | "throwing" | "rejecting";

/**
 * The input's host callbacks (and the runner's id allocators) a scenario can
 * make throw. `payloadTransform` and `responseObserver` (of `llm`) are called
 * by the provider in the middle of a request, where their throw looks like a
 * provider failure.
 */
export const HOST_CALLBACKS = [
  "getSteeringMessages",
  "tryBeginClose",
  "shouldStopAfterTurn",
  "shouldStopAfterSteering",
  "allocateMessageId",
  "newEventId",
  "payloadTransform",
  "responseObserver",
] as const;
export type HostCallbackName = (typeof HOST_CALLBACKS)[number];

/**
 * Texts a provider's failure could have. A host callback throwing one of them
 * must still end the turn `internal` with the callback named: the runner never
 * classifies a host's failure by its text.
 */
export const PROVIDER_LIKE_MESSAGES = [
  "429 lock contention",
  "503 Service Unavailable: steering store overloaded",
  "request timed out after 30000ms",
  "read ECONNRESET",
  "401 Unauthorized",
  "prompt is too long: 250000 tokens > 200000 maximum",
] as const;

/**
 * One host callback throws, rejects (`newEventId`, which answers
 * synchronously, throws instead), answers with a revoked proxy (a value no
 * code can read, not even whether it is a promise), answers a value of the
 * wrong type (`1`; only where the runner checks the type: the steering
 * poll, `tryBeginClose`, the id allocators; elsewhere it throws), or
 * answers again the id it answered at its first call (`repeat`; only the id
 * allocators, at call `atCall` or 1 when that is 0; elsewhere it throws) at
 * its `atCall`-th call (0-based).
 */
export interface HostCallbackFailure {
  callback: HostCallbackName;
  atCall: number;
  mode: "throw" | "reject" | "revoked" | "wrongType" | "repeat";
  message: (typeof PROVIDER_LIKE_MESSAGES)[number];
}

/**
 * An extra member placed first in one hook kind's chain: `slow` answers
 * (harmlessly) after `ms` on the virtual clock, ignoring the abort; `hung`
 * never answers (only the runner's abort grace ends the wait); `abortThenSlow`
 * aborts the turn, then answers after `ms` (a hook pending at abort).
 */
export type ChainMember =
  | { kind: "slow"; ms: number }
  | { kind: "hung" }
  | { kind: "abortThenSlow"; ms: number }
  | { kind: "abortThenHung" };

/** Hook kinds a chain member can join: every kind of `PiTurnHooks` (the check below names a missing one). */
export const CHAIN_HOOKS = [
  "beforeLlmCallHook",
  "onLlmCallPreparedHook",
  "afterLlmCallHook",
  "beforeToolCallHook",
  "onToolExecutionStartHook",
  "afterToolCallHook",
  "onHistoryChangedHook",
  "onStepEndHook",
] as const satisfies readonly (keyof PiTurnHooks)[];
export type ChainHookName = (typeof CHAIN_HOOKS)[number];
// Fails to compile when PiTurnHooks gains a kind CHAIN_HOOKS does not list.
const EVERY_HOOK_KIND_LISTED: Exclude<keyof PiTurnHooks, ChainHookName> extends never ? true : never = true;
void EVERY_HOOK_KIND_LISTED;

/** What the hostile host does, on top of the scenario's own hooks and steering. */
export interface HostileHostSpec {
  logger: LoggerBehaviour | undefined;
  callbackFailure: HostCallbackFailure | undefined;
  /** A member put first in a hook kind's chain, from its `fromCall`-th call on (earlier calls pass through). */
  chainMember: { hook: ChainHookName; member: ChainMember; fromCall: number } | undefined;
  /** Messages each of the first polls hands over at once (besides the scenario's host actions); 0: none. */
  messagesPerPoll: number[];
  /** The poll (0-based) whose answer also holds one malformed message (`text` no string): refused with its whole answer. */
  malformedPollAt?: number;
  /** The malformed entry of that answer is a hole in the list (`[a, , b]`) instead of a message whose `text` is no string. */
  malformedPollHole?: boolean;
  /** Messages the `onStepEndHook` (added when absent) queues with `enqueue` at each step end, by step. */
  enqueuePerStep: number[];
  /**
   * The turn's `hookTimeoutMs`, now and then: a slow or hung chain member
   * past it fails by its hook kind's rule instead of holding the turn
   * until an abort (the turn must still end with one terminal status and
   * lose no host message).
   */
  hookTimeoutMs?: number;
}
