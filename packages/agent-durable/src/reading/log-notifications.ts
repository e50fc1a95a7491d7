import pg from "pg";
import { onAbort } from "@turnkit/agent-loop/internal";
import { EVENTS_CHANNEL } from "../defaults.js";

/** A watch on one turn's notifications, started before a read so that none arriving after it is missed. */
export interface LogWatch {
  /** Resolves at once when a notification arrived since the watch started, else at the next one, after `timeoutMs`, or when `signal` fires. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Stops the watch (a wait in progress resolves). */
  stop(): void;
}

/**
 * Wakes followers when the event log announces new events of their turn
 * (Postgres `LISTEN` on one connection per instance, opened on first use).
 * A follower starts a {@link watch} before it reads the log and waits on it
 * after: a notification that arrives in between is not missed. A missed or
 * late notification (a connection lost) only delays a follower until its
 * next timed read; it never loses an event.
 */
export class LogNotifications {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly watches = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    /** How long opening the connection may take; a watch started meanwhile waits no longer for it. */
    private readonly connectTimeoutMs: number,
    /** How long its `LISTEN` may go unanswered. */
    private readonly queryTimeoutMs: number,
  ) {}

  /** Starts watching `turnKey` once this instance listens (a failed connection is retried at the next watch). */
  async watch(turnKey: string): Promise<LogWatch> {
    await this.ensureListening().catch(() => {});
    let notified = this.closed;
    let wake: (() => void) | undefined;
    const watches = this.watches.get(turnKey) ?? new Set();
    this.watches.set(turnKey, watches);
    const onNotification = () => {
      notified = true;
      wake?.();
    };
    watches.add(onNotification);
    const stop = () => {
      watches.delete(onNotification);
      if (watches.size === 0 && this.watches.get(turnKey) === watches) this.watches.delete(turnKey);
      onNotification();
    };
    return {
      stop,
      wait: (timeoutMs, signal) => {
        if (notified || signal?.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          // The host's signal may be shared by any number of reads: its one shared listener, not one per wait.
          const stopListening = signal ? onAbort(signal, () => done()) : undefined;
          const done = () => {
            clearTimeout(timer);
            stopListening?.();
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          wake = done;
        });
      },
    };
  }

  /** Closes the connection and releases every watch. */
  async close(): Promise<void> {
    this.closed = true;
    for (const watches of this.watches.values()) for (const notify of [...watches]) notify();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private ensureListening(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.databaseUrl,
        connectionTimeoutMillis: this.connectTimeoutMs,
        query_timeout: this.queryTimeoutMs,
      });
      client.on("error", () => {
        if (this.client === client) this.client = undefined;
      });
      client.on("notification", (message) => {
        for (const notify of [...(this.watches.get(message.payload ?? "") ?? [])]) notify();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      if (this.closed) await client.end().catch(() => {});
      else this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
