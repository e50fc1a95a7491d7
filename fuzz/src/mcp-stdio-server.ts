/**
 * The stdio mode's server process (`node <bundle> <case file> <record
 * file>`): the case's server (`mcp-case-server.ts`) on the SDK's
 * `StdioServerTransport`, its messages written to stdout as the case's
 * process behaviour says (`McpStdioBehaviour`: framing, byte-order marks,
 * stray lines (banners, log lines, also before its answer to `initialize`), exits, a closed stdout or stdin, a stderr flood, ignoring SIGTERM,
 * writing after its input ended). It appends to the record file its pid,
 * the calls it received and the client's answers to its requests, one
 * JSON line each. Compiled with the SDK bundled in (`mcp-stdio-launch.ts`),
 * so a start costs little.
 */
import { appendFileSync, closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { type CaseState, caseServer, withRawResult, withStringCursor, withoutPythonNulls } from "./mcp-case-server.js";
import type {
  McpProcessEnd,
  McpStdioBehaviour,
  McpStdioCase,
  McpStdioEvent,
  McpStdioMoment,
  McpStrayLine,
} from "./mcp-stdio-arbitraries.js";

/** The stray lines that break the connection; the client drops the others (or, an answer to an unknown id, ignores it). */
const BREAKING_STRAY_LINES: ReadonlySet<McpStrayLine> = new Set<McpStrayLine>(["malformed", "long"]);
/** Bytes of the `long` stray line: past the fuzz's `maxMessageBytes` (200,000) and one pipe chunk more. */
const LONG_LINE_BYTES = 300_000;
const BOM = "\uFEFF";

/**
 * Writes to fd 1 without Node's stdout stream, so the case can close it
 * (a stream's stdout cannot be closed) and every write is synchronous and
 * in order. Messages are framed as the case says.
 */
class CaseStdout {
  private closed = false;
  private lines = 0;
  private held: Buffer | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly behaviour: McpStdioBehaviour) {}

  /** Writes one message (or any line of text; `notification`: a JSON-RPC notification) as the case frames its messages. */
  line(text: string, notification = false): Promise<void> {
    const bom = this.behaviour.bom === "each" || (this.behaviour.bom === "first" && this.lines === 0) ? BOM : "";
    this.lines++;
    const end = this.behaviour.framing === "crlf" ? "\r\n" : "\n";
    const bytes = Buffer.from(bom + text + end, "utf8");
    this.chain = this.chain.then(() => this.emit(bytes, notification));
    return this.chain;
  }

  /** Writes a message held to go with the next one now. */
  flush(): void {
    const held = this.held;
    this.held = undefined;
    if (held) this.write(held);
  }

  /** Closes fd 1; later writes are dropped. */
  close(): void {
    this.flush();
    this.closed = true;
    try {
      closeSync(1);
    } catch {}
  }

  private async emit(bytes: Buffer, notification: boolean): Promise<void> {
    switch (this.behaviour.framing) {
      case "line":
      case "crlf":
        return this.write(bytes);
      case "split": {
        // A byte in the middle: now and then inside a character of several bytes.
        const cut = Math.max(1, bytes.length >> 1);
        this.write(bytes.subarray(0, cut));
        await new Promise((resolve) => setTimeout(resolve, 2));
        return this.write(bytes.subarray(cut));
      }
      case "coalesced":
        // Held until the next message comes (both go in one write), or for 5 ms.
        if (this.held) {
          const both = Buffer.concat([this.held, bytes]);
          this.held = undefined;
          return this.write(both);
        }
        this.held = bytes;
        setTimeout(() => this.flush(), 5);
        return;
      case "burst":
        // Notifications wait for the next message that is none (an answer, a request), or 50 ms, and go in its write.
        this.held = this.held ? Buffer.concat([this.held, bytes]) : bytes;
        if (notification) setTimeout(() => this.flush(), 50);
        else this.flush();
        return;
      default: {
        const unreachable: never = this.behaviour.framing;
        return unreachable;
      }
    }
  }

  private write(bytes: Buffer): void {
    let offset = 0;
    while (!this.closed && offset < bytes.length) {
      try {
        offset += writeSync(1, bytes, offset);
      } catch (error) {
        // A pipe the client no longer reads (EPIPE) ends the writing; a full one (EAGAIN) is waited out.
        if ((error as { code?: unknown }).code !== "EAGAIN") return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
  }
}

const [casePath, recordPath] = process.argv.slice(2) as [string, string];
const spec = JSON.parse(readFileSync(casePath, "utf8")) as McpStdioCase;
const behaviour = spec.stdio;
/** Notes `entry` in the record file; `process` names the process each entry is of. */
const record = (entry: Record<string, unknown>) =>
  appendFileSync(recordPath, `${JSON.stringify({ ...entry, process: process.pid })}\n`);
const firstProcess = !readFileSync(recordPath, "utf8").includes('"pid"');
record({ pid: process.pid });
const out = new CaseStdout(behaviour);
/** Each `tools/call` of this process (its index, in the order they came, and its tool), by request id, until answered. */
const callIds = new Map<string | number, { readonly index: number; readonly name: unknown }>();
let calls = 0;
/** The id of the `initialize` request, until it is answered. */
let initializeId: string | number | undefined;

/** Whether `event` happens now: at this moment (and call), in this process. */
function due<T>(event: McpStdioEvent<T> | undefined, at: McpStdioMoment, call: number): event is McpStdioEvent<T> {
  return (
    event !== undefined &&
    event.at === at &&
    (at === "start" || at === "initialize" || event.call === call) &&
    (!event.once || firstProcess)
  );
}

/**
 * What the case does at a moment. Whatever may break the connection is
 * noted (`broke`) before it is written: a call answered before (`answered`)
 * must keep its answer.
 */
async function moment(at: McpStdioMoment, call = 0): Promise<void> {
  for (const stray of behaviour.strays) {
    if (!due(stray, at, call)) continue;
    // Only a malformed JSON-RPC message and a line too long break the connection; the client drops
    // the other lines (or, an answer to an unknown id, ignores it), and every call goes on.
    record(BREAKING_STRAY_LINES.has(stray.what) ? { broke: stray.what } : { stray: stray.what });
    await out.line(strayLine(stray.what));
  }
  if (due(behaviour.end, at, call)) await endProcess(behaviour.end.what);
}

function strayLine(line: McpStrayLine): string {
  switch (line) {
    case "banner":
      return "\u001b[1;32mFuzz MCP Server running on stdio\u001b[0m";
    case "log":
      return "fuzz server listening on stdio";
    case "pinoLog":
      return JSON.stringify({
        level: 30,
        time: Date.now(),
        pid: process.pid,
        hostname: "fuzz",
        msg: "request handled",
      });
    case "notJsonRpc":
      return JSON.stringify({ hello: "world" });
    case "unknownId":
      return JSON.stringify({ jsonrpc: "2.0", id: 424_242, result: { content: [] } });
    case "nullIdError":
      return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32601, message: "Method not found" } });
    case "malformed":
      return JSON.stringify({ jsonrpc: "2.0", id: 424_243 });
    case "long":
      return JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "l".repeat(LONG_LINE_BYTES) },
      });
    case "blank":
      return "";
    case "pretty":
      return JSON.stringify(
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
        null,
        2,
      );
    case "bigIdRequest":
      return '{"jsonrpc": "2.0", "id": 1733572800123456789, "method": "ping"}';
    case "nanLog":
      return '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": {"ratio": NaN}}}';
    default: {
      const unreachable: never = line;
      return unreachable;
    }
  }
}

/** Ends the process as `end` says; resolves never (a closed stdout or stdin: the process lives on). */
function endProcess(end: McpProcessEnd): Promise<never> {
  record({ broke: end.kind });
  // What the process wrote is read before its end, as a real process's is.
  out.flush();
  switch (end.kind) {
    case "exit":
      process.stderr.write(`fuzz server: exiting with code ${end.code}\n`);
      process.exit(end.code);
      break;
    case "signal":
      process.kill(process.pid, end.signal);
      break;
    case "closeStdout":
      out.close();
      setInterval(() => {}, 60_000);
      break;
    case "closeStdin":
      // Reading stops first; /dev/null then holds fd 0, so the record file is never opened as fd 0.
      process.stdin.pause();
      closeSync(0);
      openSync("/dev/null", "r");
      setInterval(() => {}, 60_000);
      break;
    case "killWrapper": {
      const wrapper = wrapperPid();
      process.kill(wrapper ?? process.pid, "SIGKILL");
      break;
    }
    default: {
      const unreachable: never = end;
      return unreachable;
    }
  }
  return new Promise<never>(() => {});
}

/**
 * The shell that started this process and still runs: its parent when the
 * shell waits for it, the shell the record notes last when a subshell
 * started it; `undefined` when it runs in the shell's place (its parent is
 * the host).
 */
function wrapperPid(): number | undefined {
  if (behaviour.wrapper === "waits") return process.ppid;
  if (behaviour.wrapper === "none") return undefined;
  const spawned = readFileSync(recordPath, "utf8")
    .split("\n")
    .flatMap((line) => (line.startsWith('{"spawned":') ? [(JSON.parse(line) as { spawned: number }).spawned] : []));
  return spawned.at(-1);
}

function flood(): void {
  if (!behaviour.stderrFlood) return;
  const line = `\u001b[33mwarn\u001b[0m ${"noise ".repeat(20)}\n`;
  for (let chunk = 0; chunk < 8; chunk++) process.stderr.write(line.repeat(1_000));
  process.stderr.write("x".repeat(100_000));
}

if (behaviour.stubborn) {
  process.on("SIGTERM", () => process.stderr.write("fuzz server: ignoring SIGTERM\n"));
  setInterval(() => {}, 60_000);
}
if (behaviour.writeAfterStop)
  process.stdin.on("end", () => {
    void out.line(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "bye" } }),
    );
    void out.line(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [] } }));
    void out.line("fuzz server: goodbye");
    if (!behaviour.stubborn) setTimeout(() => process.exit(0), 50);
  });

flood();
await moment("start");

const state: CaseState = {
  spec,
  log: {
    called: (name) => record({ call: name }),
    answered: (text) => record({ answer: text }),
    slow: (name) => record({ slow: name }),
  },
  lists: 0,
  changed: false,
};
const transport = new StdioServerTransport(process.stdin, { write: () => true } as never);
const server = caseServer(state, {
  transport,
  // Over stdio, hanging up on a call is the process exiting in it; closing the session, closing stdout.
  endCall: (kind) => endProcess(kind === "hangUp" ? { kind: "exit", code: 1 } : { kind: "closeStdout" }),
  callStarted: async (_name, requestId) => {
    flood();
    await moment("call", callIds.get(requestId)?.index ?? -1);
  },
});
await server.connect(transport);
const receive = transport.onmessage!;
transport.onmessage = (message: JSONRPCMessage) => {
  const request = message as { method?: unknown; id?: string | number; params?: { name?: unknown } };
  if (request.method === "initialize" && behaviour.silentInitialize && firstProcess) return;
  if (request.method === "initialize") initializeId = request.id;
  if (request.method === "tools/call" && request.id !== undefined)
    callIds.set(request.id, { index: calls++, name: request.params?.name });
  receive(withStringCursor(message) as JSONRPCMessage);
};
transport.send = async (message: JSONRPCMessage) => {
  const line = JSON.stringify(withRawResult(message));
  // A message the protocol's schema refuses (a raw step's, a broken result) breaks the connection: noted first.
  // A batch (an array, as protocol 2025-03-26 allows) is read as its messages; a Python-style answer's nulls as absent.
  const sent: unknown = JSON.parse(line);
  const messages: unknown[] = Array.isArray(sent) ? sent : [sent];
  if (!messages.every((each) => JSONRPCMessageSchema.safeParse(withoutPythonNulls(each)).success))
    record({ broke: "malformed" });
  const { id, method } = message as { id?: string | number; method?: unknown };
  if (method === undefined && id !== undefined && id === initializeId) {
    initializeId = undefined;
    await moment("initialize");
  }
  await out.line(line, method !== undefined && id === undefined);
  const call = method === undefined && id !== undefined ? callIds.get(id) : undefined;
  if (call === undefined) return;
  callIds.delete(id!);
  record({ answered: call.name, bytes: Buffer.byteLength(line) });
  await moment("answered", call.index);
};
