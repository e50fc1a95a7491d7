import { statSync } from "node:fs";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpTransportSettings } from "./mcp-options.js";
import { authorizeAfterRedirect } from "./oauth-provider.js";
import { STDIO_CHUNK_ALLOWANCE_BYTES, fetchBoundingMessages } from "./message-size-limit.js";
import { fetchReadableMessages } from "./readable-messages.js";
import { fetchPacingEmptyStreams } from "./empty-stream-pacing.js";
import { fetchRetryingStaleSockets } from "./stale-socket-retry.js";
import { fetchClosingCancelledRequests } from "./cancelled-requests.js";
import { fetchRefusingUnansweredJson } from "./unanswered-json.js";
import { fetchEndingUnansweredStreams } from "./unanswered-stream.js";
import type { StderrTail } from "./stderr-tail.js";
import { StdioProcessTransport } from "./stdio-process-transport.js";
import type { StrayOutput } from "./stray-output.js";

/** A client transport plus what the connection needs to know about it. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** Ends an HTTP session politely (a DELETE); nothing for stdio. Rejects on failure. */
  readonly endSession: () => Promise<void>;
  /** The stdio server's process id once it started (kept after it ended); `undefined` for HTTP or before the start. */
  readonly pid: () => number | undefined;
  /** The stdio server's process marker (see `SERVER_PROCESS_MARKER_VARIABLE`); `undefined` for HTTP. */
  readonly marker: string | undefined;
  /** Resolves once the stdio server's process exited (or could not start); resolved for HTTP. */
  readonly exited: Promise<void>;
  /** After the transport ended: the pipe a stdio server closed while its process lives on; `undefined` when it exited, and for HTTP. */
  readonly closedPipe: () => "stdout" | "stdin" | undefined;
  /**
   * After a failed connect: when the server asked for OAuth authorization,
   * runs the host's authorization step and exchanges its code for tokens,
   * and resolves `true` (connect again); otherwise `false`.
   */
  readonly authorize: () => Promise<boolean>;
}

/**
 * Builds the SDK client transport for the settings. Nothing is started
 * here: the client starts it on connect. A stdio server's stderr is piped
 * into `stderr` instead of the host's terminal. Over HTTP, a cancelled call
 * closes its request (a stateless server learns of it so; see
 * `fetchClosingCancelledRequests`), and a request answered with JSON (or,
 * an event stream that ends, not resumable, without answering it) fails at
 * once (see `fetchRefusingUnansweredJson`, `fetchEndingUnansweredStreams`).
 * A request whose pooled socket the server had closed is sent once more
 * (see `fetchRetryingStaleSockets`), and a GET whose stream the server
 * ended at once without a message is not sent again within a second (see
 * `fetchPacingEmptyStreams`). Members a server writes as null
 * where the protocol takes none are read as absent, and a message the
 * protocol's schema refuses fails only the request it answers, or is
 * dropped (see `fetchReadableMessages`).
 *
 * A stdio server runs on our `StdioProcessTransport`, whose connection
 * ends when the process's stdout ends or its stdin breaks, also when the
 * process lives on. A line it writes that is no JSON-RPC message (a banner,
 * a log line) is dropped and goes to `onStrayLine`.
 *
 * No message from the server is read past `maxMessageBytes` (over stdio,
 * past one pipe chunk more). Over stdio the transport drops such a message and
 * closes (its error is told apart by `isStdioMessageTooLarge`);
 * over HTTP the answer is cancelled and `onMessageTooLarge()` is called.
 *
 * The Streamable HTTP transport is loaded only when a server needs it: a
 * host with stdio servers only never loads the SDK's HTTP and event-stream
 * code (whose dependencies publish TypeScript sources under a `source`
 * export condition, which hosts running with that condition cannot load).
 */
export async function createTransport(
  settings: McpTransportSettings,
  stderr: StderrTail,
  reading: {
    readonly maxMessageBytes: number;
    readonly onMessageTooLarge: () => void;
    /**
     * A stdio server wrote a line that is no message for this client, or an
     * HTTP server sent a message that is no valid JSON-RPC message
     * (`unreadable_message`, with the schema's `problem`): it was dropped.
     */
    readonly onStrayLine: (line: string, what: StrayOutput, problem?: string) => void;
  },
): Promise<OpenedTransport> {
  switch (settings.kind) {
    case "stdio": {
      const transport = new StdioProcessTransport({
        command: settings.command,
        args: settings.args,
        env: settings.env,
        ...(settings.cwd !== undefined && { cwd: settings.cwd }),
        maxBufferSize: reading.maxMessageBytes + STDIO_CHUNK_ALLOWANCE_BYTES,
        onStderr: (chunk) => stderr.append(chunk),
        onStrayLine: reading.onStrayLine,
      });
      return {
        transport,
        endSession: async () => {},
        pid: () => transport.pid,
        marker: transport.marker,
        exited: transport.exited,
        closedPipe: () => transport.closedPipe(),
        authorize: async () => false,
      };
    }
    case "http": {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      const { auth } = settings;
      const transport: InstanceType<typeof StreamableHTTPClientTransport> = new StreamableHTTPClientTransport(
        settings.url,
        {
          requestInit: { headers: { ...settings.headers } },
          // A cancelled call's request is closed: a stateless server (no session id) learns of it only so.
          fetch: fetchRefusingUnansweredJson(
            fetchEndingUnansweredStreams(
              fetchReadableMessages(
                (text, problem) => reading.onStrayLine(text, "unreadable_message", problem),
                fetchBoundingMessages(
                  reading.maxMessageBytes,
                  reading.onMessageTooLarge,
                  fetchClosingCancelledRequests(
                    () => transport.sessionId === undefined,
                    fetchPacingEmptyStreams(fetchRetryingStaleSockets(fetch)),
                  ),
                ),
              ),
            ),
          ),
          ...(auth && { authProvider: auth }),
        },
      );
      return {
        transport,
        endSession: () => transport.terminateSession(),
        pid: () => undefined,
        marker: undefined,
        exited: Promise.resolve(),
        closedPipe: () => undefined,
        authorize: async () => (auth ? authorizeAfterRedirect(auth, (code) => transport.finishAuth(code)) : false),
      };
    }
    default: {
      const unreachable: never = settings;
      return unreachable;
    }
  }
}

/**
 * Why a stdio server's process could not be spawned, in words. Node reports
 * a working directory that does not exist as the command not found
 * (`spawn node ENOENT`), which sends the host looking at the wrong option:
 * that case names `server.cwd` instead.
 */
export function spawnFailure(error: Error, cwd: string | undefined): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT" && cwd !== undefined && !isDirectory(cwd))
    return `its working directory ${JSON.stringify(cwd)} (server.cwd) is not a directory that exists (${error.message})`;
  return error.message;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
