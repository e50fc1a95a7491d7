/**
 * The public surface of `@turnkit/agent-loop` and of its `testing` and
 * `proxy-server` entries: every value and type each entry exports. A name
 * added, removed or retyped fails this test until the lists below and the
 * README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-loop",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-loop`",
  values: [
    "ABANDONED", "ABORT_GRACE_MS", "Agent", "DEFAULT_QUEUE_MODE", "DEFAULT_TOOL_EXECUTION", "ToolResultText",
    "agentLoop", "agentLoopContinue", "callWithLoopRequestAbort", "copyOptions", "emptyUsage", "errorText", "followLoopRequestAbort", "loopRequestAbortOf",
    "runAgentLoop", "runAgentLoopContinue",
    "settleOrAbandon", "streamProxy",
  ],
  types: [
    "AfterToolCallContext", "AfterToolCallResult", "Agent", "AgentContext", "AgentEvent", "AgentEventSink",
    "AgentEventType", "AgentListener", "AgentLoopConfig", "AgentMessage", "AgentOptions", "AgentState", "AgentTool",
    "AgentToolCall", "AgentToolResult", "AgentToolUpdateCallback", "BeforeToolCallContext", "BeforeToolCallResult",
    "CustomAgentMessages", "LoopRequestAbort", "LoopRequestAbortObserver", "ProxyAssistantMessageEvent", "ProxyStreamOptions", "QueueMode",
    "ShouldStopAfterSteeringContext", "ShouldStopAfterTurnContext", "StreamFn", "ThinkingLevel", "ToolArguments",
    "ToolExecutionMode", "ToolExecutionStartContext", "ToolSchema",
  ],
});

describePublicSurface({
  specifier: "@turnkit/agent-loop/testing",
  entry: new URL("../src/testing/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-loop/testing`",
  values: [
    "ABORTED_ERROR_MESSAGE", "EventGrammarError", "SCRIPTED_API", "SCRIPTED_MODEL_ID", "SCRIPTED_PROVIDER",
    "ScriptedModelError", "ScriptedModelErrorCode", "abortListenerCount", "assertEventGrammar", "assistantMessage",
    "collectStream",
    "createMicrotaskClock", "createScriptedModel", "createVirtualClock", "deferred", "describeEvent", "emptyUsage", "endWithoutDone",
    "errorAfter", "eventsAfterDone", "hang", "probeGraceTimers", "probeRealTimers", "realTimerClock", "reject", "requestText",
    "response", "sequentialGraces", "text", "thinking", "throwSync", "toolCall", "toolResultMessage", "traceOf", "usageOf", "userMessage",
    "withoutStart",
  ],
  types: [
    "AssistantMessageOptions", "CollectedStream", "Deferred", "EndWithoutDoneFault", "ErrorAfterFault", "EventGrammarError",
    "EventGrammarOptions", "EventsAfterDoneFault", "GraceTimerProbe", "GraceWait", "HangFault", "MicrotaskClock", "RealTimerProbe", "RecordedRequest",
    "RecordedStreamOptions", "RecordedTool", "RejectFault", "ResponseOptions", "ScriptEntry", "ScriptEntryFunction",
    "ScriptFault", "ScriptedBlock", "ScriptedModel", "ScriptedModelError", "ScriptedModelErrorCode",
    "ScriptedModelOptions", "ScriptedResponse", "ScriptedToolCall", "ThrowSyncFault", "TimerClock",
    "ToolResultMessageOptions", "VirtualClock", "VirtualClockOptions", "WithoutStartFault",
  ],
});

describePublicSurface({
  specifier: "@turnkit/agent-loop/proxy-server",
  entry: new URL("../src/proxy-server/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-loop/proxy-server`",
  values: [
    "PROXY_DENY_STATUS", "PROXY_MAX_BODY_BYTES", "PROXY_STREAM_PATH", "ProxyRequestError", "ProxyRequestErrorCode",
    "createStreamProxyHandler", "toNodeListener", "validateProxyRequestBody",
  ],
  types: [
    "NodeRequestListener", "ProxyAssistantMessageEvent", "ProxyAuthorization", "ProxyAuthorizationRequest",
    "ProxyAuthorize", "ProxyErrorStage", "ProxyRequestBody", "ProxyRequestError", "ProxyRequestErrorCode",
    "ProxySerializableStreamOptions", "StreamProxyHandler", "StreamProxyHandlerOptions",
  ],
});
