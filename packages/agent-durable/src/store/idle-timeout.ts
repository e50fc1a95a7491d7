import { POOL_IDLE_MAX_MS } from "../defaults.js";

/**
 * How long a pool whose statements give up after `queryTimeoutMs` keeps a
 * connection open idle: {@link POOL_IDLE_MAX_MS}, or `queryTimeoutMs` when
 * that is shorter. A connection that died without a word while idle (the
 * network dropped its packets) is found dead only by a statement that
 * waits `queryTimeoutMs` on it; by the time that statement gives up, every
 * connection that was idle since the loss has been closed, so the loss
 * costs a turn one statement's timeout. With connections kept idle longer
 * than a statement may take, the next statements found them one by one,
 * each after its own timeout.
 */
export function idleTimeoutFor(queryTimeoutMs: number): number {
  return Math.min(POOL_IDLE_MAX_MS, queryTimeoutMs);
}
