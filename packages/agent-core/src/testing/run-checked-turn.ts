import { assertRuntimeEventSequence } from "./assert-runtime-event-sequence.js";
import { assertToolCallsAnswered } from "./assert-tool-calls-answered.js";
import { type RunScriptedTurnOptions, type ScriptedTurnResult, runScriptedTurn } from "./run-scripted-turn.js";

/**
 * Runs a scripted turn like {@link runScriptedTurn}, then checks what must
 * hold after every ending, whatever the scenario: a valid event sequence
 * (`assertRuntimeEventSequence`) and a transcript in which each tool call
 * has exactly one result (`assertToolCallsAnswered`). Rejects with the
 * checker's error when either fails, and when `runTurn` rejects.
 */
export async function runCheckedTurn(options: RunScriptedTurnOptions): Promise<ScriptedTurnResult> {
  const result = await runScriptedTurn(options);
  assertRuntimeEventSequence(result.events);
  assertToolCallsAnswered(result.transcript);
  return result;
}
