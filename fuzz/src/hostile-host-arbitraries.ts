/**
 * Generators of the hostile host ({@link HostileHostSpec}): loggers that
 * throw or reject, host callbacks and id allocators that fail with texts a
 * provider could send, hook chains with slow and hung members (also ones
 * pending when the turn is aborted), polls handing over several messages at
 * once and step-end hooks queueing several, on top of a generated turn.
 */
import fc from "fast-check";
import {
  CHAIN_HOOKS,
  type ChainMember,
  HOST_CALLBACKS,
  type HostileHostSpec,
  PROVIDER_LIKE_MESSAGES,
} from "./hostile-host.js";
import { slowWriterArbitrary } from "./host-arbitraries.js";
import type { GenerationOptions } from "./known-bugs.js";
import { oneIn } from "./response-arbitraries.js";
import { turnScenarioArbitrary } from "./scenario-arbitraries.js";
import type { TurnScenario } from "./scenario.js";

const chainMemberArbitrary: fc.Arbitrary<ChainMember> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((ms): ChainMember => ({ kind: "slow", ms })) },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 5_000 }).map((ms): ChainMember => ({ kind: "abortThenSlow", ms })),
  },
  // Hung members cost one real abort grace each run: rarer.
  { weight: 1, arbitrary: fc.constant<ChainMember>({ kind: "hung" }) },
  { weight: 1, arbitrary: fc.constant<ChainMember>({ kind: "abortThenHung" }) },
);

export const hostileHostArbitrary: fc.Arbitrary<HostileHostSpec> = fc.record({
  logger: oneIn(2, fc.constantFrom("quiet" as const, "throwing" as const, "rejecting" as const)),
  callbackFailure: oneIn(
    2,
    fc.record({
      callback: fc.constantFrom(...HOST_CALLBACKS),
      atCall: fc.nat({ max: 3 }),
      mode: fc.constantFrom(
        "throw" as const,
        "reject" as const,
        "revoked" as const,
        "wrongType" as const,
        "repeat" as const,
      ),
      message: fc.constantFrom(...PROVIDER_LIKE_MESSAGES),
    }),
  ),
  chainMember: oneIn(
    2,
    fc.record({ hook: fc.constantFrom(...CHAIN_HOOKS), member: chainMemberArbitrary, fromCall: fc.nat({ max: 3 }) }),
  ),
  messagesPerPoll: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }),
  malformedPollAt: oneIn(5, fc.nat({ max: 3 })),
  malformedPollHole: fc.boolean(),
  enqueuePerStep: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }),
  hookTimeoutMs: oneIn(3, fc.constantFrom(50, 1_000, 4_000)),
});

/** A generated runner turn with a hostile host. */
export function hostileTurnArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .tuple(
      turnScenarioArbitrary(options),
      hostileHostArbitrary,
      oneIn(3, slowWriterArbitrary({ never: true, maxFrom: 40 })),
    )
    .map(([scenario, hostile, slow]) =>
      // With hookTimeoutMs the writer is host code it bounds too: now and then one that falls behind or never answers.
      hostile.hookTimeoutMs !== undefined && slow
        ? { ...scenario, hostile, writer: { ...scenario.writer, slow } }
        : { ...scenario, hostile },
    );
}

/**
 * A member first in one hook kind's chain (any kind of `PiTurnHooks`) that
 * aborts the turn and then stays pending: past the abort grace (hung), or
 * answering late on the virtual clock. Its first calls pass through.
 */
const pendingAtAbortArbitrary: fc.Arbitrary<NonNullable<HostileHostSpec["chainMember"]>> = fc.record({
  hook: fc.constantFrom(...CHAIN_HOOKS),
  member: fc.oneof(
    { weight: 3, arbitrary: fc.constant<ChainMember>({ kind: "abortThenHung" }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 5_000 }).map((ms): ChainMember => ({ kind: "abortThenSlow", ms })),
    },
  ),
  fromCall: fc.nat({ max: 1 }),
});

/**
 * A generated runner turn aborted while a hook is pending, with an event
 * writer that falls behind early: from one of its first events on it
 * answers late (resolving or rejecting) or never. When the turn gives up on
 * the writer, events are still waiting behind its call: the runs where `seq`
 * could skip the events the writer never received.
 */
export function pendingHookSlowWriterArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .tuple(turnScenarioArbitrary(options), pendingAtAbortArbitrary, slowWriterArbitrary({ never: true, maxFrom: 12 }))
    .map(([scenario, chainMember, slow]) => ({
      ...scenario,
      writer: { ...scenario.writer, slow },
      hostile: { logger: undefined, callbackFailure: undefined, chainMember, messagesPerPoll: [], enqueuePerStep: [] },
    }));
}
