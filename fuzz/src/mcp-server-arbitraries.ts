/**
 * Generated MCP servers for the `mcp-server` property: what a server lists
 * (`tools/list` entries with odd but valid and invalid names, input and
 * output schemas, annotations), how each of its tools answers a call (every
 * content kind, `structuredContent` that matches its output schema or not,
 * `isError`, huge text, unknown content, JSON-RPC errors with data, thrown
 * errors, a hang, a dropped connection, a closed session), what it sends
 * first (progress, log messages, `list_changed`, sampling and elicitation
 * requests, delays), and which model calls the turn makes. Plain data, so a
 * counterexample prints and replays.
 */
import fc from "fast-check";
import { callResultArbitrary, generatedText as text, resultWithNulls } from "./mcp-call-results.js";
import { type McpHostReads, hostReadsArbitrary } from "./mcp-host-reads.js";
import { elicitationParams, rawMessage, samplingParams } from "./mcp-server-messages.js";

/** Something the server does during a call, before it answers (`cancelAfterMs`: gives its request up so long after). */
export type McpCallStep =
  | {
      readonly kind: "progress";
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
      /** Sent under the request's id instead of the token the call was given (a server that echoes the id). */
      readonly underRequestId?: boolean;
    }
  | { readonly kind: "log"; readonly level: string; readonly data: unknown }
  | { readonly kind: "delay"; readonly ms: number }
  | { readonly kind: "listChanged" }
  | { readonly kind: "sample"; readonly params: Record<string, unknown>; readonly cancelAfterMs?: number }
  | { readonly kind: "elicit"; readonly params: Record<string, unknown>; readonly cancelAfterMs?: number }
  /** Asks the client for its roots, or pings it. */
  | { readonly kind: "ask"; readonly method: "roots/list" | "ping" | "no/such_method" }
  /** Sends this JSON-RPC message as it is on the call's stream (`$id` stands for the call's request id). */
  | { readonly kind: "raw"; readonly message: unknown };

/** How the server ends a call. */
export type McpCallEnd =
  /**
   * Answers with this JSON as the result, sent as it is (it may break the
   * protocol's schema). `nulls`: a result the protocol takes, its absent
   * optional fields written as null, as a server written in Python writes
   * `None`.
   */
  | { readonly kind: "result"; readonly result: Record<string, unknown>; readonly nulls?: true }
  /** Answers with a JSON-RPC error. */
  | { readonly kind: "jsonRpcError"; readonly code: number; readonly message: string; readonly data?: unknown }
  /** Its handler throws a plain error (the SDK answers -32603). */
  | { readonly kind: "throw" }
  /** Never answers (the client's call timeout ends it). */
  | { readonly kind: "hang" }
  /** Destroys the socket of the call's request without answering. */
  | { readonly kind: "hangUp" }
  /** Closes the whole session on the server's side and forgets it (a restarted server). */
  | { readonly kind: "closeSession" };

/** One tool of the generated server: its `tools/list` entry (sent as it is) and its behaviour. */
export interface McpFuzzTool {
  readonly entry: Record<string, unknown>;
  readonly steps: readonly McpCallStep[];
  readonly end: McpCallEnd;
}

/** A model's call of one of the server's tools (by index into the listed tools) or of a name nobody has. */
export interface McpFuzzCall {
  readonly tool: number | "unknown";
  readonly args: Record<string, unknown>;
}

/**
 * How `tools/list` answers: one page, pages (`offsets`: their `nextCursor`
 * a number, as a server paging by offset writes it), cursors in a cycle
 * (`endless`), a JSON-RPC error, no list.
 */
export type McpListing = "one" | "pages" | "offsets" | "endless" | "error" | "notList";

/** One generated case: the server, the host's options, and the model's calls, one response per group. */
export interface McpFuzzCase {
  readonly tools: readonly McpFuzzTool[];
  readonly listing: McpListing;
  /**
   * The `nextCursor` of the last page of a list that ends (`one`, `pages`, `offsets`):
   * absent when undefined, or null (as a server written in Python writes
   * `None`) or empty, which end a list as an absent one does.
   */
  readonly lastCursor?: null | "";
  /**
   * Over Streamable HTTP: the case's URL is a server of the old HTTP+SSE
   * transport (protocol 2024-11-05) instead, which refuses the POST and
   * answers a GET with its `endpoint` event (the stdio property ignores it).
   */
  readonly oldSse?: boolean;
  /** Over HTTP: the server stores its events (`eventStore`: streams may be resumed); ends its GET stream at once. */
  readonly eventStore?: boolean;
  readonly cutsSessionStream?: boolean;
  /** What the server declares in its handshake (it serves tools whatever it declares), and its instructions. */
  readonly server: { readonly capabilities: Record<string, unknown>; readonly instructions: string | undefined };
  /** What `tools/list` answers after the server announced a change (the same list when absent). */
  readonly toolsAfterChange?: readonly Record<string, unknown>[];
  readonly responses: readonly (readonly McpFuzzCall[])[];
  readonly sampling: boolean;
  /** Whether the host gives roots (declaring the capability). */
  readonly roots: boolean;
  readonly elicitation: "off" | "accept" | "decline" | "throw" | "never";
  readonly maxResultChars: number;
  readonly throwingLogger: boolean;
  /** Turns on one runtime: a second one sees a changed list, a restart, a forgotten session. */
  readonly turns: 1 | 2;
  /** The host aborts the first turn this many ms after it started (real time); absent: never. */
  readonly abortAfterMs: number | undefined;
  /** How the server answers the host's own reads of its resources and prompts (made after the turns); absent: none. */
  readonly hostReads?: McpHostReads;
}

const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

const toolName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("search", "get_user", "list-files", "read") },
  fc.constantFrom(
    "get.user",
    "files/read",
    "with space",
    "名前",
    "😀tool",
    "a".repeat(70),
    "x",
    "",
    "UPPER_case-1",
    "search",
    "__proto__",
    "constructor",
  ),
);

const validSchema: fc.Arbitrary<unknown> = fc.constantFrom(
  { type: "object" },
  { type: "object", properties: {} },
  { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  { type: "object", properties: { n: { type: "integer", minimum: 0 } }, additionalProperties: false },
  { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
  { type: "object", properties: { mode: { enum: ["a", "b"] } } },
  { type: "object", $defs: { s: { type: "string" } }, properties: { s: { $ref: "#/$defs/s" } } },
  { type: "object", properties: { any: {} } },
  { properties: { q: { type: "string" } } },
  { type: "object", properties: { o: { type: "object", properties: { deep: { type: "number" } } } } },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
);

const invalidSchema: fc.Arbitrary<unknown> = fc.constantFrom(
  { type: "string" },
  { type: "array" },
  "object",
  null,
  [],
  { type: "object", properties: "nope" },
  { type: "object", properties: { q: { type: "no-such-type" } } },
  { type: "object", required: "q" },
  { type: "object", properties: { r: { $ref: "#/$defs/missing" } } },
);

const outputSchema: fc.Arbitrary<unknown> = fc.constantFrom(
  { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  { type: "object" },
  { type: "object", properties: { s: { type: "string" } }, additionalProperties: false },
  { type: "object", properties: { r: { $ref: "#/$defs/missing" } } },
  { type: "object", properties: { q: { type: "no-such-type" } } },
  { type: "string" },
  // Without a type, as servers written by hand and generators of a named type's schema write one: an object schema.
  { properties: { n: { type: "number" } }, required: ["n"] },
  { $ref: "#/definitions/R", definitions: { R: { type: "object", properties: { n: { type: "number" } } } } },
);

/** A value a server written in Python may also write as `None`: null, which the protocol takes as an absent field. */
function orNull<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 4, arbitrary: value }, fc.constant(null));
}

const annotations: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      title: orNull(text),
      readOnlyHint: orNull(fc.boolean()),
      destructiveHint: orNull(fc.boolean()),
      idempotentHint: orNull(fc.boolean()),
      openWorldHint: orNull(fc.boolean()),
    },
    { requiredKeys: [] },
  ),
  fc.constantFrom({ readOnlyHint: "yes" }, { readOnlyHint: 1 }, null, "hints", { title: 5 }),
);

/**
 * A `tools/list` entry: mostly valid, sometimes not (no name, a schema that
 * is no object schema, odd fields); its optional fields now and then null,
 * as a server written in Python writes `None`.
 */
const toolEntry: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      name: fc.oneof({ weight: 12, arbitrary: toolName }, fc.constantFrom(7, null)),
      title: orNull(text),
      description: fc.oneof(text, fc.constant(5), fc.constant(null)),
      inputSchema: fc.oneof({ weight: 6, arbitrary: validSchema }, invalidSchema),
      outputSchema: orNull(outputSchema),
      annotations,
      _meta: fc.constantFrom({ "x.example/k": 1 }, null),
      icons: fc.constantFrom([{ src: "https://example.com/i.png" }], "icon", null),
    },
    { requiredKeys: ["name"] },
  )
  .map((entry) => entry as Record<string, unknown>);

const callEnd: fc.Arbitrary<McpCallEnd> = fc.oneof(
  { weight: 8, arbitrary: callResultArbitrary.map((result) => ({ kind: "result" as const, result })) },
  {
    weight: 1,
    arbitrary: resultWithNulls.map((result) => ({ kind: "result" as const, result, nulls: true as const })),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant("jsonRpcError" as const),
        code: fc.constantFrom(-32602, -32603, -32601, -32000, -32001, -32002, -1, 0, 1, 42),
        message: fc.constantFrom("quota exceeded", "", "MCP error -1: nested", "bad input"),
        data: fc.constantFrom({ retryAfterS: 30 }, "text", 0, null, [1, 2], { nested: { deep: [true] } }),
      },
      { requiredKeys: ["kind", "code", "message"] },
    ),
  },
  fc.constantFrom(
    { kind: "throw" as const },
    { kind: "hang" as const },
    { kind: "hangUp" as const },
    { kind: "closeSession" as const },
  ),
);

const callStep: fc.Arbitrary<McpCallStep> = fc.oneof(
  fc.record(
    {
      kind: fc.constant("progress" as const),
      progress: fc.constantFrom(0, 1, 2.5, 10),
      total: fc.constantFrom(10, 0),
      message: text,
      underRequestId: fc.constant(true),
    },
    { requiredKeys: ["kind", "progress"] },
  ),
  fc.record({
    kind: fc.constant("log" as const),
    level: fc.constantFrom(...LOG_LEVELS),
    data: fc.constantFrom("line", { k: [1] }, null, 5),
  }),
  fc.record({ kind: fc.constant("delay" as const), ms: fc.constantFrom(0, 1, 10) }),
  fc.constant({ kind: "listChanged" as const }),
  fc.record(
    { kind: fc.constant("sample" as const), params: samplingParams, cancelAfterMs: fc.constantFrom(0, 5, 30) },
    { requiredKeys: ["kind", "params"] },
  ),
  fc.record(
    { kind: fc.constant("elicit" as const), params: elicitationParams, cancelAfterMs: fc.constantFrom(0, 5, 30) },
    { requiredKeys: ["kind", "params"] },
  ),
  fc.record({
    kind: fc.constant("ask" as const),
    method: fc.constantFrom("roots/list" as const, "ping" as const, "no/such_method" as const),
  }),
  fc.record({ kind: fc.constant("raw" as const), message: rawMessage }),
);

const fuzzTool: fc.Arbitrary<McpFuzzTool> = fc.record({
  entry: toolEntry,
  steps: fc.array(callStep, { maxLength: 3 }),
  end: callEnd,
});

const callArgs: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom(
  {},
  { q: "x" },
  { n: 3 },
  { n: -1 },
  { tags: ["a"] },
  { s: "v" },
  { mode: "c" },
);

const modelCall: fc.Arbitrary<McpFuzzCall> = fc.record({
  tool: fc.oneof({ weight: 9, arbitrary: fc.nat({ max: 5 }) }, fc.constant("unknown" as const)),
  args: callArgs,
});

/** The `mcp-server` property's cases. */
export const mcpFuzzCaseArbitrary: fc.Arbitrary<McpFuzzCase> = fc.record(
  {
    tools: fc.array(fuzzTool, { minLength: 1, maxLength: 4 }),
    listing: fc.oneof(
      { weight: 6, arbitrary: fc.constant("one" as const) },
      fc.constantFrom("pages" as const, "offsets" as const, "endless" as const, "error" as const, "notList" as const),
    ),
    lastCursor: fc.constantFrom(null, ""),
    toolsAfterChange: fc.array(toolEntry, { maxLength: 3 }),
    server: fc.record({
      capabilities: fc.oneof(
        { weight: 4, arbitrary: fc.constant({ tools: { listChanged: true }, logging: {} }) },
        fc.constantFrom<Record<string, unknown>>(
          { tools: {} },
          { tools: { listChanged: true } },
          {},
          { logging: {} },
          { tools: { listChanged: "yes" }, experimental: { odd: true } },
        ),
      ),
      instructions: fc.constantFrom(undefined, "", "Use search first.", "i".repeat(50_000)),
    }),
    responses: fc.array(fc.array(modelCall, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
    sampling: fc.boolean(),
    roots: fc.boolean(),
    elicitation: fc.constantFrom(
      "off" as const,
      "accept" as const,
      "decline" as const,
      "throw" as const,
      "never" as const,
    ),
    maxResultChars: fc.constantFrom(100, 10_000),
    throwingLogger: fc.boolean(),
    turns: fc.constantFrom(1 as const, 2 as const),
    abortAfterMs: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, fc.constantFrom(0, 5, 30, 150)),
    hostReads: hostReadsArbitrary,
    oldSse: fc.oneof({ weight: 24, arbitrary: fc.constant(false) }, fc.constant(true)),
    eventStore: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
    cutsSessionStream: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, fc.constant(true)),
  },
  {
    requiredKeys: [
      "tools",
      "listing",
      "server",
      "responses",
      "sampling",
      "roots",
      "elicitation",
      "maxResultChars",
      "throwingLogger",
      "turns",
      "abortAfterMs",
    ],
  },
);
