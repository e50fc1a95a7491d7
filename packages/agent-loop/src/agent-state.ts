import { assertAgentMessages, assertAgentTools } from "./message-checks.js";
import type { Model } from "@mariozechner/pi-ai";
import type { AgentEvent, AgentMessage, AgentState, AgentTool, ThinkingLevel } from "./types.js";

/** Placeholder until the host sets `state.model`; a request with it fails with an error message. */
export const UNSET_MODEL: Model<any> = {
  id: "unknown",
  name: "unknown",
  api: "unknown",
  provider: "unknown",
  baseUrl: "",
  reasoning: false,
  input: [],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 0,
  maxTokens: 0,
};

/**
 * The state an `Agent` owns and exposes as `agent.state`. Assigning
 * `tools` or `messages` copies the array, so a host's array is never the
 * transcript itself.
 */
export class MutableAgentState implements AgentState {
  systemPrompt = "";
  model: Model<any>;
  thinkingLevel: ThinkingLevel = "off";
  isStreaming = false;
  streamingMessage: AgentMessage | undefined = undefined;
  errorMessage: string | undefined = undefined;
  private toolList: AgentTool<any>[] = [];
  private messageList: AgentMessage[] = [];
  /** The ids of the calls whose tool is running, as changes apply; `undefined` from a host's assignment until the next change. */
  private runningCalls: Set<string> | undefined = new Set();
  /** What {@link pendingToolCalls} reads until the next change; made at the first read after one. */
  private pendingView: ReadonlySet<string> | undefined = undefined;

  constructor(model: Model<any>) {
    this.model = model;
  }

  get tools(): AgentTool<any>[] {
    return this.toolList;
  }
  set tools(tools: AgentTool<any>[]) {
    assertAgentTools(tools, "Agent.state", "tools");
    this.toolList = [...tools];
  }
  get messages(): AgentMessage[] {
    return this.messageList;
  }
  set messages(messages: AgentMessage[]) {
    assertAgentMessages(messages, "Agent.state", "messages");
    this.messageList = [...messages];
  }

  /**
   * The ids of the calls whose tool is running. As in pi's Agent, a set read
   * here never changes afterwards: each change makes the next read a new
   * set (made only when someone reads it, so many calls in one response
   * cost no copy each).
   */
  get pendingToolCalls(): ReadonlySet<string> {
    this.pendingView ??= new Set(this.runningCalls);
    return this.pendingView;
  }
  set pendingToolCalls(calls: ReadonlySet<string>) {
    this.pendingView = calls;
    this.runningCalls = undefined;
  }

  /** Adds (`pending`) or removes a call id; a set read before keeps what it had. */
  setToolCallPending(toolCallId: string, pending: boolean): void {
    this.runningCalls ??= new Set(this.pendingView);
    if (pending) this.runningCalls.add(toolCallId);
    else this.runningCalls.delete(toolCallId);
    this.pendingView = undefined;
  }

  /** No call pending; a set read before keeps what it had. */
  clearPendingToolCalls(): void {
    this.runningCalls = new Set();
    this.pendingView = undefined;
  }
}

/**
 * What an event changes in the state, applied before any listener sees the
 * event: the streaming message, the transcript (from `message_end` only),
 * the pending tool calls and, at `turn_end`, the error of a failed response.
 */
export function applyEventToState(state: MutableAgentState, event: AgentEvent): void {
  switch (event.type) {
    case "message_start":
    case "message_update":
      state.streamingMessage = event.message;
      break;
    case "message_end":
      state.streamingMessage = undefined;
      state.messages.push(event.message);
      break;
    case "tool_execution_start":
      state.setToolCallPending(event.toolCallId, true);
      break;
    case "tool_execution_end":
      state.setToolCallPending(event.toolCallId, false);
      break;
    case "turn_end":
      if (event.message.role === "assistant" && event.message.errorMessage)
        state.errorMessage = event.message.errorMessage;
      break;
    case "agent_end":
      state.streamingMessage = undefined;
      break;
    case "agent_start":
    case "turn_start":
    case "tool_execution_update":
      break;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
