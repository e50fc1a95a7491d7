/**
 * `@turnkit/agent-loop/testing`: a scripted fake model, fault injection,
 * request recording, message builders, a virtual clock, an event-grammar
 * checker and leak probes, for testing the loop and hosts built on it
 * without a provider. Depends only on pi-ai and Node's built-ins. Every
 * public name is listed here on purpose; `test/public-surface.test.ts` fails
 * when one is added or removed without updating its expected list.
 */

// Script blocks: what a scripted response holds
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

// Faults a script entry can inject
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

// The scripted model and what it records
export type { ScriptEntry, ScriptEntryFunction } from "./script-entry.js";
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
} from "./scripted-model.js";
export { ScriptedModelError, ScriptedModelErrorCode } from "./scripted-model-error.js";
export { collectStream, type CollectedStream } from "./collect-stream.js";
export {
  requestText,
  type RecordedRequest,
  type RecordedStreamOptions,
  type RecordedTool,
} from "./request-recording.js";

// Message builders
export {
  assistantMessage,
  emptyUsage,
  toolResultMessage,
  usageOf,
  userMessage,
  type AssistantMessageOptions,
  type ToolResultMessageOptions,
} from "./message-builders.js";

// Time
export { createVirtualClock, type VirtualClock, type VirtualClockOptions } from "./virtual-clock.js";
export { realTimerClock, type TimerClock } from "./timer-clock.js";

// Checking a run: the event grammar, readable traces, leak probes, hand-released promises
export {
  EventGrammarError,
  assertEventGrammar,
  describeEvent,
  traceOf,
  type EventGrammarOptions,
} from "./event-grammar.js";
export { abortListenerCount, probeRealTimers, type RealTimerProbe } from "./leak-probes.js";
export { probeGraceTimers, sequentialGraces, type GraceTimerProbe, type GraceWait } from "./grace-timers.js";
export { deferred, type Deferred } from "./deferred.js";
export { revokedProxy, throwingGetter } from "./unreadable-values.js";

// Constants
export {
  ABORTED_ERROR_MESSAGE,
  SCRIPTED_API,
  SCRIPTED_MODEL_ID,
  SCRIPTED_PROVIDER,
} from "./scripted-defaults.js";
