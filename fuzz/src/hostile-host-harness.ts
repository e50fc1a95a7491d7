/**
 * Applies a {@link HostileHostSpec} to a generated turn's input and runner
 * options (the model's stream function calls `llm.payloadTransform` and
 * `llm.responseObserver` the way pi-ai's providers do), and records what the invariants of `invariants/hostile-host.ts`
 * need: every message the host handed over, which host callback threw,
 * every call into host code after `runTurn` settled, and when the turn was
 * aborted and when it settled (real time). Late answers of slow and hung
 * chain members are released after the turn settled (`afterSettle`), so a
 * chain that keeps running would show.
 */
import type { AgentMessage, StreamFn } from "@turnkit/agent-loop";
import { type VirtualClock, revokedProxy } from "@turnkit/agent-loop/testing";
import {
  type PiTurnHooks,
  type PiTurnRunnerOptions,
  type RunTurnInput,
  type StepEndEvent,
  type TurnLogger,
} from "@turnkit/agent-core";
import { hookArray } from "@turnkit/agent-core/internal";
import type { ChainMember, HostCallbackName, HostileHostSpec } from "./hostile-host.js";
import type { RuntimeEvent } from "@turnkit/protocol";
import { withProviderCallbacks } from "./provider-callback-stream.js";
import { markedText } from "./scripted-entries.js";

/** What the hostile host saw, for the invariants. */
export interface HostileProbe {
  spec: HostileHostSpec;
  /** Texts of every message the host handed over (poll results, `enqueue`), in order. */
  handedOver: string[];
  /** The host callback that threw or rejected, if it did (before the turn settled). */
  /** The callback that failed first, and its error's text (`undefined` for an answer no code can read). */
  callbackThrew: { callback: HostCallbackName; message: string | undefined } | undefined;
  /** Host code the runner called after `runTurn` settled (hooks, callbacks, writer, logger, allocator). */
  calledAfterSettle: string[];
  /** Real time (performance.now) of the first abort of the caller's signal, if any. */
  abortedAt: number | undefined;
  /** Real time when `runTurn` settled. */
  settledAt: number | undefined;
  /** Calls of each logger method, whatever the logger did. */
  loggerCalls: number;
}

type InputWithoutIo = Omit<RunTurnInput, "eventWriter" | "signal">;
type HostWrite = (event: RuntimeEvent, index: number) => void | Promise<void>;

/** The hostile host of one run; `apply` wraps the input, the rest is handed to `observeTurn`. */
export interface HostileHost {
  probe: HostileProbe;
  input: InputWithoutIo;
  runnerOptions: Omit<PiTurnRunnerOptions, "clock">;
  write: (write: HostWrite | undefined) => HostWrite;
  onSettled: () => void;
  afterSettle: () => Promise<void>;
}

const NEVER = () => undefined;
const NO_STREAM: StreamFn = () => {
  throw new Error("the scenario has no stream function");
};

/** Sets up the hostile host for `input` (already built by the scenario) on `clock`, aborting through `controller`. */
export function hostileHost(options: {
  spec: HostileHostSpec;
  input: InputWithoutIo;
  runnerOptions: Omit<PiTurnRunnerOptions, "clock">;
  clock: VirtualClock;
  controller: AbortController;
}): HostileHost {
  const { spec, clock, controller } = options;
  const probe: HostileProbe = {
    spec,
    handedOver: [],
    callbackThrew: undefined,
    calledAfterSettle: [],
    abortedAt: controller.signal.aborted ? performance.now() : undefined,
    settledAt: undefined,
    loggerCalls: 0,
  };
  let settled = false;
  const onAbort = () => {
    probe.abortedAt ??= performance.now();
  };
  if (!controller.signal.aborted) controller.signal.addEventListener("abort", onAbort, { once: true });
  /** Every call into host code goes through here: after the settle it is a violation. */
  const witness = (name: string) => {
    if (settled) probe.calledAfterSettle.push(name);
  };
  // Answers of slow and hung members, released after the settle.
  const late: { handle: unknown; release: () => void }[] = [];
  const holdUntil = (ms: number | undefined) =>
    new Promise<undefined>((resolve) => {
      const handle = ms === undefined ? undefined : clock.setTimeout(() => resolve(undefined), ms);
      late.push({ handle, release: () => resolve(undefined) });
    });

  const failure = spec.callbackFailure;
  /** Callbacks whose answer's type the runner checks: a wrong one fails the turn like a throw. */
  const TYPED_ANSWERS = new Set<HostCallbackName>([
    "getSteeringMessages",
    "tryBeginClose",
    "allocateMessageId",
    "newEventId",
  ]);
  /** Callbacks whose answers the runner checks for repeats within a turn. */
  const ID_ALLOCATORS = new Set<HostCallbackName>(["allocateMessageId", "newEventId"]);
  const callCounts = new Map<HostCallbackName, number>();
  const firstAnswers = new Map<HostCallbackName, unknown>();
  /** Wraps a host callback: witnessed, and failing at its generated call. */
  const callback = <Args extends unknown[], R>(name: HostCallbackName, fn: (...args: Args) => R) => {
    return (...args: Args): R => {
      witness(name);
      const index = callCounts.get(name) ?? 0;
      callCounts.set(name, index + 1);
      // A repeat answers again what the first call answered: from the second call on.
      const failsAt =
        failure?.mode === "repeat" && ID_ALLOCATORS.has(name) ? Math.max(failure.atCall, 1) : failure?.atCall;
      if (failure?.callback === name && failsAt === index) {
        const error = new Error(failure.message);
        if (failure.mode === "repeat" && ID_ALLOCATORS.has(name)) {
          if (!settled) probe.callbackThrew ??= { callback: name, message: undefined };
          return firstAnswers.get(name) as R;
        }
        if (failure.mode === "wrongType" && TYPED_ANSWERS.has(name)) {
          if (!settled) probe.callbackThrew ??= { callback: name, message: undefined };
          return 1 as R;
        }
        if (failure.mode === "revoked") {
          // It carries no text of its own: only the turn's end is checked (and, as everywhere, no engine text).
          if (!settled) probe.callbackThrew ??= { callback: name, message: undefined };
          return revokedProxy() as R;
        }
        if (!settled) probe.callbackThrew ??= { callback: name, message: failure.message };
        // newEventId answers synchronously: its failure is a throw.
        if (failure.mode !== "reject" || name === "newEventId") throw error;
        return Promise.reject(error) as R;
      }
      const answer = fn(...args);
      if (index === 0) firstAnswers.set(name, answer);
      return answer;
    };
  };

  const input: InputWithoutIo = { ...options.input };
  // Steering: bursts of several messages per poll, every message handed over recorded.
  const poll = input.getSteeringMessages ?? (() => []);
  let polls = 0;
  let burst = 0;
  input.getSteeringMessages = callback("getSteeringMessages", (context: { boundary: "mid-turn" | "exit" }) => {
    const malformed = spec.malformedPollAt === polls;
    const extra = spec.messagesPerPoll[polls++] ?? 0;
    const answer = poll(context);
    const add = (received: readonly { text: string }[]) => {
      const burstMessages = Array.from({ length: extra }, () => ({
        text: markedText(`burst${++burst}`, "one of several steering messages"),
      }));
      const all = [...received, ...burstMessages];
      // Steering that says nothing is left out, neither delivered nor handed back (invariant 36 checks it).
      for (const message of all) if (message.text.trim() !== "") probe.handedOver.push(message.text);
      // A malformed message (or a hole in the list) is refused, never handed over; the rest of its answer must come back.
      if (!malformed) return all;
      if (!spec.malformedPollHole) return [...all, { text: 7 } as never];
      const withHole: { text: string }[] = new Array(all.length + 1);
      all.forEach((message, index) => (withHole[index + 1] = message));
      return withHole;
    };
    return (Array.isArray(answer) ? add(answer) : (answer as Promise<{ text: string }[]>).then(add)) as never;
  });
  if (input.tryBeginClose || failure?.callback === "tryBeginClose")
    input.tryBeginClose = callback("tryBeginClose", input.tryBeginClose ?? (() => true));
  if (input.shouldStopAfterTurn || failure?.callback === "shouldStopAfterTurn") {
    input.shouldStopAfterTurn = callback("shouldStopAfterTurn", input.shouldStopAfterTurn ?? (() => false));
  }
  if (input.shouldStopAfterSteering || failure?.callback === "shouldStopAfterSteering") {
    input.shouldStopAfterSteering = callback("shouldStopAfterSteering", input.shouldStopAfterSteering ?? (() => false));
  }

  // The provider's callbacks: always present (passing through), called as pi-ai's providers call them.
  input.llm = {
    ...input.llm,
    streamFn: withProviderCallbacks(input.llm.streamFn ?? NO_STREAM),
    payloadTransform: callback("payloadTransform", () => undefined),
    responseObserver: callback("responseObserver", () => undefined),
  };

  const hooks: PiTurnHooks = { ...input.hooks };
  // Messages queued by step-end hooks (the scenario's and the burst below) are handed over too.
  let queued = 0;
  const enqueueBurst = (event: StepEndEvent) => {
    const count = spec.enqueuePerStep[event.stepIndex] ?? 0;
    for (let index = 0; index < count; index++)
      event.enqueue(markedText(`enqueued${++queued}`, "queued at step end by the host"));
  };
  hooks.onStepEndHook = [
    ...hookArray(hooks.onStepEndHook),
    ...(spec.enqueuePerStep.length > 0 ? [enqueueBurst] : []),
  ].map(
    (hook) => (event: StepEndEvent) =>
      hook({
        ...event,
        enqueue: (message: string | AgentMessage) => {
          // A message `enqueue` refuses (it throws) was never handed over.
          event.enqueue(message);
          if (typeof message !== "string") probe.handedOver.push(JSON.stringify(message));
          else if (message.trim() !== "") probe.handedOver.push(message);
        },
      }),
  );
  // A slow or hung member first in one hook kind's chain.
  const chain = spec.chainMember;
  if (chain) {
    let calls = 0;
    const member = (..._args: unknown[]) => {
      if (calls++ < chain.fromCall) return undefined;
      return memberAnswer(chain.member, () => controller.abort(), holdUntil);
    };
    const existing = hookArray(hooks[chain.hook] as PiTurnHooks[typeof chain.hook]) as readonly unknown[];
    (hooks as Record<string, unknown>)[chain.hook] = [member, ...existing];
  }
  // Every hook witnessed: a member called after the settle is a violation.
  for (const [name, list] of Object.entries(hooks) as [keyof PiTurnHooks, PiTurnHooks[keyof PiTurnHooks]][]) {
    (hooks as Record<string, unknown>)[name] = (hookArray(list) as readonly ((...args: unknown[]) => unknown)[]).map(
      (hook) =>
        (...args: unknown[]) => {
          witness(name);
          return hook(...args);
        },
    );
  }
  input.hooks = hooks;
  if (spec.hookTimeoutMs !== undefined) input.hookTimeoutMs = spec.hookTimeoutMs;

  const runnerOptions: Omit<PiTurnRunnerOptions, "clock"> = { ...options.runnerOptions };
  const allocate = runnerOptions.allocateMessageId;
  if (allocate) runnerOptions.allocateMessageId = callback("allocateMessageId", allocate);
  const newEventId = runnerOptions.newEventId;
  if (newEventId) runnerOptions.newEventId = callback("newEventId", newEventId);
  if (spec.logger)
    runnerOptions.logger = logger(spec.logger, () => {
      probe.loggerCalls++;
      witness("logger");
    });

  return {
    probe,
    input,
    runnerOptions,
    write: (write) => (event, index) => {
      witness("eventWriter");
      return write?.(event, index);
    },
    onSettled: () => {
      settled = true;
      probe.settledAt = performance.now();
      controller.signal.removeEventListener("abort", onAbort);
    },
    afterSettle: async () => {
      for (const { handle, release } of late.splice(0)) {
        if (handle !== undefined) clock.clearTimeout(handle);
        release();
      }
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** What a chain member answers: nothing, after a while or never (released after the settle). */
function memberAnswer(
  member: ChainMember,
  abort: () => void,
  holdUntil: (ms: number | undefined) => Promise<undefined>,
): Promise<undefined> {
  switch (member.kind) {
    case "slow":
      return holdUntil(member.ms);
    case "hung":
      return holdUntil(undefined);
    case "abortThenSlow":
      abort();
      return holdUntil(member.ms);
    case "abortThenHung":
      abort();
      return holdUntil(undefined);
    default: {
      const unreachable: never = member;
      return unreachable;
    }
  }
}

/** A logger that records each call, then stays quiet, throws or rejects. */
function logger(behaviour: NonNullable<HostileHostSpec["logger"]>, onCall: () => void): TurnLogger {
  const method = () => {
    onCall();
    if (behaviour === "throwing") throw new Error("the log sink is down");
    if (behaviour === "rejecting") return Promise.reject(new Error("the log sink rejected")) as unknown as void;
    return NEVER();
  };
  return { debug: method, warn: method, error: method };
}
