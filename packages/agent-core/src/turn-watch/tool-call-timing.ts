import type { ToolCallTiming } from "@turnkit/protocol";
import type { Clock } from "../clock.js";
import { millis } from "./request-timing.js";

/** Where a call's moments sit in `ToolCallTimer`'s list: three numbers per call, from its slot times three. */
const ANNOUNCED = 0;
const ADMITTED = 1;
const ENDED = 2;
const MOMENTS = 3;

/** Calls a turn announces before its timer keeps a map of them: below, finding one by its id scans a short list. */
const INDEXED_FROM = 32;

/**
 * The newest calls looked at before the map: a turn asks about the calls it
 * is running, its newest, and a lookup in a map of thousands of calls costs
 * more than a few comparisons (its table no longer fits the cache).
 */
const NEWEST = 8;

/**
 * When each tool call of a turn was announced (the loop's
 * `tool_execution_start`: arguments are checked, `beforeToolCallHook`s and
 * permissions asked), admitted (about to run) and ended, on the turn's
 * clock. A call that never ran has no admission: all its time is queued.
 * Run time ends when `execute` settles, not when the loop reports the end
 * (parallel calls are reported in the model's call order). A call is known
 * by its id from its first announcement on; a later announcement of the
 * same id changes nothing.
 *
 * The moments are plain numbers in one list (`NaN`: not yet), not an
 * object per call: a long turn makes thousands of calls, and each would
 * live until the turn ends. The lists make room for four calls at first,
 * then half as many again each time they are full (doubling would leave a
 * long turn holding up to twice the room it uses), so a turn of a few calls
 * holds a few dozen bytes for them. A call is found by its id in the list
 * of ids, newest first (the calls a turn is running are its newest); a
 * turn past {@link INDEXED_FROM} calls also keeps a map of them, asked
 * once its {@link NEWEST} newest calls are not the one.
 */
export class ToolCallTimer {
  /** Calls announced so far; slot `n` is the `n`th. */
  private count = 0;
  private toolCallIds: string[] = [];
  private toolNames: string[] = [];
  private moments: number[] = [];
  /** Each call's slot, made once the turn has announced {@link INDEXED_FROM} calls. */
  private slots: Map<string, number> | undefined = undefined;

  constructor(private readonly clock: Clock) {}

  announced(toolCallId: string, toolName: string): void {
    if (this.slotOf(toolCallId) !== undefined) return;
    const slot = this.count++;
    if (slot === this.toolNames.length) this.makeRoom();
    this.toolCallIds[slot] = toolCallId;
    this.toolNames[slot] = toolName;
    this.moments[slot * MOMENTS + ANNOUNCED] = this.clock.now();
    if (this.slots) this.slots.set(toolCallId, slot);
    else if (this.count === INDEXED_FROM)
      this.slots = new Map(this.toolCallIds.slice(0, this.count).map((id, index) => [id, index]));
  }

  admitted(toolCallId: string): void {
    this.mark(toolCallId, ADMITTED);
  }

  /** The tool's `execute` settled (before the after-tool hooks and before the loop reports the call's end in call order). */
  settled(toolCallId: string): void {
    this.mark(toolCallId, ENDED);
  }

  /** Ends the call (when it had not settled yet); answers whether it was announced. */
  ended(toolCallId: string): boolean {
    return this.mark(toolCallId, ENDED);
  }

  /** When an announced call ended (`NaN` while it runs). */
  endedAt(toolCallId: string): number {
    const slot = this.slotOf(toolCallId);
    return slot === undefined ? Number.NaN : this.moments[slot * MOMENTS + ENDED]!;
  }

  /** An announced call's timing, as if it ended at `endedAt`; undefined for a call never announced. */
  timing(toolCallId: string, endedAt: number): ToolCallTiming | undefined {
    const slot = this.slotOf(toolCallId);
    return slot === undefined ? undefined : this.timingOf(toolCallId, slot, endedAt);
  }

  /** Every call in announcement order, in a list exactly that long (an outcome may be kept long after its turn); `now` ends a call still running. */
  timings(now: number): ToolCallTiming[] {
    const timings = new Array<ToolCallTiming>(this.count);
    for (let slot = 0; slot < this.count; slot++) {
      const endedAt = this.moments[slot * MOMENTS + ENDED]!;
      timings[slot] = this.timingOf(this.toolCallIds[slot]!, slot, Number.isNaN(endedAt) ? now : endedAt);
    }
    return timings;
  }

  /** Records `moment` of the call now, unless it was recorded already; false for a call never announced. */
  private mark(toolCallId: string, moment: number): boolean {
    const slot = this.slotOf(toolCallId);
    if (slot === undefined) return false;
    const index = slot * MOMENTS + moment;
    if (Number.isNaN(this.moments[index])) this.moments[index] = this.clock.now();
    return true;
  }

  /** The slot of an announced call, `undefined` for one never announced. */
  private slotOf(toolCallId: string): number | undefined {
    const slots = this.slots;
    const oldest = slots ? this.count - NEWEST : 0;
    for (let slot = this.count - 1; slot >= oldest; slot--) if (this.toolCallIds[slot] === toolCallId) return slot;
    return slots?.get(toolCallId);
  }

  /** Room for half as many calls again (four at first), every moment `NaN`. */
  private makeRoom(): void {
    const capacity = Math.max(4, this.toolNames.length + (this.toolNames.length >> 1));
    const toolCallIds = new Array<string>(capacity);
    const toolNames = new Array<string>(capacity);
    const moments = new Array<number>(capacity * MOMENTS).fill(Number.NaN);
    for (let index = 0; index < this.toolNames.length; index++) {
      toolCallIds[index] = this.toolCallIds[index]!;
      toolNames[index] = this.toolNames[index]!;
    }
    for (let index = 0; index < this.moments.length; index++) moments[index] = this.moments[index]!;
    this.toolCallIds = toolCallIds;
    this.toolNames = toolNames;
    this.moments = moments;
  }

  private timingOf(toolCallId: string, slot: number, endedAt: number): ToolCallTiming {
    const announcedAt = this.moments[slot * MOMENTS + ANNOUNCED]!;
    const admittedAt = this.moments[slot * MOMENTS + ADMITTED]!;
    const ran = !Number.isNaN(admittedAt);
    return {
      toolCallId,
      toolName: this.toolNames[slot]!,
      queuedMs: millis((ran ? admittedAt : endedAt) - announcedAt),
      runMs: ran ? millis(endedAt - admittedAt) : 0,
    };
  }
}
