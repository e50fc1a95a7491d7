/**
 * `@turnkit/agent-loop`: the stateless loop and the stateful `Agent`, a
 * superset of pi-agent-core 0.73.1's public API. Every public name is listed
 * here on purpose; `test/public-surface.test.ts` fails when one is added or
 * removed without updating its expected list.
 */

// The stateful agent
export { Agent } from "./agent.js";
export type { AgentListener, AgentOptions } from "./agent-options.js";

// The stateless loop
export { agentLoop, agentLoopContinue, runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
export type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentEventType,
  AgentLoopConfig,
  AgentState,
  QueueMode,
  ShouldStopAfterSteeringContext,
  ShouldStopAfterTurnContext,
  StreamFn,
  ThinkingLevel,
} from "./types.js";

// Messages
export type { AgentMessage, CustomAgentMessages } from "./types.js";

// Tools and tool hooks
export type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentTool,
  AgentToolCall,
  AgentToolResult,
  AgentToolUpdateCallback,
  BeforeToolCallContext,
  BeforeToolCallResult,
  ToolArguments,
  ToolExecutionMode,
  ToolExecutionStartContext,
  ToolSchema,
} from "./types.js";

// Model calls through the host's server (the server side is `@turnkit/agent-loop/proxy-server`)
export { streamProxy, type ProxyStreamOptions } from "./proxy/stream-proxy.js";
export type { ProxyAssistantMessageEvent } from "./proxy/proxy-protocol.js";

// Building blocks for layers that wrap the loop (agent-core's turn runner uses them)
export { ABANDONED, settleOrAbandon } from "./abort-grace.js";
export { ToolResultText, emptyUsage, errorText } from "./synthetic-messages.js";
export { copyOptions } from "./options-copy.js";
export {
  callWithLoopRequestAbort,
  followLoopRequestAbort,
  loopRequestAbortOf,
  type LoopRequestAbort,
  type LoopRequestAbortObserver,
} from "./request-abort.js";

// Defaults
export { ABORT_GRACE_MS, DEFAULT_QUEUE_MODE, DEFAULT_TOOL_EXECUTION } from "./defaults.js";
