import { type ActionRequestAnswerer, PiTurnRunner } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { type ScriptEntry, createScriptedModel } from "@turnkit/agent-loop/testing";
import {
  type AgentRuntime,
  type Extension,
  type HostTurnInputs,
  createAgentRuntime,
  toRunTurnInput,
} from "@turnkit/agent-runtime";
import { onTestFinished } from "vitest";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";

/** A tool result as persisted, reduced to what the tests compare. */
export interface ToolResultView {
  toolName: string;
  isError: boolean;
  text: string;
  content: unknown[];
  details: unknown;
}

/** What one turn produced. */
export interface McpTurn {
  outcome: TurnOutcome;
  events: RuntimeEvent[];
  persisted: AgentMessage[];
  toolResults: ToolResultView[];
  model: ReturnType<typeof createScriptedModel>;
}

/**
 * Runs one full turn: the runtime assembles its extensions (connecting MCP
 * servers as needed), `PiTurnRunner` runs the scripted model's tool calls,
 * and the persisted history is collected.
 */
export async function runMcpTurn(options: {
  runtime: AgentRuntime;
  script: ScriptEntry[];
  turnId?: string;
  signal?: AbortSignal;
  onEvent?: (event: RuntimeEvent) => void;
  /** The host's user message (default "Go.") and hidden messages before it. */
  userMessage?: HostTurnInputs["userMessage"];
  beforeUserMessages?: HostTurnInputs["beforeUserMessages"];
  /** The host's answers to what the turn asks a person (elicitations). */
  answerActionRequest?: ActionRequestAnswerer;
  /** The host's own tools, beside the extensions'. */
  tools?: HostTurnInputs["tools"];
}): Promise<McpTurn> {
  const model = createScriptedModel(options.script);
  const turnId = options.turnId ?? "t1";
  const assembled = await options.runtime.assembleTurn({ sessionId: "s1", turnId });
  const events: RuntimeEvent[] = [];
  const persisted: AgentMessage[] = [];
  let ids = 0;
  const runner = new PiTurnRunner({ allocateMessageId: () => `msg-${++ids}` });
  const outcome = await runner.runTurn(
    toRunTurnInput(assembled, {
      systemPrompt: "You use tools.",
      userMessage: options.userMessage ?? { text: "Go." },
      ...(options.beforeUserMessages && { beforeUserMessages: options.beforeUserMessages }),
      llm: { model: model.model, streamFn: model.streamFn },
      disableBuiltinToolFallback: true,
      llmRetry: false,
      ...(options.signal && { signal: options.signal }),
      ...(options.answerActionRequest && { answerActionRequest: options.answerActionRequest }),
      ...(options.tools && { tools: options.tools }),
      eventWriter: {
        push: (event) => {
          events.push(event);
          options.onEvent?.(event);
        },
      },
      hooks: {
        onHistoryChangedHook: (change) => {
          if (change.reason === "messageDelta") persisted.push(...change.messages);
        },
      },
    }),
  );
  const toolResults = persisted.flatMap((message): ToolResultView[] =>
    message.role === "toolResult"
      ? [
          {
            toolName: message.toolName,
            isError: message.isError,
            text: message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n"),
            content: message.content,
            details: message.details,
          },
        ]
      : [],
  );
  return { outcome, events, persisted, toolResults, model };
}

/** A runtime of the one extension `mcp` (an MCP extension), disposed when the test that made it ends. */
export async function runtimeOf(mcp: Extension): Promise<AgentRuntime> {
  const runtime = await createAgentRuntime({ base: [mcp] });
  onTestFinished(() => runtime.dispose());
  return runtime;
}
