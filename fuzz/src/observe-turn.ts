/**
 * Records one `PiTurnRunner.runTurn` on a virtual clock, as its host sees
 * it: every event offered to the writer, every history change offered to
 * `onHistoryChangedHook` (recorded before any host hook can refuse it), how
 * `runTurn` settled, and what leaked. Shared by the generated scenarios and
 * the named fault tests.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  type EventWriter,
  type HistoryChange,
  type OnHistoryChangedHook,
  PiTurnRunner,
  type PiTurnRunnerOptions,
  type RunTurnInput,
} from "@turnkit/agent-core";
import { hookArray } from "@turnkit/agent-core/internal";
import {
  type GraceWait,
  type VirtualClock,
  abortListenerCount,
  probeGraceTimers,
  probeRealTimers,
} from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { unhandledRejections } from "./unhandled-rejections.js";
import { type DriveReport, driveUntilSettled, letStragglersSurface } from "./virtual-time.js";

/** One change offered to `onHistoryChangedHook`, and whether every host hook accepted it. */
export interface OfferedChange {
  change: HistoryChange;
  accepted: boolean;
}

/** Everything one turn left behind, for the invariants. */
export interface TurnRunObservation {
  /** Every event the writer was offered, in order (also one it failed on). */
  events: RuntimeEvent[];
  /** How `runTurn` settled: each resolution and rejection, in order (exactly one resolution expected). */
  settlements: ({ kind: "resolved"; outcome: TurnOutcome } | { kind: "rejected"; error: unknown })[];
  history: AgentMessage[];
  /** Every history change offered to the host, in order, recorded before any host hook could fail. */
  offered: OfferedChange[];
  /** The caller's signal had fired when `runTurn` settled. */
  callerAborted: boolean;
  drive: DriveReport;
  listenersLeft: number;
  pendingVirtualTimers: number;
  pendingRealTimers: number;
  /** Every abort-grace timer the run started (real time), for the abort latency. */
  graceWaits: readonly GraceWait[];
  unhandledRejections: unknown[];
}

/** How to observe a turn. */
export interface ObserveTurnOptions {
  /** The turn, without its writer and signal (the observer supplies both). */
  input: Omit<RunTurnInput, "eventWriter" | "signal">;
  clock: VirtualClock;
  /** The caller's cancellation; the driver aborts it when the turn stalls. */
  controller: AbortController;
  /**
   * The host's writer behaviour, called after the event is recorded: may
   * throw, return a promise, or act (abort, steer) at event `index`.
   */
  write?: (event: RuntimeEvent, index: number) => void | Promise<void>;
  /** Runner options besides the clock (deterministic ids by default). */
  runnerOptions?: Omit<PiTurnRunnerOptions, "clock">;
  /** Timers the test scheduled on `clock` for itself; cleared before counting leaks. */
  hostTimers?: () => readonly unknown[];
  /** Called as soon as `runTurn` settled (first thing in its settlement handler). */
  onSettled?: () => void;
  /** Awaited after the turn settled, before stragglers are counted: a host may answer late here. */
  afterSettle?: () => Promise<void>;
  /** How the clock is driven when this turn runs alone (see `TurnScenario.pacing`); ignored for turns observed together. */
  pacing?: number;
  /** Real milliseconds with no timer scheduled before the turn counts as hung: for turns that wait on a socket. */
  quietMs?: number;
}

/** The runner an observed turn runs on: deterministic event and message ids (counters) unless `runnerOptions` says otherwise. */
export function newObservedRunner(
  clock: VirtualClock,
  runnerOptions: ObserveTurnOptions["runnerOptions"],
): PiTurnRunner {
  let messageIds = 0;
  let eventIds = 0;
  return new PiTurnRunner({
    allocateMessageId: () => `msg_${++messageIds}`,
    newEventId: () => `evt_${++eventIds}`,
    ...runnerOptions,
    clock,
  });
}

/** A turn started on a runner, recording as it goes. */
interface StartedTurn {
  /** Settles when `runTurn` settled (never rejects). */
  run: Promise<void>;
  /** What the turn left behind; the probes cover whatever else ran at the same time. */
  observation(probes: RunProbes): TurnRunObservation;
}

/** What the driver and the process-wide probes saw while the turn (or several) ran. */
interface RunProbes {
  drive: DriveReport;
  pendingRealTimers: number;
  graceWaits: readonly GraceWait[];
  unhandledRejections: unknown[];
}

function startObservedTurn(options: ObserveTurnOptions, runner: PiTurnRunner): StartedTurn {
  const { clock, controller } = options;
  const events: RuntimeEvent[] = [];
  const writer: EventWriter = {
    push(event) {
      const index = events.length;
      events.push(event);
      return options.write?.(event, index);
    },
  };
  const offered: OfferedChange[] = [];
  const record: OnHistoryChangedHook = (change) => {
    offered.push({ change, accepted: false });
  };
  const accept: OnHistoryChangedHook = () => {
    offered[offered.length - 1]!.accepted = true;
  };
  const hooks = options.input.hooks ?? {};
  const input: RunTurnInput = {
    ...options.input,
    hooks: { ...hooks, onHistoryChangedHook: [record, ...hookArray(hooks.onHistoryChangedHook), accept] },
    eventWriter: writer,
    signal: controller.signal,
  };
  const settlements: TurnRunObservation["settlements"] = [];
  let callerAborted = false;
  const settle = (settlement: TurnRunObservation["settlements"][number]) => {
    options.onSettled?.();
    callerAborted = controller.signal.aborted;
    settlements.push(settlement);
  };
  const run = runner.runTurn(input).then(
    (outcome) => settle({ kind: "resolved", outcome }),
    (error: unknown) => settle({ kind: "rejected", error }),
  );
  return {
    run,
    observation: (probes) => ({
      events,
      settlements,
      history: [...(options.input.history ?? [])],
      offered,
      callerAborted,
      listenersLeft: abortListenerCount(controller.signal),
      pendingVirtualTimers: clock.pendingCount(),
      ...probes,
    }),
  };
}

/**
 * Runs `turns` at once, each as its own `runTurn`, all on one runner made
 * from `runnerOptions` and the clock they share (every turn's `clock` must
 * be the same virtual clock), driving that clock until every turn settled.
 * A stall aborts every turn. The process-wide probes (real and grace
 * timers, unhandled rejections) and the pending virtual timers count for
 * the whole group. With one turn this is {@link observeTurn}.
 */
export async function observeTurnsTogether(
  turns: readonly ObserveTurnOptions[],
  runnerOptions?: ObserveTurnOptions["runnerOptions"],
): Promise<TurnRunObservation[]> {
  const clock = turns[0]!.clock;
  if (turns.some((turn) => turn.clock !== clock))
    throw new Error("observeTurnsTogether: every turn must run on the same virtual clock");
  const runner = newObservedRunner(clock, runnerOptions);
  const rejectionsBefore = unhandledRejections().seen.length;
  const realTimers = probeRealTimers();
  const graceTimers = probeGraceTimers();
  let started: StartedTurn[];
  let drive: DriveReport;
  try {
    started = turns.map((turn) => startObservedTurn(turn, runner));
    drive = await driveUntilSettled(
      Promise.all(started.map((turn) => turn.run)),
      clock,
      () => {
        for (const turn of turns) turn.controller.abort();
      },
      turns.length === 1 ? turns[0]!.pacing : undefined,
      Math.max(...turns.map((turn) => turn.quietMs ?? 0)),
    );
    for (const turn of turns) await turn.afterSettle?.();
    await letStragglersSurface(
      clock,
      turns.flatMap((turn) => turn.hostTimers?.() ?? []),
    );
  } finally {
    graceTimers.restore();
    realTimers.restore();
  }
  const probes: RunProbes = {
    drive,
    pendingRealTimers: realTimers.pending(),
    graceWaits: graceTimers.waits(),
    unhandledRejections: unhandledRejections().seen.slice(rejectionsBefore),
  };
  return started.map((turn) => turn.observation(probes));
}

/** Runs one turn on a runner of its own and records it. */
export async function observeTurn(options: ObserveTurnOptions): Promise<TurnRunObservation> {
  const [observation] = await observeTurnsTogether([options], options.runnerOptions);
  return observation!;
}
