/**
 * The public surface of `@turnkit/agent-core` and `@turnkit/agent-core/testing`:
 * every value and type each entry exports. A name added, removed or retyped
 * fails this test until the lists below and the README's API section say
 * so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-core",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-core`",
  values: [
    "TRACER_NAME",
    "AFTER_LLM_HOOK_MAX_RETRIES", "AGENT_TOOL_EXECUTION", "BASH_DEFAULT_TIMEOUT_MS", "BASH_ENV_SANITIZE_ENV",
    "BASH_ENV_SANITIZE_MODE", "BASH_ENV_SANITIZE_MODE_IN_CI", "BASH_ENV_SCRUB_DENYLIST", "BASH_KILL_GRACE_MS",
    "BASH_MAX_OUTPUT_BYTES", "BASH_MAX_TIMEOUT_MS", "BUILTIN_FALLBACK_TOOL_NAMES", "BUILTIN_TOOL_NAMES",
    "BoundedInternalTurnPromptReadRegistry", "ConfigErrorCode", "DEFAULT_BASH_ENV_BOUNDARY_NAMES",
    "DEFAULT_BASH_ENV_BOUNDARY_PREFIXES", "DROPPED_RESPONSE_FIELD", "EventBridge", "FOLLOW_UP_MODE",
    "GLOB_DEFAULT_MAX_RESULTS", "GREP_DEFAULT_MAX_MATCHES", "GREP_MAX_FILE_BYTES", "LLM_FIRST_EVENT_TIMEOUT_ENV",
    "LLM_FIRST_EVENT_TIMEOUT_MS", "LLM_REQUEST_TIMEOUT_MS", "LLM_RETRY_BASE_DELAY_MS", "LLM_RETRY_MAX_DELAY_MS",
    "LLM_RETRY_MAX_ELAPSED_MS", "LLM_RETRY_MAX_RETRIES", "LLM_STREAM_IDLE_TIMEOUT_ENV", "LLM_STREAM_IDLE_TIMEOUT_MS",
    "LlmTimeoutError", "MAX_IMAGES_PER_REQUEST", "MAX_LINE_CHARS", "MIN_IMAGE_DIMENSION_PX",
    "PROMPT_READ_REGISTRY_CAPACITY", "PiTurnRunner", "PromptReadErrorCode", "READ_MAX_BYTES", "READ_MAX_IMAGE_BYTES",
    "READ_MAX_LINES", "RUNTIME_TOOL_EXECUTION_MODE", "STEERING_MODE", "TurnkitConfigError", "TurnkitError",
    "WALK_SKIPPED_DIRECTORIES", "assertKnownKeys", "assertRuntimeTool", "assertRuntimeToolDef", "bindTool", "boundToolDef",
    "classifyError", "composeStreamFn", "createBashEnvSpawnHook", "createBuiltinTools", "createFailureMessage", "createHiddenMessage",
    "createOverflowRecoveryState", "createUserMessage", "defineRuntimeTool", "getAttachedClassifiedError",
    "hookArray", "isDroppedResponse", "newTools", "projectAgentMessagesForModel", "resolveBashEnvSanitizeMode",
    "resolveLlmRetryPolicy", "resolveStreamTimeouts", "resolveWorkspacePath", "sanitizeBashEnv", "sleep",
    "systemClock", "toRuntimeTool", "withCacheRetention", "withFetch", "withHeaders", "withHostMaxOutputTokens",
    "withLlmRetry", "withMaxTokens", "withOverflowRecovery", "withRequestTimeout", "withStreamTimeouts",
  ],
  types: [
    "TurnBudget", "TurnTelemetryOptions",
    "AfterLlmCallDecision", "AfterLlmCallEvent", "AfterLlmCallHook", "AfterToolCallEvent", "AfterToolCallHook",
    "AfterToolCallPatch", "AnyModel", "AssertKnownKeysOptions", "BashEnvSanitizeMode", "BashEnvSpawnHook", "BashEnvSpawnHookOptions",
    "BeforeLlmCallDecision", "BeforeLlmCallEvent", "BeforeLlmCallHook", "BeforeToolCallDecision",
    "BeforeToolCallHook", "BoundToolClass", "BoundToolInstance", "BoundedInternalTurnPromptReadRegistry",
    "BridgeOutput", "BuiltinToolName", "BuiltinToolsOptions", "ClassifiedError", "Clock", "ConfigErrorCode",
    "DefineRuntimeToolOptions", "EventBridge", "EventWriter", "HiddenContextInput", "HiddenContextMessage",
    "HistoryChange", "HookList", "HookTurnContext", "HostOnlyMessage", "LlmCallPreparedEvent", "LlmCallReason",
    "LlmConfig", "LlmRetryDependencies", "LlmRetryExhaustedReason", "LlmRetryNotification", "LlmRetryObserver",
    "LlmRetryOptions", "LlmRetryPolicy", "LlmTimeoutError", "LlmTimeoutKind", "MessageIdAllocator", "NewToolsOptions",
    "OnHistoryChangedHook", "OnLlmCallPreparedHook", "OnStepEndHook", "OnToolExecutionStartHook", "OverflowRecover",
    "OverflowRecoveryOptions", "OverflowRecoveryRequest", "OverflowRecoveryState", "PiTurnHooks", "PiTurnRunner",
    "PiTurnRunnerOptions", "ProjectMessagesOptions", "PromptReadResult", "PromptReadScope", "PromptSnapshotSource",
    "RandomSource", "RunTurnInput", "RuntimeTool", "RuntimeToolDef", "RuntimeToolImpl", "RuntimeToolResult",
    "RuntimeToolUpdateCallback", "SanitizeBashEnvOptions", "SanitizedBashEnv", "SteeringBoundary", "StepEndEvent",
    "StreamFn", "StreamFnOptions", "StreamFnOptionsWithFetch", "StreamTimeoutOptions", "StreamTimeouts",
    "ToolCallHookEvent", "ToolExecutionContext", "TurnInputMessage", "TurnLogger", "TurnMetricsSink",
    "TurnUserMessage", "TurnkitConfigError", "TurnkitError", "UserMessageHostFields", "WorkspacePath",
  ],
});

describePublicSurface({
  specifier: "@turnkit/agent-core/testing",
  entry: new URL("../src/testing/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-core/testing`",
  values: [
    "ABORTED_ERROR_MESSAGE", "EventGrammarError", "SCRIPTED_API", "SCRIPTED_MODEL_ID", "SCRIPTED_PROVIDER",
    "ScriptedModelError", "ScriptedModelErrorCode", "abortListenerCount", "applyHistoryChanges", "assertEventGrammar",
    "assertRuntimeEventSequence", "assertToolCallsAnswered", "assistantMessage", "createRecordingEventWriter",
    "createRecordingTool", "createScriptedModel", "createVirtualClock", "deferred", "describeEvent", "emptyUsage",
    "endWithoutDone", "errorAfter", "eventsAfterDone", "hang", "probeGraceTimers", "probeRealTimers", "realTimerClock", "reject",
    "requestText", "response", "runCheckedTurn", "runScriptedTurn", "text", "thinking", "throwSync", "toolCall",
    "toolResultMessage", "traceOf", "sequentialGraces", "usageOf", "userMessage", "withoutStart",
  ],
  types: [
    "AssistantMessageOptions", "Deferred", "EndWithoutDoneFault", "ErrorAfterFault", "EventGrammarError",
    "EventGrammarOptions", "EventsAfterDoneFault", "GraceTimerProbe", "GraceWait", "HangFault", "RealTimerProbe", "RecordedRequest",
    "RecordedStreamOptions", "RecordedTool", "RecordedToolCall", "RecordingEventWriter",
    "RecordingEventWriterOptions", "RecordingTool", "RecordingToolOptions", "RejectFault", "ResponseOptions",
    "RunScriptedTurnOptions", "ScriptEntry", "ScriptEntryFunction", "ScriptFault", "ScriptedBlock", "ScriptedModel",
    "ScriptedModelError", "ScriptedModelErrorCode", "ScriptedModelOptions", "ScriptedResponse", "ScriptedToolCall",
    "ScriptedTurnResult", "ThrowSyncFault", "TimerClock", "ToolResultMessageOptions", "VirtualClock",
    "VirtualClockOptions", "WithoutStartFault",
  ],
});
