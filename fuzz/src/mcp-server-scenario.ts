/**
 * The `mcp-server` and `mcp-stdio-server` properties: a generated MCP
 * server (`McpFuzzCase`) served over Streamable HTTP on 127.0.0.1
 * (`mcp-fuzz-server.ts`) or by a child process over stdio
 * (`mcp-stdio-launch.ts`), driven through `@turnkit/agent-mcp` as a host
 * drives it: the extension in an agent-runtime assembly, one or two
 * `PiTurnRunner` turns whose scripted model calls the server's tools, the
 * host aborting a turn or disposing the runtime now and then, then the
 * host's reads of resources and prompts. After each case every invariant
 * is checked (`mcp-turn-checks.ts` for the turns and statuses):
 *
 * - the assembly resolves and the turn completes within a bound (no hang),
 *   and disposing the runtime resolves too, after which the status says
 *   `disposed` and no server process the extension started still runs;
 * - every tool call of the transcript has exactly one result;
 * - a result of the server's tool names the server and the tool in its
 *   details; a failure carries a known `McpServerErrorCode` and its text
 *   names the server; a JSON-RPC error keeps its code and data;
 * - what the model is shown is text and images of a type it takes;
 * - no JavaScript engine text in any event, result, outcome, log or status;
 * - every event passes `validateRuntimeEvent` and the terminal status is last;
 * - every status has a documented state, restarts within the policy and a
 *   bounded stderr tail; a lost stdio server whose restart is due is
 *   started again by the next turn; a stdio server's stray output breaks
 *   nothing and is reported at most once per process;
 * - no unhandled rejection.
 */
import { PiTurnRunner } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { type ScriptEntry, createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import { type McpExtension, type McpServerConfig, createMcpExtension } from "@turnkit/agent-mcp";
import { type AgentRuntime, createAgentRuntime, toRunTurnInput } from "@turnkit/agent-runtime";
import type { RuntimeEvent } from "@turnkit/protocol";
import { engineText } from "./invariants/no-engine-errors.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import { CALL_TIMEOUT_MS, type McpCaseRecord } from "./mcp-case-server.js";
import { serveCase } from "./mcp-fuzz-server.js";
import { HOST_READS, checkHostReads } from "./mcp-host-reads.js";
import type { McpFuzzCase } from "./mcp-server-arbitraries.js";
import type { McpStdioCase } from "./mcp-stdio-arbitraries.js";
import { checkToolsOffered } from "./mcp-offered-tools.js";
import { type LaunchedStdioCase, launchStdioCase } from "./mcp-stdio-launch.js";
import {
  type McpTurnObservation,
  SERVER_ID,
  checkAnsweredCalls,
  checkNoMalformedLoss,
  checkStatus,
  checkStrayOutputWarnings,
  checkTurn,
  imageBytesType,
  isStatus,
} from "./mcp-turn-checks.js";
import { unhandledRejections } from "./unhandled-rejections.js";

const USER_TEXT = "Go, fuzz user.";
/** Longest one step of a case may take before it counts as a hang (a step takes milliseconds, a connect that times out 2 s). */
const CASE_BOUND_MS = 15_000;
/** Start and handshake of a stdio server's process (a start takes about 0.2 s of CPU). */
const STDIO_CONNECT_TIMEOUT_MS = 2_000;
const STDIO_SHUTDOWN_GRACE_MS = 200;
/** Small enough that a huge generated text is a message too large. */
const MAX_MESSAGE_BYTES = 200_000;

/** Runs one case over Streamable HTTP and throws an {@link InvariantViolation} for the first broken invariant. */
export async function checkMcpCase(spec: McpFuzzCase): Promise<void> {
  const served = await serveCase(spec);
  try {
    await checkServedCase(spec, { url: served.url }, served.record, undefined, async () => {
      await served.checkNothingHeld();
      served.checkSessionStreamPaced();
    });
  } finally {
    await served.close();
  }
}

/**
 * Runs one case served by a child process over stdio and throws an
 * {@link InvariantViolation} for the first broken invariant: those of
 * {@link checkMcpCase}, and every process the extension started is gone
 * once the runtime was disposed.
 */
export async function checkMcpStdioCase(spec: McpStdioCase): Promise<void> {
  const launched = await launchStdioCase(spec);
  try {
    await checkServedCase(spec, launched.server, launched.record, launched);
    const left = launched.running();
    if (left.length > 0)
      throw new InvariantViolation(
        "no server process outlives the runtime's dispose",
        `still running: ${left.join(", ")}`,
      );
  } finally {
    launched.cleanup();
  }
}

async function checkServedCase(
  spec: McpFuzzCase | McpStdioCase,
  server: McpServerConfig,
  record: () => McpCaseRecord,
  stdio: LaunchedStdioCase | undefined,
  afterTurns?: () => Promise<void>,
): Promise<void> {
  const rejections = unhandledRejections();
  const before = rejections.seen.length;
  const notes: unknown[] = [];
  const turns = await bounded(
    runMcpCase(spec, server, notes, stdio, afterTurns),
    "the case (assembly, turns and dispose)",
    caseBoundMs(spec),
  );
  const { slowCalls } = record();
  for (const turn of turns) checkTurn(spec, turn, slowCalls);
  if (stdio) checkAnsweredCalls(turns, stdio.answeredBeforeBreak(MAX_MESSAGE_BYTES));
  const found = engineText(record().answers);
  if (found) throw new InvariantViolation("no engine text in the client's answers to the server", `…${found}…`);
  const noted = engineText(notes);
  if (noted) throw new InvariantViolation("no engine text in what the host is told (logs, statuses)", `…${noted}…`);
  for (const note of notes) if (isStatus(note)) checkStatus(note);
  if (!stdio && spec.oldSse) checkOldSseRefused(notes);
  if (stdio) checkStrayOutputWarnings(notes, stdio.pids().length);
  if (stdio && !stdio.wroteMalformed()) checkNoMalformedLoss(notes, turns);
  // Rejections surface a macrotask after they happen.
  await new Promise((resolve) => setImmediate(resolve));
  const unhandled = rejections.seen.slice(before);
  if (unhandled.length > 0)
    throw new InvariantViolation("no unhandled rejection", describeValue(unhandled.map(String)));
}

/**
 * A server of the old HTTP+SSE transport is never connected, and the host
 * is told why: every last error the extension reported is a failed connect
 * that names that transport.
 */
function checkOldSseRefused(notes: readonly unknown[]): void {
  for (const note of notes) {
    if (!isStatus(note)) continue;
    if (note.state === "ready")
      throw new InvariantViolation("a server of the old HTTP+SSE transport is never connected", describeValue(note));
    const error = note.lastError;
    if (
      error &&
      (error.code !== "connect_failed" || !error.message.includes("HTTP+SSE transport of protocol 2024-11-05"))
    )
      throw new InvariantViolation("a failed connect to an old HTTP+SSE server says why", describeValue(error.message));
  }
}

/** Runs the case's turns; what the extension logs and every status it reports go to `notes`. */
async function runMcpCase(
  spec: McpFuzzCase | McpStdioCase,
  server: McpServerConfig,
  notes: unknown[],
  stdio: LaunchedStdioCase | undefined,
  afterTurns: (() => Promise<void>) | undefined,
): Promise<McpTurnObservation[]> {
  const note = (entry: unknown) => {
    notes.push(entry);
    if (spec.throwingLogger) throw new Error("log sink down");
  };
  const mcp = createMcpExtension({
    id: SERVER_ID,
    server,
    callTimeoutMs: CALL_TIMEOUT_MS,
    connectTimeoutMs: stdio ? STDIO_CONNECT_TIMEOUT_MS : 5_000,
    // A process that ignores SIGTERM is killed a grace later: short, so such a case takes no seconds.
    ...(stdio && { shutdownGraceMs: STDIO_SHUTDOWN_GRACE_MS }),
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
  const disposeAfterMs = "disposeAfterMs" in spec ? spec.disposeAfterMs : undefined;
  let disposing: Promise<void> | undefined;
  const disposeTimer =
    disposeAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          disposing = runtime.dispose();
        }, disposeAfterMs);
  try {
    const turns: McpTurnObservation[] = [];
    for (let index = 0; index < spec.turns && disposing === undefined; index++) {
      const abortAfterMs = index === 0 ? spec.abortAfterMs : undefined;
      turns.push(await runMcpTurn(spec, mcp, runtime, `t${index + 1}`, abortAfterMs, stdio));
    }
    await afterTurns?.();
    // After a dispose in the middle of a turn the reads fail at once, each an McpServerError naming the server.
    if (spec.hostReads) await checkHostReads(mcp, SERVER_ID, bounded, imageBytesType);
    return turns;
  } finally {
    clearTimeout(disposeTimer);
    if (disposing) await bounded(disposing, "runtime.dispose() in the middle of a turn");
    await bounded(runtime.dispose(), "runtime.dispose()");
    if (mcp.status.state !== "disposed")
      throw new InvariantViolation("a disposed extension says so", describeValue(mcp.status.state));
  }
}

async function runMcpTurn(
  spec: McpFuzzCase,
  mcp: McpExtension,
  runtime: AgentRuntime,
  turnId: string,
  abortAfterMs: number | undefined,
  stdio: LaunchedStdioCase | undefined,
): Promise<McpTurnObservation> {
  const before = mcp.status;
  const started = stdio?.pids().length ?? 0;
  const assembled = await runtime.assembleTurn({ sessionId: "s1", turnId });
  // A lost server whose restart is due is started again by the turn (a restarted process is a new pid),
  // unless the host disposed the runtime while the turn was being assembled (the case's `disposeAfterMs`).
  const disposed = mcp.status.state === "disposed";
  if (
    stdio &&
    before.state === "failed" &&
    before.nextRestartInMs === 0 &&
    !disposed &&
    stdio.pids().length === started
  )
    throw new InvariantViolation("a lost server is restarted by the next turn", describeValue(before));
  // A server of the old HTTP+SSE transport never connects (see checkOldSseRefused).
  if (stdio || !spec.oldSse)
    checkToolsOffered(
      spec,
      mcp.status,
      assembled.tools.map((tool) => tool.def.name),
      stdio === undefined && turnId === "t1",
    );
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

/**
 * Longest a whole case may take before it counts as a hang: the bound of
 * one step, plus a call timeout for each tool call of its turns and each
 * of the host's reads, any of which the server may leave unanswered (a
 * tool or a read that hangs), one after another.
 */
export function caseBoundMs(spec: McpFuzzCase): number {
  const calls = spec.turns * spec.responses.reduce((sum, calls) => sum + calls.length, 0);
  const reads = spec.hostReads ? HOST_READS.length : 0;
  return CASE_BOUND_MS + CALL_TIMEOUT_MS * (calls + reads);
}

async function bounded<T>(promise: Promise<T>, what: string, boundMs = CASE_BOUND_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new InvariantViolation("no hang", `${what} did not settle within ${boundMs} ms`)),
      boundMs,
    );
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
