import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import { FOLLOW_POLL_MS } from "../defaults.js";
import type { EventLog } from "../store/event-log.js";
import type { LogNotifications } from "./log-notifications.js";

/** Events read from the log per round trip while following. */
const FOLLOW_PAGE = 1_000;

/**
 * Every logged event of turn `turnKey` after `afterSeq`, then new ones as
 * they are written, in seq order with no gap and no repeat; ends after the
 * terminal `session.status`, or when `signal` fires. Waits for a
 * notification between reads (or {@link FOLLOW_POLL_MS} when none comes).
 */
export async function* followLog(
  log: EventLog,
  notifications: LogNotifications,
  turnKey: string,
  options: { afterSeq?: number; signal?: AbortSignal },
): AsyncGenerator<RuntimeEvent> {
  let last = options.afterSeq ?? 0;
  while (!options.signal?.aborted) {
    // Watching before the read: a notification of events written after the read's snapshot wakes the wait.
    const watch = await notifications.watch(turnKey);
    try {
      const events = await log.read(turnKey, last, FOLLOW_PAGE);
      for (const event of events) {
        if (event.seq !== last + 1) break; // not yet committed in order; read again
        last = event.seq;
        yield event;
        if (isTerminalEvent(event)) return;
      }
      if (events.length < FOLLOW_PAGE) await watch.wait(FOLLOW_POLL_MS, options.signal);
    } finally {
      watch.stop();
    }
  }
}
