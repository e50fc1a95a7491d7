import { Socket } from "node:net";

/**
 * The sockets of every connection a set of pools opens (each pool's
 * `stream` option is {@link open}), so that they can all be closed at once
 * ({@link destroyAll}) however their statements stand: a statement the
 * database does not answer fails at once instead of holding its pool open.
 * A socket leaves the set when it closes.
 */
export class ConnectionSockets {
  private readonly sockets = new Set<Socket>();

  /** A new socket for one connection (pass as a pool's `stream` option). */
  readonly open = (): Socket => {
    const socket = new Socket();
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    return socket;
  };

  /** Closes every socket still open, without waiting for the database. */
  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
