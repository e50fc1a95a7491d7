/**
 * The `nested-options` property: the options and definitions a host
 * builds things from, each a valid object with one field (at any depth, or
 * a key it does not have) set to an odd value from the `public-api`
 * property's set (null, a symbol, a bigint, a revoked proxy, an object
 * whose every read throws, a list with a hole, `fc.anything`, ...). The
 * thing is built and used once: an `Agent` prompted, a `PiTurnRunner`
 * running a turn, an agent runtime assembled, an MCP extension created, a
 * stream function wrapped and called, a chat transport sending. Whatever
 * it does with the value, it must not fail with the engine's text, throw
 * what is no `Error`, hang or leave an unhandled rejection (the same check
 * as `public-api`). `runTurn`'s own input has a property of its own
 * (`run-turn-input`).
 */
import * as agentCore from "@turnkit/agent-core";
import * as agentLoop from "@turnkit/agent-loop";
import * as agentMcp from "@turnkit/agent-mcp";
import * as agentRuntime from "@turnkit/agent-runtime";
import * as uiStream from "@turnkit/ui-stream";
import fc from "fast-check";
import { type ApiArgument, noModel, oddValue, valueOf } from "./odd-values.js";
import { checkCall } from "./public-api-bad-input.js";

/** One case: which target, which field (a dotted path), and the odd value put there. */
export interface NestedOptionsCase {
  target: string;
  path: string;
  value: ApiArgument;
}

interface OptionsTarget {
  name: string;
  /** A valid options object, made fresh for each case. */
  base(): Record<string, unknown>;
  /** Fields worth breaking, besides those of `base` (optional ones it leaves out). */
  paths: readonly string[];
  /** Builds and uses the thing from `options`. */
  use(options: Record<string, unknown>): unknown;
}

const MODEL = {
  id: "m",
  name: "m",
  api: "openai-completions",
  provider: "openai",
  baseUrl: "http://127.0.0.1:9",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};

const TARGETS: readonly OptionsTarget[] = [
  {
    name: "Agent",
    base: () => ({
      initialState: { systemPrompt: "s", model: structuredClone(MODEL), tools: [], messages: [] },
      streamFn: noModel,
    }),
    paths: [
      "initialState.thinkingLevel",
      "convertToLlm",
      "transformContext",
      "getApiKey",
      "onPayload",
      "onResponse",
      "beforeToolCall",
      "afterToolCall",
      "steeringMode",
      "followUpMode",
      "sessionId",
      "thinkingBudgets",
      "transport",
      "maxRetryDelayMs",
      "toolExecution",
      "shouldStopAfterTurn",
      "onToolExecutionStart",
    ],
    use: (options) => new agentLoop.Agent(options as agentLoop.AgentOptions).prompt("hi"),
  },
  {
    name: "PiTurnRunner",
    base: () => ({}),
    paths: [
      "allocateMessageId",
      "newEventId",
      "clock",
      "random",
      "logger",
      "metrics",
      "workspaceDir",
      "bashEnv",
      "telemetry",
      "logger.warn",
      "telemetry.tracer",
    ],
    use: (options) =>
      new agentCore.PiTurnRunner(options as agentCore.PiTurnRunnerOptions).runTurn({
        sessionId: "s",
        turnId: "t",
        systemPrompt: "s",
        userMessage: { text: "hi" },
        llm: { model: MODEL as never, streamFn: noModel as never },
        disableBuiltinToolFallback: true,
        eventWriter: { push() {} },
      }),
  },
  {
    name: "withLlmRetry",
    base: () => ({ maxRetries: 1, baseDelayMs: 1 }),
    paths: ["maxDelayMs", "maxRetryElapsedMs", "observer"],
    use: (options) =>
      readStream(agentCore.withLlmRetry(noModel as never, options)(MODEL as never, { messages: [] }, {})),
  },
  {
    name: "composeStreamFn",
    base: () => ({ model: structuredClone(MODEL), streamFn: noModel }),
    paths: [
      "apiKey",
      "thinkingLevel",
      "cacheRetention",
      "maxTokens",
      "hostMaxOutputTokens",
      "headers",
      "headers.x",
      "fetch",
      "firstEventTimeoutMs",
      "streamIdleTimeoutMs",
      "payloadTransform",
      "responseObserver",
      "fallback",
      "model.id",
      "model.provider",
    ],
    use: (options) => readStream(agentCore.composeStreamFn(options as never)(MODEL as never, { messages: [] }, {})),
  },
  {
    name: "createAgentRuntime",
    base: () => ({ base: [{ id: "ext", init: () => ({}) }] }),
    paths: ["base.0.description", "base.0.init", "additions", "profile", "profile.disable", "base.1"],
    use: (options) => agentRuntime.createAgentRuntime(options as never),
  },
  {
    name: "createMcpExtension",
    base: () => ({ id: "mcp", server: { url: "http://127.0.0.1:9/mcp" } }),
    paths: [
      "description",
      "server.headers",
      "server.headers.x",
      "server.auth",
      "server.command",
      "server.args",
      "server.env",
      "server.cwd",
      "toolPrefix",
      "toolNames",
      "callTimeoutMs",
      "callMaxDurationMs",
      "maxResultChars",
      "maxMessageBytes",
      "connectTimeoutMs",
      "restart",
      "shutdownGraceMs",
      "clock",
      "logger",
      "logLevel",
      "roots",
      "roots.0",
      "sampling",
      "sampling.maxTokens",
      "elicitation",
      "onStatus",
    ],
    use: (options) => agentMcp.createMcpExtension(options as never),
  },
  {
    name: "TurnkitChatTransport",
    base: () => ({ api: "/chat", fetch: () => Promise.reject(new Error("no server here")) }),
    paths: ["headers", "headers.x", "onTurn", "reconnect", "reconnectAttempts", "reconnectDelayMs"],
    use: (options) =>
      new uiStream.TurnkitChatTransport(options as never).sendMessages({
        trigger: "submit-message",
        chatId: "c",
        messageId: undefined,
        messages: [],
        abortSignal: undefined,
      }),
  },
  {
    name: "toUIMessageStreamSse",
    base: () => ({ keepAliveMs: 0 }),
    paths: [],
    use: (options) => uiStream.toUIMessageStreamSse(emptyChunks(), options as never),
  },
];

async function* emptyChunks(): AsyncGenerator<never> {}

/** Reads a stream a stream function answered to its end. */
async function readStream(stream: AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>): Promise<void> {
  for await (const _ of await stream);
}

/** The dotted paths of `value`'s own fields, nested objects and lists included. */
function pathsOf(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, field]) => [`${prefix}${key}`, ...pathsOf(field, `${prefix}${key}.`)]);
}

/** A case: a target, one of its fields (or a key it does not know), and an odd value. */
export const nestedOptionsArbitrary: fc.Arbitrary<NestedOptionsCase> = fc.constantFrom(...TARGETS).chain((target) =>
  fc.record({
    target: fc.constant(target.name),
    path: fc.constantFrom(...new Set([...pathsOf(target.base()), ...target.paths, "notAnOption"])),
    value: oddValue,
  }),
);

/** Builds the case's options, then the thing, and uses it; throws on the engine's text, a hang, a non-Error. */
export async function checkNestedOptions(scenario: NestedOptionsCase): Promise<void> {
  const target = TARGETS.find((candidate) => candidate.name === scenario.target)!;
  const options = target.base();
  setPath(options, scenario.path.split("."), valueOf(scenario.value));
  await checkCall(`${scenario.target} with ${scenario.path}`, () => target.use(options));
}

/** Sets `path` in `root` to `value`, making the objects on the way (a list index of a list stays a list). */
function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at: Record<string, unknown> = root;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== "object" || next === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[path.at(-1)!] = value;
}
