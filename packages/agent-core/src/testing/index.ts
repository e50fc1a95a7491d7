/**
 * `@turnkit/agent-core/testing`: what a host needs to test its own hooks,
 * tools and event handling against a real `PiTurnRunner` without a
 * provider. Run a turn against a scripted model (`runScriptedTurn`), record
 * the events (`createRecordingEventWriter`), and check the rules every turn
 * must follow (`assertRuntimeEventSequence`, `assertToolCallsAnswered`).
 *
 * The scripted model, its response builders and faults, and the virtual
 * clock come from `@turnkit/agent-loop/testing` and are re-exported here, so
 * one import is enough.
 */
export {
  createRecordingEventWriter,
  type RecordingEventWriter,
  type RecordingEventWriterOptions,
} from "./recording-event-writer.js";
export { assertRuntimeEventSequence } from "./assert-runtime-event-sequence.js";
export { assertToolCallsAnswered } from "./assert-tool-calls-answered.js";
export {
  applyHistoryChanges,
  runScriptedTurn,
  type RunScriptedTurnOptions,
  type ScriptedTurnResult,
} from "./run-scripted-turn.js";
export * from "@turnkit/agent-loop/testing";
