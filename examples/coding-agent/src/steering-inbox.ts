import type { TurnInputMessage } from "@turnkit/agent-core";

/**
 * Messages the user typed while a turn runs: steering (for the running
 * turn) and follow-ups (each runs as a turn of its own afterwards).
 *
 * The running turn drains steering through `getSteeringMessages` at each
 * step end, and may only close when no steering waits (`tryBeginClose`), so
 * a message typed just as the agent finishes still reaches it. Anything
 * left when a turn ended anyway (an abort) is the host's to decide.
 */
export class SteeringInbox {
  private steering: string[] = [];
  private followUps: string[] = [];

  /** Queues steering for the running turn. Blank text is ignored. */
  steer(text: string): void {
    if (text.trim() !== "") this.steering.push(text.trim());
  }

  /** Queues a follow-up: it runs as the next turn. Blank text is ignored. */
  queueFollowUp(text: string): void {
    if (text.trim() !== "") this.followUps.push(text.trim());
  }

  /** `RunTurnInput.getSteeringMessages`: everything queued, once. */
  readonly getSteeringMessages = (): TurnInputMessage[] => this.steering.splice(0).map((text) => ({ text }));

  /** `RunTurnInput.tryBeginClose`: the turn may end only when no steering waits. */
  readonly tryBeginClose = (): boolean => this.steering.length === 0;

  /** The next follow-up, or steering that arrived too late for its turn; `undefined` when none. */
  takeNextTask(): string | undefined {
    if (this.steering.length > 0) return this.steering.splice(0).join("\n");
    return this.followUps.shift();
  }

  /** Forgets everything queued (after an abort); returns how many messages were dropped. */
  clear(): number {
    const dropped = this.steering.length + this.followUps.length;
    this.steering = [];
    this.followUps = [];
    return dropped;
  }

  /** How many follow-ups wait. */
  get pendingFollowUps(): number {
    return this.followUps.length;
  }
}
