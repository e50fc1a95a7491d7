import { setTimeout as sleep } from "node:timers/promises";
import { TOOL_NAME, runContender } from "./contenders.js";
import { assertCompleteRun } from "./run-check.js";
import {
  BENCH_MODEL,
  drain,
  scriptedStreamFn,
  textResponse,
  toolCallResponse,
  type ScriptedResponse,
} from "./scripted-stream.js";
import type { TimedWorkload } from "./workload.js";

/** Parallel tool calls in the one tool response. */
export const W4_CALLS = 64;

/** How long each call waits. */
export const W4_TOOL_WAIT_MS = 10;

const FINAL_TEXT = "done";
let script: ScriptedResponse[] | undefined;

function responses(): ScriptedResponse[] {
  script ??= [toolCallResponse(0, W4_CALLS, TOOL_NAME), textResponse(1, FINAL_TEXT)];
  return script;
}

const wait = () => sleep(W4_TOOL_WAIT_MS).then(() => undefined);

/** The floor of W4: both streams iterated and the 64 waits run at once, no agent. */
async function runW4Floor(): Promise<void> {
  const streamFn = scriptedStreamFn(responses());
  await drain(await streamFn(BENCH_MODEL, { messages: [] }, {}));
  await Promise.all(Array.from({ length: W4_CALLS }, wait));
  await drain(await streamFn(BENCH_MODEL, { messages: [] }, {}));
}

/**
 * W4 wide batch: one response with 64 parallel tool calls that each wait
 * 10 ms, then an answer. Wall time must stay near 10 ms plus overhead (the
 * floor), not 640 ms: it shows the calls really overlap.
 */
export const W4: TimedWorkload = {
  id: "W4",
  description: `one response with ${W4_CALLS} parallel tool calls that each wait ${W4_TOOL_WAIT_MS} ms`,
  contenders: ["floor", "pi", "ours", "runner", "runner-no-retry"],
  plan: { warmup: 3, rounds: 15 },
  prepare: () => void responses(),
  async verify(contender) {
    if (contender === "floor") return runW4Floor();
    const result = await runContender(
      contender,
      { prompt: "wide", streamFn: scriptedStreamFn(responses()), tool: wait },
      true,
    );
    assertCompleteRun("W4", contender, result, {
      messageCount: 1 + 1 + W4_CALLS + 1,
      finalTextLength: FINAL_TEXT.length,
    });
  },
  run: (contender) =>
    contender === "floor"
      ? runW4Floor()
      : runContender(contender, { prompt: "wide", streamFn: scriptedStreamFn(responses()), tool: wait }),
};
