/**
 * The `mcp-server` property: a generated MCP server (`McpFuzzCase`, served
 * over Streamable HTTP on 127.0.0.1 by `mcp-fuzz-server.ts`) driven through
 * `@turnkit/agent-mcp` as a host drives it: the extension in an
 * agent-runtime assembly, a `PiTurnRunner` turn whose scripted model calls
 * the server's tools. After each case every invariant is checked:
 *
 * - the assembly resolves and the turn completes within a bound (no hang),
 *   and disposing the runtime resolves too;
 * - every tool call of the transcript has exactly one result;
 * - a result of the server's tool names the server and the tool in its
 *   details; a failure carries a known `McpServerErrorCode` and its text
 *   names the server; a JSON-RPC error keeps its code and data;
 * - what the model is shown is text and images of a type it takes;
 * - no JavaScript engine text in any event, result or outcome;
 * - every event passes `validateRuntimeEvent` and the terminal status is last;
 * - no unhandled rejection.
 */
import { PiTurnRunner } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { type ScriptEntry, createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import { type McpExtension, McpServerErrorCode, createMcpExtension } from "@turnkit/agent-mcp";
import { type AgentRuntime, createAgentRuntime, toRunTurnInput } from "@turnkit/agent-runtime";
import { type RuntimeEvent, type TurnOutcome, validateRuntimeEvent } from "@turnkit/protocol";
import { engineText } from "./invariants/no-engine-errors.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import { type ServedCase, serveCase } from "./mcp-fuzz-server.js";
import { checkHostReads } from "./mcp-host-reads.js";
import type { McpFuzzCase } from "./mcp-server-arbitraries.js";
import { unhandledRejections } from "./unhandled-rejections.js";

const SERVER_ID = "fz";
const USER_TEXT = "Go, fuzz user.";
/** Longest a case may take before it counts as a hang (a case takes milliseconds, a timed-out call 1 s). */
const CASE_BOUND_MS = 15_000;
const CALL_TIMEOUT_MS = 1_000;
/** Small enough that a huge generated text is a message too large. */
const MAX_MESSAGE_BYTES = 200_000;
const LOOP_TEXTS = /^(Validation failed for tool|Tool call was not executed)/;
const ERROR_CODES = new Set<string>(Object.values(McpServerErrorCode));

/** What one turn of a case produced. */
interface McpTurnObservation {
  readonly outcome: TurnOutcome;
  readonly events: readonly RuntimeEvent[];
  readonly persisted: readonly AgentMessage[];
  /** The server's tool names by the name the model saw them under. */
  readonly serverNames: ReadonlyMap<string, string>;
  /** Whether the host aborted the turn. */
  readonly aborted: boolean;
  /** Requests made for the server that the model could not take (they should have been refused). */
  readonly modelMisuses: readonly string[];
}

/** Runs one case and throws an {@link InvariantViolation} for the first broken invariant. */
export async function checkMcpCase(spec: McpFuzzCase): Promise<void> {
  const rejections = unhandledRejections();
  const before = rejections.seen.length;
  const served = await serveCase(spec);
  try {
    const notes: unknown[] = [];
    const turns = await bounded(runMcpCase(spec, served, notes), "the case (assembly, turns and dispose)");
    for (const turn of turns) checkTurn(spec, turn);
    const found = engineText(served.record.answers);
    if (found) throw new InvariantViolation("no engine text in the client's answers to the server", `…${found}…`);
    const noted = engineText(notes);
    if (noted) throw new InvariantViolation("no engine text in what the host is told (logs, statuses)", `…${noted}…`);
    // Rejections surface a macrotask after they happen.
    await new Promise((resolve) => setImmediate(resolve));
    const unhandled = rejections.seen.slice(before);
    if (unhandled.length > 0)
      throw new InvariantViolation("no unhandled rejection", describeValue(unhandled.map(String)));
  } finally {
    await served.close();
  }
}

/** Runs the case's turns; what the extension logs and every status it reports go to `notes`. */
async function runMcpCase(spec: McpFuzzCase, served: ServedCase, notes: unknown[]): Promise<McpTurnObservation[]> {
  const note = (entry: unknown) => {
    notes.push(entry);
    if (spec.throwingLogger) throw new Error("log sink down");
  };
  const mcp = createMcpExtension({
    id: SERVER_ID,
    server: { url: served.url },
    callTimeoutMs: CALL_TIMEOUT_MS,
    connectTimeoutMs: 5_000,
    maxResultChars: spec.maxResultChars,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    logLevel: "debug",
    logger: {
      debug: (message, attrs) => note({ message, attrs }),
      warn: (message, attrs) => note({ message, attrs }),
      error: (message, attrs) => note({ message, attrs }),
    },
    onStatus: (status) => note(status),
    ...(spec.sampling && { sampling: { maxTokens: 64 } }),
    ...(spec.roots && { roots: ["/tmp/fuzz-root", { uri: "file:///tmp/other", name: "Other" }] }),
    ...(spec.elicitation !== "off" && { elicitation: { timeoutMs: 100 } }),
  });
  const runtime = await createAgentRuntime({ base: [mcp] });
  try {
    const turns: McpTurnObservation[] = [];
    for (let index = 0; index < spec.turns; index++) {
      const abortAfterMs = index === 0 ? spec.abortAfterMs : undefined;
      turns.push(await runMcpTurn(spec, mcp, runtime, `t${index + 1}`, abortAfterMs));
    }
    if (spec.hostReads) await checkHostReads(mcp, SERVER_ID, bounded, imageBytesType);
    return turns;
  } finally {
    await bounded(runtime.dispose(), "runtime.dispose()");
  }
}

async function runMcpTurn(
  spec: McpFuzzCase,
  mcp: McpExtension,
  runtime: AgentRuntime,
  turnId: string,
  abortAfterMs: number | undefined,
): Promise<McpTurnObservation> {
  const assembled = await runtime.assembleTurn({ sessionId: "s1", turnId });
  const serverNames = new Map(mcp.status.tools.map((tool) => [tool.name, tool.serverToolName]));
  const main = createScriptedModel(script(spec, [...serverNames.keys()]));
  const events: RuntimeEvent[] = [];
  const persisted: AgentMessage[] = [];
  let ids = 0;
  const runner = new PiTurnRunner({ allocateMessageId: () => `msg-${++ids}` });
  const controller = new AbortController();
  const modelMisuses: string[] = [];
  const timer = abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), abortAfterMs);
  try {
    const outcome = await runner.runTurn(
      toRunTurnInput(assembled, {
        systemPrompt: "You use tools.",
        userMessage: { text: USER_TEXT },
        llm: {
          model: main.model,
          // A server's sampling request is the turn's auxiliary request: it gets an answer of its own.
          streamFn: (model, context, options) => {
            if (isTurnRequest(context.messages)) return main.streamFn(model, context, options);
            const maxTokens = options?.maxTokens;
            if (context.messages.length === 0 || (maxTokens !== undefined && !(maxTokens > 0)))
              modelMisuses.push(`a sampling request no model takes: ${describeValue({ context, maxTokens })}`);
            return createScriptedModel(["sampled"]).streamFn(model, context, options);
          },
        },
        disableBuiltinToolFallback: true,
        llmRetry: false,
        signal: controller.signal,
        answerActionRequest: elicitationAnswerer(spec.elicitation),
        eventWriter: { push: (event) => void events.push(event) },
        hooks: {
          onHistoryChangedHook: (change) => {
            if (change.reason === "messageDelta") persisted.push(...change.messages);
          },
        },
      }),
    );
    return { outcome, events, persisted, serverNames, aborted: controller.signal.aborted, modelMisuses };
  } finally {
    clearTimeout(timer);
  }
}

/** The model's responses: each group of calls, naming listed tools by index (modulo), then a final text. */
function script(spec: McpFuzzCase, exposed: readonly string[]): ScriptEntry[] {
  const responses = spec.responses.map((calls) =>
    response(
      calls.map((call) =>
        toolCall(
          call.tool === "unknown" || exposed.length === 0 ? "no_such_tool" : exposed[call.tool % exposed.length]!,
          call.args,
        ),
      ),
    ),
  );
  return [...responses, "Done."];
}

/** Whether a model request is the turn's own (it holds the user's message), not one made for the server. */
function isTurnRequest(messages: readonly unknown[]): boolean {
  return JSON.stringify(messages).includes(USER_TEXT);
}

function elicitationAnswerer(mode: McpFuzzCase["elicitation"]) {
  return () => {
    switch (mode) {
      case "accept":
        return { action: "accept" as const, content: { name: "Ada" } };
      case "decline":
      case "off":
        return { action: "decline" as const };
      case "throw":
        throw new Error("the host's form crashed");
      case "never":
        return new Promise<never>(() => {});
    }
  };
}

function checkTurn(spec: McpFuzzCase, turn: McpTurnObservation): void {
  const { outcome, events, persisted, serverNames } = turn;
  if (turn.modelMisuses.length > 0)
    throw new InvariantViolation("a server's request the model cannot take is refused", turn.modelMisuses[0]!);
  if (outcome.kind !== "completed" && !(turn.aborted && outcome.kind === "aborted"))
    throw new InvariantViolation("an MCP server never fails the turn", describeValue(outcome));
  for (const [index, event] of events.entries()) {
    const validation = validateRuntimeEvent(event);
    if (!validation.ok)
      throw new InvariantViolation("events are well formed", `event ${index}: ${describeValue(validation.errors)}`);
  }
  const last = events.at(-1);
  if (last?.type !== "session.status")
    throw new InvariantViolation("the terminal status is the last event", describeValue(last));
  const found = engineText({ events, outcome, persisted });
  if (found) throw new InvariantViolation("no engine text", `…${found}…`);
  checkToolResults(spec, persisted, serverNames);
}

function checkToolResults(
  spec: McpFuzzCase,
  persisted: readonly AgentMessage[],
  serverNames: ReadonlyMap<string, string>,
): void {
  const calls = persisted.flatMap((message) =>
    message.role === "assistant" ? message.content.filter((block) => block.type === "toolCall") : [],
  );
  const results = persisted.flatMap((message) => (message.role === "toolResult" ? [message] : []));
  for (const call of calls) {
    const answered = results.filter((result) => result.toolCallId === call.id);
    if (answered.length !== 1)
      throw new InvariantViolation(
        "every tool call has exactly one result",
        `${call.name} (${call.id}): ${answered.length}`,
      );
  }
  for (const result of results) {
    const serverName = serverNames.get(result.toolName);
    if (serverName === undefined) continue;
    const where = `result of ${result.toolName}: ${describeValue(result)}`;
    const details = result.details as Record<string, unknown> | undefined;
    // The loop's own results: arguments that break the tool's input schema, a call the abort kept from starting.
    if (result.isError && details?.server === undefined && LOOP_TEXTS.test(textOf(result.content))) continue;
    if (details?.server !== SERVER_ID || details.tool !== serverName)
      throw new InvariantViolation("a result names the server and the tool", where);
    for (const block of result.content) {
      if (block.type === "text" && typeof block.text === "string") continue;
      if (block.type === "image" && typeof block.data === "string" && imageBytesType(block.data) === block.mimeType)
        continue;
      throw new InvariantViolation("the model is shown text and images it takes", where);
    }
    const text = textOf(result.content);
    if (result.isError && text.trim() === "" && !result.content.some((block) => block.type === "image"))
      throw new InvariantViolation("an error says what failed", where);
    const code = details.error;
    if (code === undefined) {
      checkShown(spec, serverName, text, details, where);
      continue;
    }
    if (typeof code !== "string" || !ERROR_CODES.has(code))
      throw new InvariantViolation("a failure has a known code", where);
    if (!result.isError || !text.includes(`"${SERVER_ID}"`))
      throw new InvariantViolation("a failure is an error result naming the server", where);
    const tool = spec.tools.find((candidate) => candidate.entry.name === serverName);
    // The server sends something within the call timeout unless it hangs: anything else ends the call sooner.
    if (code === "call_timeout" && tool?.end.kind !== "hang")
      throw new InvariantViolation("only a call the server leaves unanswered times out", where);
    if (tool?.end.kind === "jsonRpcError" && code === "server_error") {
      const sent = details.jsonRpcError as { code?: unknown; data?: unknown } | undefined;
      if (sent?.code !== tool.end.code || JSON.stringify(sent.data) !== JSON.stringify(tool.end.data))
        throw new InvariantViolation("a JSON-RPC error keeps its code and data", where);
    }
  }
}

/**
 * A result the server gave (no failure) shows the model what the server
 * sent: each text block's text and each resource link's URI, unless the
 * text was cut at `maxResultChars`.
 */
function checkShown(
  spec: McpFuzzCase,
  serverName: string,
  shown: string,
  details: Record<string, unknown>,
  where: string,
): void {
  const tool = spec.tools.find((candidate) => candidate.entry.name === serverName);
  if (tool?.end.kind !== "result" || details.cancelled === true || details.truncated !== undefined) return;
  // A raw message of the server that answered the call's own id came first: that answer is the call's.
  if (tool.steps.some((step) => step.kind === "raw" && (step.message as { id?: unknown } | null)?.id === "$id")) return;
  const content = tool.end.result.content;
  if (!Array.isArray(content)) return;
  for (const block of content as { type?: unknown; text?: unknown; uri?: unknown }[]) {
    const expected =
      block?.type === "text" && typeof block.text === "string" && block.text.trim() !== ""
        ? block.text
        : block?.type === "resource_link" && typeof block.uri === "string"
          ? block.uri
          : undefined;
    if (expected !== undefined && !shown.includes(expected))
      throw new InvariantViolation(
        "a result shows the model what the server sent",
        `${JSON.stringify(expected)} missing from ${where}`,
      );
  }
}

/**
 * The type of image models take that base64 `data` is, by its first bytes
 * (PNG, JPEG, GIF, WebP): a provider refuses an image of another type,
 * an empty one, or one whose bytes are not of the type it is sent as.
 */
function imageBytesType(data: string): string | undefined {
  const head = Buffer.from(data.slice(0, 16), "base64").toString("latin1");
  if (head.startsWith("\x89PNG\r\n\x1a\n")) return "image/png";
  if (head.startsWith("\xff\xd8\xff")) return "image/jpeg";
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

async function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new InvariantViolation("no hang", `${what} did not settle within ${CASE_BOUND_MS} ms`)),
      CASE_BOUND_MS,
    );
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
