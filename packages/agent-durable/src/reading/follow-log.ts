import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import { FOLLOW_POLL_MS } from "../defaults.js";
import type { EventLog } from "../store/event-log.js";
import type { LogNotifications } from "./log-notifications.js";

/** Options of `DurableTurnClient.follow`: where to start reading and when to stop. */
export interface FollowOptions {
  /** Start after this seq (the last one a reader saw); default 0, from the first event. */
  afterSeq?: number;
  /** Stops following (the iterator ends) when it fires. */
  signal?: AbortSignal;
}

/** Events read from the log per round trip while following. */
const FOLLOW_PAGE = 1_000;

/**
 * Every logged event of turn `turnKey` after `afterSeq`, then new ones as
 * they are written, in seq order with no gap and no repeat; ends after the
 * terminal `session.status`, at once when the log ended at or before
 * `afterSeq` (a reader that reconnects after it saw the ending: nothing more
 * will come), or when `signal` fires. Waits for a notification between
 * reads (or {@link FOLLOW_POLL_MS} when none comes).
 *
 * `failure` says whether the turn ended without its terminal status (its
 * workflow failed: the error, else `undefined`); asked whenever a read finds
 * nothing new. Then every event the turn logged is read, and the follow
 * rejects with that error instead of waiting for an ending that never comes.
 */
export async function* followLog(
  log: EventLog,
  notifications: LogNotifications,
  turnKey: string,
  options: FollowOptions & { failure?: () => Promise<Error | undefined> },
): AsyncGenerator<RuntimeEvent> {
  let last = options.afterSeq ?? 0;
  let failure: Error | undefined;
  while (!options.signal?.aborted) {
    // Watching before the read: a notification of events written after the read's snapshot wakes the wait.
    const watch = await notifications.watch(turnKey);
    try {
      const events = await log.read(turnKey, last, FOLLOW_PAGE);
      const before = last;
      for (const event of events) {
        if (event.seq !== last + 1) break; // not yet committed in order; read again
        last = event.seq;
        yield event;
        if (isTerminalEvent(event)) return;
      }
      if (last > before && events.length === FOLLOW_PAGE) continue;
      // Found failed at the read before this one: everything the turn logged before it ended is read now.
      if (failure) throw failure;
      if (last === before) {
        // Nothing new: the log may have ended before where the reader stands, or the turn ended without an ending.
        const [ending, failed] = await Promise.all([log.terminal(turnKey), options.failure?.()]);
        if (ending !== undefined && ending.seq <= last) return;
        failure = failed;
      }
      if (!failure) await watch.wait(FOLLOW_POLL_MS, options.signal);
    } finally {
      watch.stop();
    }
  }
}
