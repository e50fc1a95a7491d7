import { Type, type Message, type TSchema, type UserMessage } from "@mariozechner/pi-ai";
import {
  Agent,
  runAgentLoop,
  runAgentLoopContinue,
  type AgentContext,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  type AgentOptions,
  type AgentTool,
  type AgentToolResult,
  type AgentToolUpdateCallback,
  type StreamFn,
  type ToolExecutionMode,
} from "../../src/index.js";
import { createScriptedModel, type ScriptEntry, type ScriptedModel } from "../../src/testing/index.js";

export { deferred, type Deferred } from "../../src/testing/index.js";
import { assertEventGrammar, traceOf } from "./event-grammar.js";

/** A user message with a fixed timestamp, so transcripts compare with `toEqual`. */
export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: 1 };
}

/** Keeps provider messages, drops custom ones (the Agent's default). */
export function providerMessagesOnly(messages: AgentMessage[]): Message[] {
  return messages.filter((message): message is Message => ["user", "assistant", "toolResult"].includes(message.role));
}

/** Lets every queued microtask and promise chain run. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A text tool result. */
export function textResult(text: string, extra: Partial<AgentToolResult<unknown>> = {}): AgentToolResult<unknown> {
  return { content: [{ type: "text", text }], details: {}, ...extra };
}

/** Options of {@link testTool}. */
export interface TestToolOptions {
  parameters?: TSchema;
  executionMode?: ToolExecutionMode;
  prepareArguments?: (args: unknown) => any;
  execute?: (
    toolCallId: string,
    params: any,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<any>,
  ) => Promise<AgentToolResult<any>>;
}

/** A tool named `name` that answers `"<name> done"` unless `execute` says otherwise. */
export function testTool(name: string, options: TestToolOptions = {}): AgentTool<any> {
  const tool: AgentTool<any> = {
    name,
    label: name,
    description: `The ${name} test tool`,
    parameters: options.parameters ?? Type.Object({}),
    execute: options.execute ?? (async () => textResult(`${name} done`)),
  };
  if (options.executionMode) tool.executionMode = options.executionMode;
  if (options.prepareArguments) tool.prepareArguments = options.prepareArguments;
  return tool;
}

/** What a loop scenario produced. Its events already passed {@link assertEventGrammar}. */
export interface LoopScenarioResult {
  events: AgentEvent[];
  /** `traceOf(events)`: the run without update events, one line each. */
  trace: string[];
  /** What the run resolved to (its new messages). */
  messages: AgentMessage[];
  scripted: ScriptedModel;
}

/** Inputs of {@link runLoopScenario}. */
export interface LoopScenario {
  script: ScriptEntry[];
  /** Default: one user message "go". Ignored with `continueFrom`. */
  prompts?: AgentMessage[];
  /** Run `runAgentLoopContinue` on these messages instead of prompting. */
  continueFrom?: AgentMessage[];
  tools?: AgentTool<any>[];
  systemPrompt?: string;
  config?: Partial<AgentLoopConfig>;
  signal?: AbortSignal;
  /** Called with every event, after it is recorded; may be async (it is awaited). */
  onEvent?: (event: AgentEvent) => void | Promise<void>;
  /** A hand-written stream function instead of the scripted model's (which still provides `model`). */
  streamFn?: StreamFn;
}

/**
 * Runs the loop against a scripted model, recording every event, and checks
 * the event grammar before returning.
 */
export async function runLoopScenario(scenario: LoopScenario): Promise<LoopScenarioResult> {
  const scripted = createScriptedModel(scenario.script);
  const events: AgentEvent[] = [];
  const context: AgentContext = {
    systemPrompt: scenario.systemPrompt ?? "You are a test.",
    messages: scenario.continueFrom ?? [],
    tools: scenario.tools ?? [],
  };
  const config: AgentLoopConfig = { model: scripted.model, convertToLlm: providerMessagesOnly, ...scenario.config };
  const emit = (event: AgentEvent) => {
    events.push(event);
    return scenario.onEvent?.(event);
  };
  const streamFn = scenario.streamFn ?? scripted.streamFn;
  const messages = scenario.continueFrom
    ? await runAgentLoopContinue(context, config, emit, scenario.signal, streamFn)
    : await runAgentLoop(scenario.prompts ?? [user("go")], context, config, emit, scenario.signal, streamFn);
  assertEventGrammar(events);
  return { events, trace: traceOf(events), messages, scripted };
}

/** An Agent on a scripted model whose events are recorded. */
export interface AgentScenario {
  agent: Agent;
  scripted: ScriptedModel;
  /** Every event of every run, in order. */
  events: AgentEvent[];
  /** Events since the last {@link AgentScenario.takeRun}, checked against the grammar. */
  takeRun(): AgentEvent[];
}

/** Builds an Agent on a scripted model, with a recording listener subscribed first. */
export function createAgentScenario(
  script: ScriptEntry[],
  options: AgentOptions & { tools?: AgentTool<any>[]; systemPrompt?: string } = {},
): AgentScenario {
  const scripted = createScriptedModel(script);
  const { tools, systemPrompt, ...agentOptions } = options;
  const agent = new Agent({
    streamFn: scripted.streamFn,
    ...agentOptions,
    initialState: {
      model: scripted.model,
      systemPrompt: systemPrompt ?? "You are a test.",
      tools: tools ?? [],
      ...agentOptions.initialState,
    },
  });
  const events: AgentEvent[] = [];
  let taken = 0;
  agent.subscribe((event) => {
    events.push(event);
  });
  return {
    agent,
    scripted,
    events,
    takeRun() {
      const run = events.slice(taken);
      taken = events.length;
      assertEventGrammar(run);
      return run;
    },
  };
}

/** Text of a tool-result or user message's first text block. */
export function firstText(message: AgentMessage | undefined): string | undefined {
  if (!message || !("content" in message)) return undefined;
  const content = message.content;
  if (typeof content === "string") return content;
  for (const block of content) if (block.type === "text") return block.text;
  return undefined;
}
