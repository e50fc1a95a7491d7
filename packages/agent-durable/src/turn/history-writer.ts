import type { HistoryChange } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import type { SessionHistory } from "../store/session-history.js";
import type { TurnClaim } from "../store/turn-claim.js";

const WRITE_ATTEMPTS = 5;

/**
 * A change waiting to be written: a delta at its first position, a
 * replacement with its number in the turn (0 for a delta), and how many
 * replacements the turn had made before it.
 */
interface QueuedChange {
  change: HistoryChange;
  /** Its number among the changes taken, from 0. */
  index: number;
  position: number;
  /** Where this execution's writes began to follow each other: the turn's start, or 0 after a replacement. */
  after: number;
  replacement: number;
  replacementsBefore: number;
}
const WRITE_RETRY_BASE_MS = 100;

/**
 * Stores a durable turn's history changes in the session history, in the
 * order the runner made them, each message at a position fixed when the
 * change arrives and each replacement under its number in the turn (so
 * writing a change again, in a replay, stores nothing twice, and a
 * replacement an earlier execution wrote is not written over the messages
 * it appended after it, nor are the changes before it written again).
 *
 * {@link take} is synchronous: the runner's history hook never waits, so
 * the runner can never give up on it after an abort, and no change is ever
 * skipped. The writes run in the background, one at a time, retried when
 * Postgres fails; a change that still cannot be written stays first in the
 * queue for the next change or {@link flush} to write again (nothing after
 * it is written before it); {@link flush} waits for them. The event writer waits for
 * it before it logs a `message.persisted` event or the terminal status, so
 * the log never announces a message the store does not hold yet, and it
 * announces the messages as stored ({@link storedMessages}).
 */
export class HistoryWriter {
  /** Messages the session history holds once every change so far is written. */
  private length = 0;
  /** The position from which the changes taken so far are written one after the other (see `SessionHistory.append`). */
  private after = 0;
  /** Replacements taken so far: each is written as the turn's replacement number n, so a replay's is stored once. */
  private replacements = 0;
  private readonly queue: QueuedChange[] = [];
  private writing: Promise<void> | undefined;
  private failure: unknown;
  /** What the history holds for each change written, by its number in the order taken (the order the runner announces them). */
  private readonly stored: (AgentMessage[] | undefined)[] = [];
  /** Changes taken so far. */
  private taken = 0;

  constructor(
    private readonly history: SessionHistory,
    /** The execution's claim on the turn: every write carries it. */
    private readonly claim: TurnClaim,
    private readonly sessionId: string,
  ) {}

  /** How many messages the session history holds once every change taken so far is written. */
  get storedLength(): number {
    return this.length;
  }

  /** Starts counting positions after the history the turn started from. */
  startAfter(length: number): void {
    this.length = length;
    this.after = length;
  }

  /** Queues one change for writing; never blocks, never throws. */
  take(change: HistoryChange): void {
    const replacementsBefore = this.replacements;
    const replacement = change.reason === "messageDelta" ? 0 : ++this.replacements;
    this.queue.push({
      change,
      index: this.taken++,
      position: this.length,
      after: this.after,
      replacement,
      replacementsBefore,
    });
    if (change.reason === "messageDelta") this.length += change.messages.length;
    else {
      // A replacement writes the whole history: what follows it follows its messages, from position 0.
      this.length = change.messages.length;
      this.after = 0;
    }
    this.writing ??= this.writeLoop();
  }

  /**
   * The messages the session history holds for the `index`-th change taken
   * (from 0), once written: a replay's message at a position an earlier
   * execution stored is the earlier one. `undefined` for a replacement, or
   * a change not written (yet). The runner announces the changes it hands
   * its history hooks in the order they were taken, and announces none
   * after one it did not (a hook failed, the turn settled), so the k-th
   * `message.persisted` of the turn is the k-th change: a key that holds
   * whatever a hook does to the lists it is handed.
   */
  storedMessages(index: number): AgentMessage[] | undefined {
    return this.stored[index];
  }

  /**
   * Resolves once every change taken so far is stored, writing again what an
   * earlier write could not; rejects with `history_write` if that still
   * fails, `superseded` once another worker took the turn over.
   */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queue.length > 0 && !this.claim.revoked.aborted) {
      this.writing = this.writeLoop();
      await this.writing;
    }
    if (this.failure !== undefined) {
      if (this.claim.revoked.aborted) throw this.claim.revoked.reason;
      throw new DurableTurnError({
        code: DurableTurnErrorCode.HistoryWrite,
        message: `the session history could not be written: ${String(this.failure)}`,
        cause: this.failure,
      });
    }
  }

  private async writeLoop(): Promise<void> {
    for (let next = this.queue[0]; next; next = this.queue[0]) {
      try {
        await this.writeWithRetry(next);
        this.queue.shift();
        this.failure = undefined;
      } catch (error) {
        // Stays first in the queue for the next change or flush: nothing after it is written before it.
        this.failure = error;
        break;
      }
    }
    this.writing = undefined;
  }

  /** Writes one change, trying again after a failure; throws the last error after {@link WRITE_ATTEMPTS}. */
  private async writeWithRetry({
    change,
    index,
    position,
    after,
    replacement,
    replacementsBefore,
  }: QueuedChange): Promise<void> {
    const { claim, sessionId } = this;
    for (let attempt = 1; ; attempt++) {
      try {
        if (change.reason === "messageDelta")
          this.stored[index] = await this.history.append(
            claim,
            sessionId,
            { position, replacementsBefore, after },
            change.messages,
          );
        else await this.history.replace(claim, sessionId, change.messages, replacement);
        return;
      } catch (error) {
        // Taken over by another worker: writing again cannot succeed.
        if (attempt >= WRITE_ATTEMPTS || claim.revoked.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_BASE_MS * 2 ** (attempt - 1)));
      }
    }
  }
}
