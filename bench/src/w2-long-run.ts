import { TOOL_NAME, runContender, type ContenderId, type ToolSchemaKind } from "./contenders.js";
import { assertCompleteRun } from "./run-check.js";
import {
  BENCH_MODEL,
  drain,
  scriptedStreamFn,
  textResponse,
  toolCallResponse,
  type ScriptedResponse,
} from "./scripted-stream.js";
import { runW1 } from "./w1-streaming.js";
import type { RoundPlan, TimedWorkload } from "./workload.js";

/** Parallel tool calls per step. */
export const W2_CALLS_PER_STEP = 4;

/** Who runs W2 unless told otherwise. */
export const W2_CONTENDERS: readonly ContenderId[] = ["floor", "pi", "ours", "runner", "runner-no-retry"];

/** The final answer after the last step. */
const FINAL_TEXT = "done";

const scripts = new Map<number, ScriptedResponse[]>();

/** The responses of a W2 run of `steps` steps, built once per size and shared by every run. */
export function w2Responses(steps: number): ScriptedResponse[] {
  let responses = scripts.get(steps);
  if (!responses) {
    responses = [];
    for (let step = 0; step < steps; step++) responses.push(toolCallResponse(step, W2_CALLS_PER_STEP, TOOL_NAME));
    responses.push(textResponse(1, FINAL_TEXT));
    scripts.set(steps, responses);
  }
  return responses;
}

/** One W2 run of an agent contender, its tool declared as `toolSchema` (default TypeBox). */
export function runW2(
  contender: Exclude<ContenderId, "floor">,
  steps: number,
  verify = false,
  toolSchema?: ToolSchemaKind,
) {
  return runContender(
    contender,
    { prompt: "work", streamFn: scriptedStreamFn(w2Responses(steps)), toolSchema },
    verify,
  );
}

/** How a W2 variant differs from the plain one. */
export interface W2Variant {
  /** How the tool declares its arguments. */
  toolSchema: ToolSchemaKind;
  /** Each contender runs W1 once, untimed, before its W2 runs: W2 in a process that has streamed, as hosts run it. */
  afterW1: boolean;
}

/** The floor of W2: every response stream of the run iterated in turn, no tools, no agent. */
async function runW2Floor(steps: number): Promise<number> {
  const responses = w2Responses(steps);
  const streamFn = scriptedStreamFn(responses);
  let events = 0;
  for (let index = 0; index < responses.length; index++)
    events += await drain(await streamFn(BENCH_MODEL, { messages: [] }, {}));
  return events;
}

/**
 * W2 long run: `steps` steps of 4 parallel no-op tool calls, then a final
 * answer; the transcript grows to 5 × steps + 2 messages. Measures the
 * per-step cost and how it grows with the transcript (run at 300 and 1,200
 * steps: 16× the work if each step is linear in the transcript).
 */
export function w2LongRun(
  steps: number,
  plan: RoundPlan,
  contenders: readonly ContenderId[] = W2_CONTENDERS,
): TimedWorkload {
  const expected = { messageCount: 1 + steps * (1 + W2_CALLS_PER_STEP) + 1, finalTextLength: FINAL_TEXT.length };
  return {
    id: `W2-${steps}`,
    description: `${steps.toLocaleString("en")} steps × ${W2_CALLS_PER_STEP} parallel no-op tool calls, then an answer`,
    contenders,
    plan,
    prepare: () => void w2Responses(steps),
    async verify(contender) {
      if (contender === "floor") {
        await runW2Floor(steps);
        return;
      }
      assertCompleteRun(`W2-${steps}`, contender, await runW2(contender, steps, true), expected);
    },
    run: (contender) => (contender === "floor" ? runW2Floor(steps) : runW2(contender, steps)),
  };
}

/**
 * W2 with the tool declared as plain JSON Schema (`{ type: "object",
 * properties: {} }`, as MCP servers declare tools) and, with `afterW1`,
 * each contender streaming one W1 response before its first W2 run, so the
 * JIT has seen the streaming path too: the shape an independent benchmark
 * measured our Agent at 1.08–1.11× pi on. Table id `W2-<steps>-json`.
 */
export function w2Variant(
  steps: number,
  plan: RoundPlan,
  contenders: readonly Exclude<ContenderId, "floor">[],
  variant: W2Variant,
): TimedWorkload {
  const plain = w2LongRun(steps, plan, contenders);
  const id = `${plain.id}-${variant.toolSchema}`;
  const expected = { messageCount: 1 + steps * (1 + W2_CALLS_PER_STEP) + 1, finalTextLength: FINAL_TEXT.length };
  const agent = (contender: ContenderId) => {
    if (contender === "floor") throw new Error(`${id} has no floor`);
    return contender;
  };
  return {
    ...plain,
    id,
    description: `W2-${steps} with a ${variant.toolSchema === "json" ? "plain JSON Schema" : "TypeBox"} tool${variant.afterW1 ? ", after a W1 run" : ""}`,
    async verify(contender) {
      if (variant.afterW1) await runW1(agent(contender));
      assertCompleteRun(id, contender, await runW2(agent(contender), steps, true, variant.toolSchema), expected);
    },
    run: (contender) => runW2(agent(contender), steps, false, variant.toolSchema),
  };
}
