import pg from "pg";
import { EVENTS_CHANNEL } from "../defaults.js";

/**
 * Wakes followers when the event log announces new events of their turn
 * (Postgres `LISTEN` on one connection per instance, opened on first use).
 * A missed or late notification only delays a follower until its next
 * timed read; it never loses an event.
 */
export class LogNotifications {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(private readonly databaseUrl: string) {}

  /** Resolves when `turnKey` gets new events, after `timeoutMs`, or when `signal` fires, whichever is first. */
  async wait(turnKey: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await this.ensureListening().catch(() => {});
    if (signal?.aborted || this.closed) return;
    await new Promise<void>((resolve) => {
      const waiters = this.waiters.get(turnKey) ?? new Set();
      this.waiters.set(turnKey, waiters);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(turnKey) === waiters) this.waiters.delete(turnKey);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener("abort", done, { once: true });
      waiters.add(done);
    });
  }

  /** Closes the connection and releases every waiter. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiters of this.waiters.values()) for (const done of [...waiters]) done();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private ensureListening(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      client.on("error", () => {
        if (this.client === client) this.client = undefined;
      });
      client.on("notification", (message) => {
        for (const done of [...(this.waiters.get(message.payload ?? "") ?? [])]) done();
      });
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (this.closed) await client.end().catch(() => {});
      else this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
