import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import spawn from "cross-spawn";
import { PIPE_END_EXIT_WAIT_MS, SERVER_PROCESS_MARKER_VARIABLE } from "./defaults.js";
import { withoutNullInitializeFields } from "./null-fields.js";
import { SplitMessageWatch } from "./split-message.js";
import { StdoutLines } from "./stdout-lines.js";
import { type StrayOutput, readStdoutLine } from "./stray-output.js";

/** How to start a stdio server's process, and where its stderr goes. */
export interface StdioProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the SDK's default environment (`HOME`, `PATH`, …), as the SDK's own transport does. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The most bytes of stdout held while a line is not complete; more fails the transport (see `isStdioMessageTooLarge`). */
  readonly maxBufferSize: number;
  /** Every chunk the process writes to stderr. */
  readonly onStderr: (chunk: Buffer) => void;
  /**
   * Every line on stdout that is no message for this client, or that holds
   * a request or notification the schema refuses (`unreadable_message`,
   * with its `problem`; see `readStdoutLine`): it was dropped.
   */
  readonly onStrayLine: (line: string, what: StrayOutput, problem?: string) => void;
}

/**
 * The client side of a stdio MCP server: spawns its process (as the SDK's
 * `StdioClientTransport` does: the same command lookup, default
 * environment and line framing, see `StdoutLines`), writes messages to its stdin and reads
 * them from its stdout, a line each.
 *
 * As the SDK's transport does, a line that is no JSON-RPC message at all (a
 * banner, a log line, JSON without a `jsonrpc` member), or a JSON-RPC error
 * with a null id (which answers no request), is skipped and the lines
 * after it are read as usual; unlike it, the line goes to
 * `onStrayLine`, not to `onerror`. A line that claims to be JSON-RPC but is
 * malformed goes to `onerror` (the schema's error), and the lines after it
 * are read still. A line holding a batch (a JSON array of messages, as
 * protocol version 2025-03-26 allows) is read as its messages, in order.
 * The answer to `initialize` is read without its null fields (see
 * `withoutNullInitializeFields`). Stray lines that together are one
 * JSON-RPC answer or notification (pretty-printed JSON, which stdio
 * framing does not allow) are read as it once its last line came, and
 * reported (`split_message`).
 *
 * The connection ends (`onclose`, once) when the process's stdout ends or
 * its stdin breaks (a write found it closed), not only when the process
 * exited: a server that closed either pipe and lives on can never answer,
 * and waiting for its exit would leave every call waiting for its timeout.
 * A process that exits ends its pipes at the same moment, so after a pipe
 * ended the transport waits up to `PIPE_END_EXIT_WAIT_MS` for the exit
 * (and the rest of stderr) before it reports the end: `closedPipe()` then
 * tells the two apart.
 *
 * `close()` ends the process's input and reports the end; it sends no
 * signal: stopping a process that lingers is the owner's (`stopProcess`),
 * with the process's id (`pid`, kept after the end) and `exited`.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The process's id once it spawned; kept after it ended. */
  pid: number | undefined;
  /** The value of `SERVER_PROCESS_MARKER_VARIABLE` in the process's environment, which the processes it starts inherit. */
  readonly marker = randomUUID();
  /** Resolves once the process exited, or could not be started. Never rejects. */
  readonly exited: Promise<void>;
  private markExited!: () => void;
  private child: ChildProcess | undefined;
  private readonly lines: StdoutLines;
  private readonly split: SplitMessageWatch;
  /** Set by `close()`: what the process writes from then on is not read as messages. */
  private closing = false;
  private ended = false;
  /** The first of its pipes the process ended (or broke) without `close()`. */
  private endedPipe: "stdout" | "stdin" | undefined;
  private exitWait: ReturnType<typeof setTimeout> | undefined;
  /** The id of the `initialize` request written, whose answer is read without its null fields. */
  private initializeId: string | number | undefined;

  constructor(private readonly options: StdioProcessOptions) {
    this.lines = new StdoutLines(options.maxBufferSize);
    this.split = new SplitMessageWatch(options.maxBufferSize);
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
  }

  /** Spawns the process; resolves once it runs, rejects with Node's error when it cannot be spawned. */
  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error("the stdio transport was started already"));
    const { command, args, env, cwd, onStderr } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        env: { ...getDefaultEnvironment(), ...env, [SERVER_PROCESS_MARKER_VARIABLE]: this.marker },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: process.platform === "win32",
        ...(cwd !== undefined && { cwd }),
      });
      this.child = child;
      let spawned = false;
      child.on("spawn", () => {
        spawned = true;
        this.pid = child.pid;
        resolve();
      });
      child.on("error", (error) => {
        if (!spawned) {
          this.markExited();
          reject(error);
        }
        this.onerror?.(error);
      });
      child.on("exit", () => this.markExited());
      child.on("close", () => {
        this.markExited();
        this.end();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdin?.on("close", () => this.pipeEnded("stdin"));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("end", () => this.pipeEnded("stdout"));
      child.stderr?.on("data", onStderr);
      child.stderr?.on("error", () => {});
    });
  }

  /**
   * After the end was reported: the pipe the process closed while it still
   * runs; `undefined` when it exited (or the transport was closed).
   */
  closedPipe(): "stdout" | "stdin" | undefined {
    const child = this.child;
    const running =
      child !== undefined && this.pid !== undefined && child.exitCode === null && child.signalCode === null;
    return running ? this.endedPipe : undefined;
  }

  /**
   * Writes one message to the process's stdin; rejects with "Not connected"
   * once the transport ended. A write to a process that is exiting does not
   * fail the request: its exit ends the connection, and explains it. It
   * settles also when the pipe is gone (Node destroys a process's stdin when
   * the process exits, while a server it started may still hold its
   * stdout): the SDK's connect awaits its `initialized` notification.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.ended || this.closing) return Promise.reject(new Error("Not connected"));
    const request = message as { id?: string | number; method?: unknown };
    if (request.method === "initialize") this.initializeId = request.id;
    return new Promise((resolve) => {
      // Called once written, or with the error of a pipe that broke or was destroyed.
      stdin.write(serializeMessage(message), () => resolve());
    });
  }

  /** Ends the process's input and reports the end (`onclose`). Sends no signal. Idempotent. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      this.child?.stdin?.end();
    } catch {
      // A pipe that broke is closed already.
    }
    this.lines.clear();
    this.end();
  }

  /** Reads what the process wrote; a line too long fails the transport and closes it, as the SDK's does. */
  private read(chunk: Buffer): void {
    if (this.closing) return;
    try {
      this.lines.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (let line = this.lines.next(); line !== undefined; line = this.lines.next()) {
      const read = readStdoutLine(line);
      if (read.kind === "stray") this.strayLine(line, read.what);
      else if (read.kind === "malformed") {
        this.split.reset();
        this.onerror?.(read.error);
      } else {
        this.split.reset();
        if (read.unreadable !== undefined) this.options.onStrayLine(line, "unreadable_message", read.unreadable);
        for (const message of read.messages) {
          this.onmessage?.(this.readableAnswer(message));
          if (this.closing) return;
        }
      }
      if (this.closing) return;
    }
  }

  /** The answer to `initialize` without its null fields (see `withoutNullInitializeFields`); any other message as it is. */
  private readableAnswer(message: JSONRPCMessage): JSONRPCMessage {
    const answer = message as { id?: unknown; result?: unknown };
    if (this.initializeId === undefined || answer.id !== this.initializeId || answer.result === undefined)
      return message;
    return { ...message, result: withoutNullInitializeFields(answer.result) } as JSONRPCMessage;
  }

  /**
   * A line that is no message: reported, and watched for a message written
   * over several lines (pretty-printed JSON), which is read once its last
   * line came, as a line holding it is, but for a request: a server that
   * prints the client's own requests to its stdout would have the client
   * answer them.
   */
  private strayLine(line: string, what: StrayOutput): void {
    this.options.onStrayLine(line, what);
    const split = this.split.stray(line);
    if (split === undefined) return;
    const read = readStdoutLine(split.text);
    if (read.kind !== "messages") return;
    this.options.onStrayLine(split.text, "split_message", `over ${split.lines} lines`);
    for (const message of read.messages) {
      if (!("method" in message && "id" in message)) this.onmessage?.(this.readableAnswer(message));
      if (this.closing) return;
    }
  }

  /** A pipe ended without `close()`: the end is reported once the process exited, or after the wait. */
  private pipeEnded(pipe: "stdout" | "stdin"): void {
    if (this.closing || this.endedPipe) return;
    this.endedPipe = pipe;
    // A macrotask after the wait: an exit that is due is read first, also when the host was too busy to see it in time.
    this.exitWait = setTimeout(() => setImmediate(() => this.end()), PIPE_END_EXIT_WAIT_MS);
  }

  private end(): void {
    clearTimeout(this.exitWait);
    if (this.ended) return;
    this.ended = true;
    this.onclose?.();
  }
}
