import { setImmediate as nextTurn } from "node:timers/promises";
import { TURN_DEFAULTS } from "../../defaults.js";

/**
 * Lets a loop of synchronous work give the event loop a turn once it has
 * run for `budgetMs` (default {@link TURN_DEFAULTS.searchSliceMs}) since the last turn.
 * The loop then blocks the event loop for at most the budget plus one step
 * (one folder listed or one file read).
 *
 * Why synchronous work at all: `grep` and `glob` list folders and read
 * files with the synchronous `fs` calls, which cost a tenth of the CPU of
 * `fs/promises` ones per small file (no thread-pool round trips). That is
 * what keeps a search of a large repository near `grep -rn`; the slices
 * keep other work (streams, timers, parallel tools) running meanwhile.
 */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly budgetMs = TURN_DEFAULTS.searchSliceMs) {}

  /** Returns at once inside the budget; otherwise waits one event-loop turn and starts a new slice. Throws `signal`'s reason when it has fired. */
  async yieldIfDue(signal?: AbortSignal): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await nextTurn();
    signal?.throwIfAborted();
    this.started = performance.now();
  }
}
