import { Socket } from "node:net";
import { performance } from "node:perf_hooks";

/**
 * A connection's socket that notes since when it waits for the server:
 * from the first write after the server last sent something, until the
 * server sends something again.
 */
class AnswerWatchedSocket extends Socket {
  /** When (`performance.now()`) this socket sent what the server has not answered yet; undefined when nothing waits. */
  waitingSince: number | undefined;

  constructor() {
    super();
    this.on("data", () => {
      this.waitingSince = undefined;
    });
  }

  // Socket.write's overloads, passed on as they are.
  override write(chunk: any, encoding?: any, callback?: any): boolean {
    this.waitingSince ??= performance.now();
    return super.write(chunk, encoding, callback);
  }
}

/**
 * The sockets of every connection a set of pools opens (each pool's
 * `stream` option is {@link open}), so that they can all be closed at once
 * ({@link destroyAll}) however their statements stand: a statement the
 * database does not answer fails at once instead of holding its pool open.
 * A socket leaves the set when it closes.
 */
export class ConnectionSockets {
  private readonly sockets = new Set<AnswerWatchedSocket>();

  /** A new socket for one connection (pass as a pool's `stream` option). */
  readonly open = (): Socket => {
    const socket = new AnswerWatchedSocket();
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    return socket;
  };

  /**
   * How long (ms) the open socket that has waited longest for the server
   * has waited: since it sent what the server has not answered at all yet
   * (a statement, a connection's startup); 0 when none waits. Sees plain
   * connections only: on one the driver wrapped in TLS, what goes over the
   * TLS layer is not seen.
   */
  longestWaitMs(): number {
    const now = performance.now();
    let longest = 0;
    for (const socket of this.sockets)
      if (socket.waitingSince !== undefined) longest = Math.max(longest, now - socket.waitingSince);
    return longest;
  }

  /** Closes every socket still open, without waiting for the database. */
  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
