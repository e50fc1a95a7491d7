import {
  defineSubAgent,
  isSubAgentTool,
  type RuntimeTool,
  type SubAgentDefinition,
  type SubAgentTool,
} from "@turnkit/agent-core";
import type { Lane } from "../turn/step-lanes.js";
import type { TurnContext } from "../turn/turn-context.js";
import type { DurableRuntimeTool } from "./durable-tool.js";
import { durableHooks } from "./hook-steps.js";
import { durableLlm } from "./model-request-step.js";
import { durableToolCall } from "./tool-call-step.js";

/** Where a turn's tools run: the turn's own (`root`), or a sub-agent turn's, in its parallel call's `lane` if any. */
export interface DurableToolsOptions {
  /** Calls run one at a time. */
  sequential: boolean;
  /** The tools of the turn itself (not of a sub-agent turn). */
  root?: boolean;
  lane?: Lane;
}

/**
 * The tools of a durable turn (or of a sub-agent in it) as the runner gets
 * them: each tool's calls are durable steps (`durableToolCall`), and each
 * sub-agent (`defineSubAgent`) runs a durable child turn
 * ({@link durableSubAgent}). `sequential`: calls run one at a time.
 */
export function durableTools(
  ctx: TurnContext,
  tools: readonly DurableRuntimeTool[],
  options: DurableToolsOptions,
): RuntimeTool[] {
  return tools.map((tool) =>
    isSubAgentTool(tool) ? durableSubAgent(ctx, tool, options) : durableToolCall(ctx, tool, options),
  );
}

/**
 * A sub-agent of a durable turn whose child turn is durable too. The runner
 * runs the child inside the parent's call, as in process (its events reach
 * the parent's log with `origin` and the parent's `seq`, its report joins
 * the parent's); here every seam of the child is a step of the parent's
 * workflow: each model request, tool call and hook of the child is
 * checkpointed like the parent's own, and its approvals wait as stored
 * requests. The call itself is not a step: a replay after a crash in the
 * middle of the child runs the child again from its records, so its
 * finished requests are not sent again, its finished calls not run again,
 * and its events keep their numbers (the request streaming at the crash is
 * sent again, as in a parent).
 *
 * The child shares the turn's execution: its claim, its abort, its log,
 * its steering (what a child step takes reaches the parent at its next
 * boundary). Its history is its own: nothing of it is stored in the
 * session history.
 *
 * Calls of a sub-agent of the turn declared `executionMode: "parallel"`
 * run at the same time, as in process, each in a lane of its own (see
 * `StepLanes`): their steps take turns round-robin in the model's call
 * order, so every replay calls them in the same order, and a replay knows
 * their logged events by their place in each child's own sequence (see
 * `DurableEventWriter.beginParallel`), since the log interleaves them by
 * timing. A sub-agent of a sub-agent runs one call at a time. The child's
 * own `parallel` tools run at once, as the turn's own.
 *
 * A host `runCall` on the tool is honoured: it gets each call as in
 * process, and the definition it hands to `run` is the one made durable
 * (its seams are steps, as above). Like `buildTurn`, it runs again on
 * every execution of the turn (a replay after a crash), so it must hand
 * over the same definition for the same call and keep its effects in
 * tools and hooks, which are steps.
 */
export function durableSubAgent(ctx: TurnContext, tool: SubAgentTool, options: DurableToolsOptions): SubAgentTool {
  const definition = tool.subAgent;
  const hostRunCall = tool.runCall;
  const parallel = definition.executionMode === "parallel" && !options.sequential && options.root === true;
  return {
    ...defineSubAgent(parallel ? definition : { ...definition, executionMode: "sequential" }),
    runCall: async (call, run) => {
      // A parallel call was admitted by the turn's beforeToolCall hook as a lane of its batch.
      const lane = parallel ? ctx.lanes.of(call.toolCallId) : options.lane;
      const runDurably = (given: SubAgentDefinition) => run(durableChild(ctx, given, lane));
      try {
        return await (hostRunCall ? hostRunCall(call, runDurably) : runDurably(definition));
      } finally {
        if (parallel && lane) ctx.lanes.finish(lane);
      }
    },
  };
}

/** The definition of a sub-agent with every seam durable, its steps in `lane` when it has one. */
function durableChild(ctx: TurnContext, definition: SubAgentDefinition, lane: Lane | undefined): SubAgentDefinition {
  const tools = (definition.tools ?? []) as DurableRuntimeTool[];
  const hooks = definition.hooks ?? {};
  const sequential = hooks.onToolExecutionStartHook !== undefined || hooks.afterToolCallHook !== undefined;
  return {
    ...definition,
    llm: durableLlm(ctx, definition.llm, lane),
    tools: durableTools(ctx, tools, { sequential, lane }),
    hooks: durableHooks(ctx, hooks, tools, { storeHistory: false, lane }).hooks,
  };
}
