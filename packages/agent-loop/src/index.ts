/**
 * `@turnkit/agent-loop`: the stateless loop and the stateful `Agent`:
 * pi-agent-core 0.73.1's public API, plus the types of the options Turnkit
 * adds (listeners, queue modes, the stop and start hooks, tool schemas).
 * Every public name is listed here on purpose; `test/public-surface.test.ts`
 * fails when one is added or removed without updating its expected list.
 * Building blocks only Turnkit's own packages use are in
 * `@turnkit/agent-loop/internal`.
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
