import { createServer, type Server, type Socket, connect as connectSocket } from "node:net";

/**
 * One connection through the proxy; what each side sent while frozen, when the proxy reads on (see `noticeHangUps`);
 * whether its sides are piped to each other now (a second pipe would pass every byte twice).
 */
interface Pair {
  down: Socket;
  up: Socket;
  held: { toUp: Buffer[]; toDown: Buffer[] };
  joined: boolean;
}

/**
 * A TCP proxy to Postgres that can stop passing bytes either way (and take
 * new connections nowhere) and go on, as a paused server or a network that
 * drops everything would. Frozen, it stops reading both sides; with
 * `noticeHangUps` it reads on instead, holding what each side sends until
 * it thaws, so a side that hangs up is noticed and its connection dropped:
 * {@link openConnections} then counts what the client left open.
 */
export class FreezingProxy {
  private readonly pairs = new Set<Pair>();
  private frozen = false;
  private readonly server: Server;
  private connections = 0;
  private freezeAt = Number.POSITIVE_INFINITY;
  private thawAfterMs: number | undefined;
  private thawTimer: NodeJS.Timeout | undefined;

  constructor(
    target: { host: string; port: number },
    private readonly noticeHangUps = false,
    /** How long each chunk from the server is held before it is passed on (a slow network); 0: none. Not with {@link freeze}. */
    private readonly answerDelayMs = 0,
  ) {
    this.server = createServer((down) => {
      if (++this.connections >= this.freezeAt) {
        this.freeze();
        if (this.thawAfterMs !== undefined) this.thawTimer = setTimeout(() => this.thaw(), this.thawAfterMs);
        this.freezeAt = Number.POSITIVE_INFINITY;
      }
      const up = connectSocket(target.port, target.host);
      const pair: Pair = { down, up, held: { toUp: [], toDown: [] }, joined: false };
      this.pairs.add(pair);
      const drop = () => {
        down.destroy();
        up.destroy();
        this.pairs.delete(pair);
      };
      down.on("error", drop).on("close", drop);
      up.on("error", drop).on("close", drop);
      if (this.noticeHangUps) {
        down.on("data", (chunk: Buffer) => (this.frozen ? pair.held.toUp.push(chunk) : up.write(chunk)));
        up.on("data", (chunk: Buffer) => (this.frozen ? pair.held.toDown.push(chunk) : down.write(chunk)));
      } else if (this.frozen) down.pause();
      else this.join(pair);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as { port: number }).port;
  }

  /** Stops passing bytes, either way, on every connection, and on those that come in later. */
  freeze(): void {
    this.frozen = true;
    if (this.noticeHangUps) return;
    for (const pair of this.pairs) this.split(pair);
  }

  /**
   * Stops passing bytes, either way, on the connections whose port on the
   * proxy's side of Postgres (the server's `client_port`) is in
   * `clientPorts`, as a network that dropped them without a word would;
   * the other connections, and those that come in later, pass, until
   * {@link thaw}.
   */
  freezeConnections(clientPorts: ReadonlySet<number>): void {
    for (const pair of this.pairs) {
      if (pair.up.localPort !== undefined && clientPorts.has(pair.up.localPort)) this.split(pair);
    }
  }

  /**
   * Freezes (see {@link freeze}) when the `n`-th connection since this proxy started comes in, before it passes a
   * byte; with `thawAfterMs`, thaws that long after that freeze (not after this call: a slow client may reach its
   * `n`-th connection late).
   */
  freezeAtConnection(n: number, thawAfterMs?: number): void {
    this.freezeAt = n;
    this.thawAfterMs = thawAfterMs;
  }

  /** How many connections came in since this proxy started. */
  get connectionsSoFar(): number {
    return this.connections;
  }

  /** How many connections pass through the proxy now. */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** Passes on what was held, and everything after it. Connections that pass already go on as they were. */
  thaw(): void {
    clearTimeout(this.thawTimer);
    this.freezeAt = Number.POSITIVE_INFINITY;
    this.frozen = false;
    for (const pair of this.pairs) {
      if (!this.noticeHangUps) {
        if (!pair.joined) this.join(pair);
        continue;
      }
      for (const chunk of pair.held.toUp.splice(0)) pair.up.write(chunk);
      for (const chunk of pair.held.toDown.splice(0)) pair.down.write(chunk);
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.thawTimer);
    for (const { down, up } of this.pairs) {
      down.destroy();
      up.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Stops passing bytes either way on `pair`. */
  private split(pair: Pair): void {
    pair.down.unpipe(pair.up);
    pair.up.unpipe(pair.down);
    pair.down.pause();
    pair.up.pause();
    pair.joined = false;
  }

  /** Pipes `pair`'s sides to each other; called only while they are not (see {@link Pair}). */
  private join(pair: Pair): void {
    const { down, up } = pair;
    pair.joined = true;
    down.pipe(up);
    if (this.answerDelayMs === 0) up.pipe(down);
    // Chunks held for the same time are passed on in the order they came.
    else up.on("data", (chunk: Buffer) => setTimeout(() => down.write(chunk), this.answerDelayMs));
  }
}

/** `databaseUrl` with its host and port replaced by a new {@link FreezingProxy}'s, listening; and the proxy. */
export async function proxiedDatabase(
  databaseUrl: string,
  options: { noticeHangUps?: boolean; answerDelayMs?: number } = {},
): Promise<{ proxy: FreezingProxy; url: string }> {
  const url = new URL(databaseUrl);
  const proxy = new FreezingProxy(
    { host: url.hostname, port: Number(url.port) },
    options.noticeHangUps,
    options.answerDelayMs,
  );
  url.port = String(await proxy.listen());
  return { proxy, url: url.toString() };
}
