/**
 * The public surface of `@turnkit/agent-loop`: every value and type
 * its entry exports. A name added, removed or retyped fails this test until
 * the lists below and the README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-loop",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-loop`",
  values: [
    "ABANDONED", "ABORT_GRACE_MS", "Agent", "DEFAULT_QUEUE_MODE", "DEFAULT_TOOL_EXECUTION", "ToolResultText",
    "agentLoop", "agentLoopContinue", "emptyUsage", "errorText", "runAgentLoop", "runAgentLoopContinue",
    "settleOrAbandon", "streamProxy",
  ],
  types: [
    "AfterToolCallContext", "AfterToolCallResult", "Agent", "AgentContext", "AgentEvent", "AgentEventSink",
    "AgentEventType", "AgentListener", "AgentLoopConfig", "AgentMessage", "AgentOptions", "AgentState", "AgentTool",
    "AgentToolCall", "AgentToolResult", "AgentToolUpdateCallback", "BeforeToolCallContext", "BeforeToolCallResult",
    "CustomAgentMessages", "ProxyAssistantMessageEvent", "ProxyStreamOptions", "QueueMode",
    "ShouldStopAfterSteeringContext", "ShouldStopAfterTurnContext", "StreamFn", "ThinkingLevel", "ToolArguments",
    "ToolExecutionMode", "ToolExecutionStartContext", "ToolSchema",
  ],
});
