import type { Clock } from "@turnkit/agent-core";
import type { McpRestartPolicy } from "./mcp-options.js";

/**
 * The restart policy's bookkeeping for one server: how many restarts in a
 * row were made, when the next one may be, and forgiveness after a healthy
 * period. Time comes from `clock`; nothing here starts a timer.
 */
export class RestartSchedule {
  /** Restarts in a row since the server was last healthy. */
  private inARow = 0;
  /** Restarts over the extension's life. */
  private made = 0;
  private readySince: number | undefined;
  private lostAt: number | undefined;

  constructor(
    private readonly policy: Required<McpRestartPolicy>,
    private readonly clock: Clock,
  ) {}

  /** Restarts in a row since the server was last healthy (what `maxRestarts` limits). */
  get restarts(): number {
    return this.inARow;
  }

  /** Restarts over the extension's life. */
  get totalRestarts(): number {
    return this.made;
  }

  /** True when the next loss may not be followed by a restart: `maxRestarts` in a row are used. */
  get exhausted(): boolean {
    return this.inARow >= this.policy.maxRestarts;
  }

  /** The connection is ready: its healthy period starts now. */
  connected(): void {
    this.readySince = this.clock.now();
  }

  /**
   * The connection was lost or could not be made. A connection that had been
   * ready for `healthyAfterMs` is forgiven first: the count starts from 0.
   */
  lost(): void {
    this.forgiveIfHealthy();
    this.readySince = undefined;
    this.lostAt = this.clock.now();
  }

  /** Starts the count again from 0 when the current connection has been ready long enough; true if it did. */
  forgiveIfHealthy(): boolean {
    if (this.readySince === undefined || this.inARow === 0) return false;
    if (this.clock.now() - this.readySince < this.policy.healthyAfterMs) return false;
    this.inARow = 0;
    return true;
  }

  /** How long until the next restart may be made, in ms; 0 when it is due (the first in a row always is). */
  dueInMs(): number {
    if (this.lostAt === undefined || this.inARow === 0) return 0;
    const wait = Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** (this.inARow - 1));
    return Math.max(0, this.lostAt + wait - this.clock.now());
  }

  /** A restart begins. */
  begin(): void {
    this.inARow += 1;
    this.made += 1;
  }

  /** The host asked to start over (an explicit `connect()` after giving up): the count starts from 0. */
  startOver(): void {
    this.inARow = 0;
  }
}
