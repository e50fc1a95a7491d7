/**
 * The stdio mode of the `mcp-server` property (`mcp-stdio-server`): a
 * generated case (`McpFuzzCase`) served by a child process on
 * stdin/stdout, plus what only a process does. How it writes its messages
 * (a line each, CRLF, each split over two writes, two in one write, a
 * byte-order mark); lines that are no message (a banner, a log line, a
 * pino-style JSON log line, JSON that is no JSON-RPC, an answer to an id
 * never asked, an error with a null id, a malformed JSON-RPC message, a line past
 * `maxMessageBytes`, a blank line, a pretty-printed message, a request with an
 * id past 2^53, a log message holding `NaN`), up to three, at its start, just before
 * its answer to `initialize`, in a call or after an answer; exiting (code 0 or 1, killed by a signal) or closing its stdout
 * or stdin and staying alive, before the handshake, in a call or between calls, in
 * its first process only or in every one; never answering `initialize`; a
 * flood of stderr; ignoring `SIGTERM` and end-of-input; writing after the
 * host closed its input. And the host's side: disposing the runtime while
 * a call runs. Plain data, so a counterexample prints and replays.
 */
import fc from "fast-check";
import { type McpFuzzCase, mcpFuzzCaseArbitrary } from "./mcp-server-arbitraries.js";

/**
 * When in a process's life something happens: at its start (before it was
 * asked anything), right before its answer to `initialize`, as a call
 * arrives, right after a call was answered.
 */
export type McpStdioMoment = "start" | "initialize" | "call" | "answered";

/** How a process stops serving. */
export type McpProcessEnd =
  | { readonly kind: "exit"; readonly code: 0 | 1 }
  | { readonly kind: "signal"; readonly signal: "SIGKILL" | "SIGHUP" }
  /** Closes its stdout and stays alive (until a signal ends it). */
  | { readonly kind: "closeStdout" }
  /** Closes its stdin (what the client wrote and it did not read is lost) and stays alive. */
  | { readonly kind: "closeStdin" }
  /**
   * Its wrapper (the shell that started it) is killed with SIGKILL and the
   * server lives on, no one's child any more; a server in the shell's place
   * is killed itself.
   */
  | { readonly kind: "killWrapper" };

/**
 * A line on stdout that is no message the client asked for. Only
 * `malformed` and `long` break the connection: the others are dropped (or,
 * `unknownId`, read and ignored) and every call goes on.
 */
export type McpStrayLine =
  /** A start-up banner in terminal colours ("… running on stdio"), as servers print at their start. */
  | "banner"
  /** A log line, as servers that print to stdout write (not JSON). */
  | "log"
  /** A structured log line as pino writes it (`{"level":30,…,"msg":…}`): JSON without `jsonrpc`. */
  | "pinoLog"
  /** JSON that is not JSON-RPC. */
  | "notJsonRpc"
  /** A JSON-RPC answer to an id the client never used. */
  | "unknownId"
  /** A JSON-RPC error with a null id, as servers written by hand answer a notification they do not know. */
  | "nullIdError"
  /** JSON that claims to be JSON-RPC but is no valid message (an answer with neither result nor error). */
  | "malformed"
  /** A line longer than `maxMessageBytes` and the pipe chunk it may come with. */
  | "long"
  /** A JSON-RPC notification written over several lines (pretty-printed JSON): no stdio framing, read all the same. */
  | "pretty"
  /** A request of the server's own whose id is an integer past 2^53 (a nanosecond clock): dropped. */
  | "bigIdRequest"
  /** A log message holding `NaN`, as Python's `json.dumps` writes a float that is no number: read, as null. */
  | "nanLog"
  | "blank";

/** Something that happens at a moment: at `call` and `answered`, at the process's `call`-th call (from 0). */
export interface McpStdioEvent<T> {
  readonly at: McpStdioMoment;
  readonly call: number;
  /** Only in the case's first process; else in every restarted one too. */
  readonly once: boolean;
  readonly what: T;
}

/** How the case's process behaves as a process. */
export interface McpStdioBehaviour {
  /**
   * How each message goes out: a line, a CRLF line, in two writes (split
   * inside a character now and then), two in one write, or each
   * notification held to go in one write with the next message that is
   * none (`burst`: a fast tool's progress and its answer together).
   */
  readonly framing: "line" | "crlf" | "split" | "coalesced" | "burst";
  /** A UTF-8 byte-order mark before its first line, or before every line. */
  readonly bom: "none" | "first" | "each";
  /** Lines that are no message the client asked for, each at its moment (several at one moment in this order). */
  readonly strays: readonly McpStdioEvent<McpStrayLine>[];
  readonly end?: McpStdioEvent<McpProcessEnd>;
  /** Never answers `initialize` (in its first process only). */
  readonly silentInitialize: boolean;
  /** Writes about a megabyte to stderr at its start and at each call, lines and a line without end. */
  readonly stderrFlood: boolean;
  /** Ignores `SIGTERM` and end-of-input: only `SIGKILL` ends it. */
  readonly stubborn: boolean;
  /** Once its input ends, writes a notification, an answer and a line of text before it exits. */
  readonly writeAfterStop: boolean;
  /**
   * How the shell that starts it does: runs it in its place (`none`), as
   * its child and waits for it (`waits`, as `npx` or `uv run` start a
   * server), or has a subshell start it and exit at once while the shell
   * lives on (`detaches`, a daemon's double fork: the server is no one's
   * child the host knows, but holds the pipes).
   */
  readonly wrapper: "none" | "waits" | "detaches";
}

/** A stdio case: the generated server, how its process behaves, and when the host disposes the runtime (absent: after the case). */
export interface McpStdioCase extends McpFuzzCase {
  readonly stdio: McpStdioBehaviour;
  readonly disposeAfterMs?: number;
}

const moment = fc.constantFrom<McpStdioMoment>("start", "initialize", "call", "answered");

function event<T>(what: fc.Arbitrary<T>): fc.Arbitrary<McpStdioEvent<T>> {
  return fc.record({ at: moment, call: fc.nat({ max: 2 }), once: fc.boolean(), what });
}

const processEnd: fc.Arbitrary<McpProcessEnd> = fc.oneof(
  fc.constantFrom({ kind: "exit" as const, code: 0 as const }, { kind: "exit" as const, code: 1 as const }),
  fc.constantFrom(
    { kind: "signal" as const, signal: "SIGKILL" as const },
    { kind: "signal" as const, signal: "SIGHUP" as const },
  ),
  fc.constantFrom({ kind: "closeStdout" as const }, { kind: "closeStdin" as const }),
  fc.constant({ kind: "killWrapper" as const }),
);

/** How a stdio case's process behaves: mostly well, one or two misbehaviours at a time. */
export const stdioBehaviourArbitrary: fc.Arbitrary<McpStdioBehaviour> = fc.record(
  {
    framing: fc.oneof(
      { weight: 3, arbitrary: fc.constant("line" as const) },
      fc.constantFrom("crlf" as const, "split" as const, "coalesced" as const, "burst" as const),
    ),
    bom: fc.oneof(
      { weight: 8, arbitrary: fc.constant("none" as const) },
      fc.constantFrom("first" as const, "each" as const),
    ),
    strays: fc.array(
      event(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom<McpStrayLine>("banner", "log", "pinoLog") },
          fc.constantFrom<McpStrayLine>(
            "notJsonRpc",
            "unknownId",
            "nullIdError",
            "malformed",
            "long",
            "blank",
            "pretty",
            "bigIdRequest",
            "nanLog",
          ),
        ),
      ),
      { maxLength: 3 },
    ),
    end: event(processEnd),
    silentInitialize: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, fc.constant(true)),
    stderrFlood: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true)),
    stubborn: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true)),
    writeAfterStop: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
    wrapper: fc.oneof(
      { weight: 3, arbitrary: fc.constant("none" as const) },
      fc.constant("waits" as const),
      fc.constant("detaches" as const),
    ),
  },
  {
    requiredKeys: [
      "framing",
      "bom",
      "strays",
      "silentInitialize",
      "stderrFlood",
      "stubborn",
      "writeAfterStop",
      "wrapper",
    ],
  },
);

/** The stdio property's cases. */
export const mcpStdioCaseArbitrary: fc.Arbitrary<McpStdioCase> = fc
  .record({
    spec: mcpFuzzCaseArbitrary,
    stdio: stdioBehaviourArbitrary,
    disposeAfterMs: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.constantFrom(0, 20, 100, 400)),
  })
  .map(({ spec, stdio, disposeAfterMs }) => ({
    ...spec,
    stdio,
    ...(disposeAfterMs !== undefined && { disposeAfterMs }),
  }));
