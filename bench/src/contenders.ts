import { Agent as PiAgent, type AgentTool as PiAgentTool } from "@mariozechner/pi-agent-core";
import type { AgentToolResult } from "@mariozechner/pi-agent-core";
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, defineRuntimeTool, type RuntimeTool } from "@turnkit/agent-core";
import { Agent, type AgentMessage, type AgentTool, type StreamFn } from "@turnkit/agent-loop";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { BENCH_MODEL } from "./scripted-stream.js";

/**
 * Who runs a workload. `floor` is no agent at all: the workload's streams
 * iterated directly. The `runner-*` variants switch off one runner layer
 * after another; only the W1R breakdown uses the last three.
 */
export type ContenderId =
  | "floor"
  | "pi"
  | "ours"
  | "runner"
  | "runner-no-retry"
  | "runner-counter-ids"
  | "runner-counter-ids-no-timeouts"
  | "runner-counter-ids-no-timeouts-no-retry";

/** Every contender, in table order. */
export const CONTENDERS: readonly ContenderId[] = [
  "floor",
  "pi",
  "ours",
  "runner",
  "runner-no-retry",
  "runner-counter-ids",
  "runner-counter-ids-no-timeouts",
  "runner-counter-ids-no-timeouts-no-retry",
];

/** How the table names each contender. */
export const CONTENDER_LABELS: Record<ContenderId, string> = {
  floor: "floor (stream only)",
  pi: "pi-agent-core Agent",
  ours: "our Agent",
  runner: "PiTurnRunner",
  "runner-no-retry": "PiTurnRunner llmRetry:false",
  "runner-counter-ids": "runner, counter ids",
  "runner-counter-ids-no-timeouts": " + stream timeouts 0",
  "runner-counter-ids-no-timeouts-no-retry": " + llmRetry:false",
};

/** What one run of an agent needs. `streamFn` is fresh per run (it counts its calls). */
export interface AgentRunInput {
  prompt: string;
  streamFn: StreamFn;
  /** What each tool call does; resolves to the shared no-op result unless the workload says otherwise. */
  tool?: () => Promise<void>;
  /** How the tool declares its (empty) arguments; default `typebox`. */
  toolSchema?: ToolSchemaKind;
  /** Session and turn ids of a runner turn; default `bench-session` and `bench-turn`. */
  ids?: { sessionId: string; turnId: string };
  /** Shown each per-run object the contender creates (the Agent; the runner's input and writer), so W5 can check it is collected. */
  probe?: (object: object) => void;
}

/**
 * `typebox`: `Type.Object({})` from `@sinclair/typebox`. `json`: the plain
 * JSON Schema object `{ type: "object", properties: {} }`, as MCP servers
 * and many hosts declare tools (validated through pi-ai's JSON Schema path).
 */
export type ToolSchemaKind = "typebox" | "json";

/** What a run leaves behind: the agent or outcome (kept alive for W3) and what to check. */
export interface AgentRunResult {
  /** Held by W3 while it measures the heap after the run. */
  retained: unknown;
  /** Transcript messages (Agents) or `message.persisted` messages (runner). */
  messageCount: number;
  /** Text of the last assistant message, or of the last persisted one. */
  finalText: string;
  /** `completed` for an agent whose last message stopped normally. */
  outcome: TurnOutcome["kind"];
}

/** The tool every workload offers: no arguments, returns one short text. */
export const TOOL_NAME = "noop";
const TOOL_PARAMETERS = Type.Object({});
/** One object for every run, as a host declares a tool once: validators are cached per schema object. */
const JSON_TOOL_PARAMETERS = { type: "object", properties: {} } as const;
const parametersOf = (kind: ToolSchemaKind | undefined) => (kind === "json" ? JSON_TOOL_PARAMETERS : TOOL_PARAMETERS);
const TOOL_RESULT: AgentToolResult<Record<string, never>> = { content: [{ type: "text", text: "ok" }], details: {} };

function agentTool(input: AgentRunInput): AgentTool<any> & PiAgentTool<any> {
  const action = input.tool;
  return {
    name: TOOL_NAME,
    label: TOOL_NAME,
    description: "Does nothing and answers ok.",
    parameters: parametersOf(input.toolSchema) as any,
    executionMode: "parallel",
    execute: action ? async () => (await action(), TOOL_RESULT) : async () => TOOL_RESULT,
  };
}

function runtimeTool(input: AgentRunInput): RuntimeTool {
  const action = input.tool;
  return defineRuntimeTool({
    name: TOOL_NAME,
    description: "Does nothing and answers ok.",
    parameters: parametersOf(input.toolSchema) as typeof TOOL_PARAMETERS,
    executionMode: "parallel",
    execute: action
      ? async () => (await action(), { content: TOOL_RESULT.content })
      : async () => ({ content: TOOL_RESULT.content }),
  });
}

function lastAssistantText(messages: readonly AgentMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "assistant") continue;
    return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  }
  return "";
}

function agentOutcome(messages: readonly AgentMessage[]): TurnOutcome["kind"] {
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return "failed";
  if (last.stopReason === "aborted") return "aborted";
  return last.stopReason === "error" ? "failed" : "completed";
}

/** pi-agent-core 0.73.1's `Agent` with one no-op subscriber. */
export async function runPiAgent(input: AgentRunInput): Promise<AgentRunResult> {
  const agent = new PiAgent({
    initialState: { systemPrompt: "bench", model: BENCH_MODEL as any, tools: [agentTool(input)] },
    streamFn: input.streamFn as any,
    toolExecution: "parallel",
  });
  agent.subscribe(() => {});
  input.probe?.(agent);
  await agent.prompt(input.prompt);
  const messages = agent.state.messages as AgentMessage[];
  return {
    retained: agent,
    messageCount: messages.length,
    finalText: lastAssistantText(messages),
    outcome: agentOutcome(messages),
  };
}

/** Our `Agent` (packages/agent-loop) with one no-op subscriber. */
export async function runOurAgent(input: AgentRunInput): Promise<AgentRunResult> {
  const agent = new Agent({
    initialState: { systemPrompt: "bench", model: BENCH_MODEL, tools: [agentTool(input)] },
    streamFn: input.streamFn,
    toolExecution: "parallel",
  });
  agent.subscribe(() => {});
  input.probe?.(agent);
  await agent.prompt(input.prompt);
  const messages = agent.state.messages;
  return {
    retained: agent,
    messageCount: messages.length,
    finalText: lastAssistantText(messages),
    outcome: agentOutcome(messages),
  };
}

/** Which runner layers a run keeps; the defaults are what a host gets. */
export interface RunnerSetup {
  /** `llmRetry` at its default (on); `false` passes `llmRetry: false`. */
  retry: boolean;
  /** `false` replaces the uuid event and message ids with counters. */
  uuidIds: boolean;
  /** `false` sets both stream watchdogs to 0, which removes the timeout layer. */
  timeouts: boolean;
}

const HOST_DEFAULTS: RunnerSetup = { retry: true, uuidIds: true, timeouts: true };

/** A runner as the host builds it for `setup`: uuid ids unless `setup.uuidIds` is false. */
export function newBenchRunner(setup: RunnerSetup = HOST_DEFAULTS): PiTurnRunner {
  let ids = 0;
  return setup.uuidIds
    ? new PiTurnRunner()
    : new PiTurnRunner({ newEventId: () => `evt_${++ids}`, allocateMessageId: () => `msg_${++ids}` });
}

/**
 * One `PiTurnRunner.runTurn` as a host runs it: default runner options
 * (uuid event and message ids, system clock), no hooks, built-in tools off,
 * `llmRetry` at its default (on); `setup` switches layers off for the W1R
 * breakdown. With `verify`, the writer collects persisted messages so the
 * run can be checked; timed runs get a writer that does nothing. `runner`
 * runs the turn on a runner the caller shares between turns (W5); by
 * default each run gets its own.
 */
export async function runTurnRunner(
  input: AgentRunInput,
  setup: RunnerSetup = HOST_DEFAULTS,
  verify = false,
  runner: PiTurnRunner = newBenchRunner(setup),
): Promise<AgentRunResult> {
  const persisted: AgentMessage[] = [];
  const eventWriter = verify
    ? {
        push(event: RuntimeEvent) {
          if (event.type === "message.persisted") persisted.push(...(event.payload.messages as AgentMessage[]));
        },
      }
    : { push() {} };
  const turnInput = {
    sessionId: input.ids?.sessionId ?? "bench-session",
    turnId: input.ids?.turnId ?? "bench-turn",
    systemPrompt: "bench",
    userMessage: { text: input.prompt },
    llm: {
      model: BENCH_MODEL,
      streamFn: input.streamFn,
      ...(setup.timeouts ? {} : { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 }),
    },
    tools: [runtimeTool(input)],
    disableBuiltinToolFallback: true,
    ...(setup.retry ? {} : { llmRetry: false as const }),
    eventWriter,
  };
  input.probe?.(turnInput);
  input.probe?.(eventWriter);
  const outcome = await runner.runTurn(turnInput);
  return {
    retained: outcome,
    messageCount: persisted.length,
    finalText: lastAssistantText(persisted),
    outcome: outcome.kind,
  };
}

/** Runs `input` with the agent contender `id` (not `floor`). */
export function runContender(
  id: Exclude<ContenderId, "floor">,
  input: AgentRunInput,
  verify = false,
): Promise<AgentRunResult> {
  switch (id) {
    case "pi":
      return runPiAgent(input);
    case "ours":
      return runOurAgent(input);
    case "runner":
      return runTurnRunner(input, HOST_DEFAULTS, verify);
    case "runner-no-retry":
      return runTurnRunner(input, { ...HOST_DEFAULTS, retry: false }, verify);
    case "runner-counter-ids":
      return runTurnRunner(input, { ...HOST_DEFAULTS, uuidIds: false }, verify);
    case "runner-counter-ids-no-timeouts":
      return runTurnRunner(input, { retry: true, uuidIds: false, timeouts: false }, verify);
    case "runner-counter-ids-no-timeouts-no-retry":
      return runTurnRunner(input, { retry: false, uuidIds: false, timeouts: false }, verify);
    default: {
      const unreachable: never = id;
      return unreachable;
    }
  }
}
