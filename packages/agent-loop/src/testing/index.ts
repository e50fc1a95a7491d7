/**
 * `@turnkit/agent-loop/testing`: a scripted fake model, fault injection,
 * request recording, message builders and a virtual clock, for testing the
 * loop and hosts built on it without a provider. Depends only on pi-ai.
 */
export {
  response,
  text,
  thinking,
  toolCall,
  type ResponseOptions,
  type ScriptedBlock,
  type ScriptedResponse,
  type ScriptedToolCall,
} from "./script-blocks.js";
export {
  endWithoutDone,
  errorAfter,
  eventsAfterDone,
  hang,
  reject,
  throwSync,
  withoutStart,
  type EndWithoutDoneFault,
  type ErrorAfterFault,
  type EventsAfterDoneFault,
  type HangFault,
  type RejectFault,
  type ScriptFault,
  type ThrowSyncFault,
  type WithoutStartFault,
} from "./script-faults.js";
export type { ScriptEntry, ScriptEntryFunction } from "./script-entry.js";
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
} from "./scripted-model.js";
export {
  requestText,
  type RecordedRequest,
  type RecordedStreamOptions,
  type RecordedTool,
} from "./request-recording.js";
export {
  assistantMessage,
  emptyUsage,
  toolResultMessage,
  userMessage,
  type AssistantMessageOptions,
  type ToolResultMessageOptions,
} from "./message-builders.js";
export { createVirtualClock, type VirtualClock } from "./virtual-clock.js";
export { realTimerClock, type TimerClock } from "./timer-clock.js";
export {
  ABORTED_ERROR_MESSAGE,
  SCRIPTED_API,
  SCRIPTED_MODEL_ID,
  SCRIPTED_PROVIDER,
} from "./scripted-defaults.js";
