import type { AgentMessage, QueueMode } from "./types.js";

/**
 * A FIFO of message batches for steering or follow-ups. One `steer()` is a
 * batch of one; `steerBatch()` is one batch of several that is always
 * delivered together. `one-at-a-time` hands out one batch per poll, `all`
 * every queued batch.
 */
export class MessageQueue {
  private batches: AgentMessage[][] = [];

  constructor(public mode: QueueMode) {}

  /** Adds one batch (copied). Empty batches are ignored. */
  enqueue(batch: readonly AgentMessage[]): void {
    if (batch.length > 0) this.batches.push([...batch]);
  }

  /** Removes and returns the messages of the next poll, per `mode`. */
  drain(): AgentMessage[] {
    if (this.batches.length === 0) return [];
    if (this.mode === "one-at-a-time") return this.batches.shift() ?? [];
    const all = this.batches.flat();
    this.batches = [];
    return all;
  }

  /** Drops every queued batch. */
  clear(): void {
    this.batches = [];
  }

  /** True when at least one batch is queued. */
  get hasItems(): boolean {
    return this.batches.length > 0;
  }
}
