/**
 * `@turnkit/agent-core/testing`: what a host needs to test its own hooks,
 * tools and event handling against a real `PiTurnRunner` without a
 * provider. Run a turn against a scripted model (`runScriptedTurn`, or
 * `runCheckedTurn` to also check the rules every turn must follow), record
 * the events (`createRecordingEventWriter`) and the tool calls
 * (`createRecordingTool`), and check those rules on their own
 * (`assertRuntimeEventSequence`, `assertToolCallsAnswered`).
 *
 * The scripted model, its response builders and faults, the message
 * builders, the virtual clock, the loop's event-grammar checker, leak
 * probes and `deferred` come from `@turnkit/agent-loop/testing` and are
 * re-exported here by name, so one import is enough. Every public
 * name is listed here; `test/public-surface.test.ts` keeps the list.
 */

// ---------------------------------------------------------------- turns against a scripted model
export {
  applyHistoryChanges,
  runScriptedTurn,
  type RunScriptedTurnOptions,
  type ScriptedTurnResult,
} from "./run-scripted-turn.js";
export { runCheckedTurn } from "./run-checked-turn.js";

// ---------------------------------------------------------------- recording doubles
export {
  createRecordingEventWriter,
  type RecordingEventWriter,
  type RecordingEventWriterOptions,
} from "./recording-event-writer.js";
export {
  createRecordingTool,
  type RecordedToolCall,
  type RecordingTool,
  type RecordingToolOptions,
} from "./recording-tool.js";

// ---------------------------------------------------------------- rules every turn follows
export { assertRuntimeEventSequence } from "./assert-runtime-event-sequence.js";
export { assertToolCallsAnswered } from "./assert-tool-calls-answered.js";

// ---------------------------------------------------------------- from @turnkit/agent-loop/testing
export {
  ABORTED_ERROR_MESSAGE,
  EventGrammarError,
  SCRIPTED_API,
  SCRIPTED_MODEL_ID,
  SCRIPTED_PROVIDER,
  ScriptedModelError,
  ScriptedModelErrorCode,
  abortListenerCount,
  assertEventGrammar,
  assistantMessage,
  createScriptedModel,
  createVirtualClock,
  deferred,
  describeEvent,
  emptyUsage,
  usageOf,
  endWithoutDone,
  errorAfter,
  eventsAfterDone,
  hang,
  probeGraceTimers,
  probeRealTimers,
  sequentialGraces,
  realTimerClock,
  reject,
  requestText,
  response,
  text,
  thinking,
  throwSync,
  toolCall,
  toolResultMessage,
  traceOf,
  userMessage,
  withoutStart,
  type AssistantMessageOptions,
  type Deferred,
  type EndWithoutDoneFault,
  type ErrorAfterFault,
  type EventGrammarOptions,
  type EventsAfterDoneFault,
  type HangFault,
  type GraceTimerProbe,
  type GraceWait,
  type RealTimerProbe,
  type RecordedRequest,
  type RecordedStreamOptions,
  type RecordedTool,
  type RejectFault,
  type ResponseOptions,
  type ScriptEntry,
  type ScriptEntryFunction,
  type ScriptFault,
  type ScriptedBlock,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedResponse,
  type ScriptedToolCall,
  type ThrowSyncFault,
  type TimerClock,
  type ToolResultMessageOptions,
  type VirtualClock,
  type VirtualClockOptions,
  type WithoutStartFault,
} from "@turnkit/agent-loop/testing";
