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
  hookArray,
} from "@turnkit/agent-core";
import { type GraceWait, type VirtualClock, abortListenerCount, probeGraceTimers, probeRealTimers } from "@turnkit/agent-loop/testing";
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
}

export async function observeTurn(options: ObserveTurnOptions): Promise<TurnRunObservation> {
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
  let messageIds = 0;
  let eventIds = 0;
  const runner = new PiTurnRunner({
    allocateMessageId: () => `msg_${++messageIds}`,
    newEventId: () => `evt_${++eventIds}`,
    ...options.runnerOptions,
    clock,
  });

  const settlements: TurnRunObservation["settlements"] = [];
  let callerAborted = false;
  const rejectionsBefore = unhandledRejections().seen.length;
  const realTimers = probeRealTimers();
  const graceTimers = probeGraceTimers();
  let drive: DriveReport;
  try {
    const run = runner.runTurn(input).then(
      (outcome) => {
        options.onSettled?.();
        callerAborted = controller.signal.aborted;
        settlements.push({ kind: "resolved", outcome });
      },
      (error: unknown) => {
        options.onSettled?.();
        callerAborted = controller.signal.aborted;
        settlements.push({ kind: "rejected", error });
      },
    );
    drive = await driveUntilSettled(run, clock, () => controller.abort());
    await options.afterSettle?.();
    await letStragglersSurface(clock, options.hostTimers?.());
  } finally {
    graceTimers.restore();
    realTimers.restore();
  }
  return {
    events,
    settlements,
    history: [...(options.input.history ?? [])],
    offered,
    callerAborted,
    drive,
    listenersLeft: abortListenerCount(controller.signal),
    pendingVirtualTimers: clock.pendingCount(),
    pendingRealTimers: realTimers.pending(),
    graceWaits: graceTimers.waits(),
    unhandledRejections: unhandledRejections().seen.slice(rejectionsBefore),
  };
}
