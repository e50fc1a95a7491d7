/**
 * The checks of the `mcp-server` and `mcp-stdio-server` properties on what
 * a case's turns produced (`mcp-server-scenario.ts` runs them): the
 * outcome and events of each turn, every tool call's one result, what the
 * model is shown of a server's answer and how a failure reads, and each
 * status the extension reported.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { McpServerErrorCode, type McpServerStatus, STDERR_TAIL_CHARS } from "@turnkit/agent-mcp";
import { type RuntimeEvent, type TurnOutcome, validateRuntimeEvent } from "@turnkit/protocol";
import { engineText } from "./invariants/no-engine-errors.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import type { McpFuzzCase, McpFuzzTool } from "./mcp-server-arbitraries.js";
import type { McpStdioCase } from "./mcp-stdio-arbitraries.js";

/** The extension id the cases give their server. */
export const SERVER_ID = "fz";
const LOOP_TEXTS = /^(Validation failed for tool|Tool call was not executed)/;
const ERROR_CODES = new Set<string>(Object.values(McpServerErrorCode));
const STATES = new Set<string>(["idle", "connecting", "ready", "failed", "gave_up", "disposed"]);

/** What one turn of a case produced. */
export interface McpTurnObservation {
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

/** Throws an {@link InvariantViolation} for the first broken invariant of one turn of `spec`. */
export function checkTurn(spec: McpFuzzCase, turn: McpTurnObservation, slowCalls: readonly string[]): void {
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
  checkToolResults(spec, persisted, serverNames, slowCalls);
  checkProgressShown(spec, turn);
}

/**
 * A call the server answered (a result, a JSON-RPC error, a thrown error)
 * ran all its steps first: each progress notification it sent reached the
 * host as a tool update of that call, in the order sent, before the call's
 * result, also when it came in one write with the answer. Unless a raw
 * message of the server answered the call's id first (what followed came
 * after the answer). Updates besides (a raw progress whose token is a
 * request id) may come between.
 */
function checkProgressShown(spec: McpFuzzCase, turn: McpTurnObservation): void {
  for (const message of turn.persisted) {
    if (message.role !== "toolResult") continue;
    const serverName = turn.serverNames.get(message.toolName);
    const tool = spec.tools.find((candidate) => candidate.entry.name === serverName);
    const details = message.details as { server?: unknown; error?: unknown; cancelled?: unknown } | undefined;
    if (tool === undefined || details?.server !== SERVER_ID || details.cancelled === true) continue;
    if (!["result", "jsonRpcError", "throw"].includes(tool.end.kind)) continue;
    if (details.error !== undefined && details.error !== McpServerErrorCode.ServerError) continue;
    if (answersEarly(tool)) continue;
    const sent = tool.steps.flatMap((step) => (step.kind === "progress" ? [step.progress] : []));
    const shown = progressBefore(turn.events, message.toolCallId);
    let next = 0;
    for (const progress of shown) if (progress === sent[next]) next++;
    if (next < sent.length)
      throw new InvariantViolation(
        "a call's progress reaches the host, in order, before its result",
        `${message.toolName} (${message.toolCallId}): sent ${describeValue(sent)}, shown ${describeValue(shown)}`,
      );
  }
}

/** The progress of the tool updates of call `toolCallId` before the event that persisted its result. */
function progressBefore(events: readonly RuntimeEvent[], toolCallId: string): unknown[] {
  const shown: unknown[] = [];
  for (const event of events) {
    if (
      event.type === "message.persisted" &&
      JSON.stringify(event.payload.messages).includes(`"toolCallId":"${toolCallId}"`)
    )
      return shown;
    if (event.type !== "debug.trace" || event.payload.message !== "tool_execution_update") continue;
    const update = event.payload.attrs as {
      toolCallId?: unknown;
      partialResult?: { details?: { progress?: { progress?: unknown } } };
    };
    if (update.toolCallId === toolCallId) shown.push(update.partialResult?.details?.progress?.progress);
  }
  return shown;
}

function checkToolResults(
  spec: McpFuzzCase,
  persisted: readonly AgentMessage[],
  serverNames: ReadonlyMap<string, string>,
  slowCalls: readonly string[],
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
    // Unless a raw message of the server answered the call's id first: that answer is the call's.
    if (
      tool?.end.kind === "result" &&
      tool.end.nulls &&
      !answersEarly(tool) &&
      text.includes("with a malformed message")
    )
      throw new InvariantViolation("a result with nulls for its absent fields is read as one without them", where);
    // The server sends something within the call timeout unless it hangs (or a loaded machine made it slow).
    if (code === "call_timeout" && tool?.end.kind !== "hang" && !closesStdin(spec) && !slowCalls.includes(serverName))
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
  if (answersEarly(tool)) return;
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

/** Whether a raw message of the tool's server answers the call's own id before its answer: that answer is the call's. */
function answersEarly(tool: McpFuzzTool): boolean {
  return tool.steps.some((step) => step.kind === "raw" && (step.message as { id?: unknown } | null)?.id === "$id");
}

/**
 * The type of image models take that base64 `data` is, by its first bytes
 * (PNG, JPEG, GIF, WebP): a provider refuses an image of another type,
 * an empty one, or one whose bytes are not of the type it is sent as.
 */
export function imageBytesType(data: string): string | undefined {
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

/**
 * Whether a stdio case's process may close its stdin and live on: a call
 * written before it closed and never read, or read and never answered,
 * is seen only when the client writes again, so it may time out.
 */
function closesStdin(spec: McpFuzzCase | McpStdioCase): boolean {
  return "stdio" in spec && spec.stdio.end?.what.kind === "closeStdin";
}

/** Whether a note of the case is a status the extension reported. */
export function isStatus(note: unknown): note is McpServerStatus {
  return typeof note === "object" && note !== null && "state" in note && "stderrTail" in note;
}

/**
 * A status the extension reported is one the README documents: a known
 * state, restarts within the policy, at most the last `STDERR_TAIL_CHARS`
 * of stderr however much a server wrote, and a last error with a known
 * code naming the server in a message of bounded length.
 */
export function checkStatus(status: McpServerStatus): void {
  const where = describeValue({ ...status, stderrTail: `${status.stderrTail.length} characters` });
  if (!STATES.has(status.state)) throw new InvariantViolation("a status has a documented state", where);
  if (status.restarts > status.maxRestarts || status.restarts > status.totalRestarts)
    throw new InvariantViolation("restarts stay within the policy", where);
  if (status.stderrTail.length > STDERR_TAIL_CHARS)
    throw new InvariantViolation("the stderr tail stays bounded", where);
  const error = status.lastError;
  if (error === undefined) return;
  if (!ERROR_CODES.has(error.code) || !error.message.includes(`"${SERVER_ID}"`))
    throw new InvariantViolation("a status's last error has a known code and names the server", where);
  if (error.message.length > 2_000)
    throw new InvariantViolation("a status's last error is a message of bounded length", where);
}

/** What a call gets when its connection broke before its answer came: never the lot of a call the server answered. */
const LOST_BEFORE_ANSWER =
  /wrote a malformed JSON-RPC message|sent a message longer than maxMessageBytes|" exited|" closed its std(?:out|in) and kept running/;

/**
 * A call the stdio server answered before it broke its connection (a
 * malformed JSON-RPC message, a line too long, an exit, a signal, a closed
 * stdout or stdin after the answer) keeps
 * its answer: of a tool's calls, at most those the server did not answer
 * so may fail as calls whose connection broke before their answer (the
 * process notes as a break every message it writes that the protocol's
 * schema refuses, a raw step's too). A byte-order mark, a blank line and stray output
 * (a banner, log lines, JSON without `jsonrpc`) break nothing: calls
 * answered after them count too.
 */
export function checkAnsweredCalls(turns: readonly McpTurnObservation[], answered: ReadonlyMap<string, number>): void {
  const results = turns.flatMap((turn) =>
    turn.persisted.flatMap((message) =>
      message.role === "toolResult" && turn.serverNames.has(message.toolName)
        ? [{ tool: turn.serverNames.get(message.toolName)!, message }]
        : [],
    ),
  );
  for (const [tool, answers] of answered) {
    const calls = results.filter((result) => result.tool === tool);
    const lost = calls.filter(
      ({ message }) =>
        message.isError &&
        (message.details as { error?: unknown } | undefined)?.error !== undefined &&
        LOST_BEFORE_ANSWER.test(textOf(message.content)),
    );
    if (lost.length > calls.length - answers)
      throw new InvariantViolation(
        "a call the server answered keeps its answer",
        `${tool}: ${answers} of ${calls.length} calls answered before the connection broke, ${lost.length} failed as lost: ${describeValue(lost[0]!.message)}`,
      );
  }
}

/** The extension's warning that a stdio server writes lines that are no JSON-RPC message to its stdout. */
const STRAY_OUTPUT_WARNING = /wrote to its stdout a line that is no JSON-RPC message/;

/**
 * The host's logger hears of a stdio server's stray output at most once per
 * connection (so at most once per process started), in a message naming
 * the server, of bounded length.
 */
export function checkStrayOutputWarnings(notes: readonly unknown[], processes: number): void {
  const warnings = notes.flatMap((note) => {
    const message = typeof note === "object" && note !== null ? (note as { message?: unknown }).message : undefined;
    return typeof message === "string" && STRAY_OUTPUT_WARNING.test(message) ? [message] : [];
  });
  if (warnings.length > processes)
    throw new InvariantViolation(
      "stray output is reported once per connection",
      `${warnings.length} warnings for ${processes} processes: ${describeValue(warnings)}`,
    );
  const odd = warnings.find((message) => !message.includes(`"${SERVER_ID}"`) || message.length > 600);
  if (odd !== undefined)
    throw new InvariantViolation("a stray-output warning names the server and is bounded", describeValue(odd));
}

/** How the extension says a stdio server broke the protocol with a line it wrote. */
const MALFORMED_LOSS = /wrote a malformed JSON-RPC message/;

/**
 * Only a malformed JSON-RPC message loses a stdio connection as one: when
 * no process of the case wrote one, no status's last error and no call's
 * result says so. Stray output (a banner, log lines, JSON without
 * `jsonrpc`) before the handshake's answer, in a call or after an answer
 * breaks nothing.
 */
export function checkNoMalformedLoss(notes: readonly unknown[], turns: readonly McpTurnObservation[]): void {
  for (const note of notes)
    if (isStatus(note) && note.lastError && MALFORMED_LOSS.test(note.lastError.message))
      throw new InvariantViolation(
        "stray output breaks nothing: only a malformed JSON-RPC message loses the connection as one",
        describeValue(note.lastError.message),
      );
  for (const turn of turns)
    for (const message of turn.persisted)
      if (message.role === "toolResult" && message.isError && MALFORMED_LOSS.test(textOf(message.content)))
        throw new InvariantViolation(
          "stray output breaks nothing: only a malformed JSON-RPC message fails a call as one",
          describeValue(message),
        );
}
