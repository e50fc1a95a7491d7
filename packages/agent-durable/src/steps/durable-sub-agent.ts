import { streamSimple } from "@mariozechner/pi-ai";
import { defineSubAgent, isSubAgentTool, type RuntimeTool, type SubAgentTool } from "@turnkit/agent-core";
import type { TurnContext } from "../turn/turn-context.js";
import type { DurableRuntimeTool } from "./durable-tool.js";
import { durableHooks } from "./hook-steps.js";
import { durableStreamFn } from "./model-request-step.js";
import { durableToolCall } from "./tool-call-step.js";

/**
 * The tools of a durable turn (or of a sub-agent in it) as the runner gets
 * them: each tool's calls are durable steps (`durableToolCall`), and each
 * sub-agent (`defineSubAgent`) runs a durable child turn
 * ({@link durableSubAgent}). `sequential`: calls run one at a time.
 */
export function durableTools(
  ctx: TurnContext,
  tools: readonly DurableRuntimeTool[],
  options: { sequential: boolean },
): RuntimeTool[] {
  return tools.map((tool) => (isSubAgentTool(tool) ? durableSubAgent(ctx, tool) : durableToolCall(ctx, tool, options)));
}

/**
 * A sub-agent of a durable turn whose child turn is durable too. The runner
 * runs the child inside the parent's call, as in process (its events reach
 * the parent's log with `origin` and the parent's `seq`, its report joins
 * the parent's); here every seam of the child is a step of the parent's
 * workflow: each model request, tool call and hook of the child is
 * checkpointed like the parent's own. The call itself is not a step: a
 * replay after a crash in the middle of the child runs the child again
 * from its records, so its finished requests are not sent again, its
 * finished calls not run again, and its events keep their numbers (the
 * request streaming at the crash is sent again, as in a parent).
 *
 * The child shares the turn's execution: its claim, its abort, its log,
 * its steering (what a child step takes reaches the parent at its next
 * boundary). Its history is its own: nothing of it is stored in the
 * session history. Several calls of the sub-agent in one response run one
 * after the other (`executionMode: "sequential"`, whatever the definition
 * says): steps are numbered in the order they are called, and two children
 * at once would call theirs in an order that depends on timing. The
 * child's own `parallel` tools run at once, as the turn's own.
 */
export function durableSubAgent(ctx: TurnContext, tool: SubAgentTool): SubAgentTool {
  const definition = tool.subAgent;
  const tools = (definition.tools ?? []) as DurableRuntimeTool[];
  const hooks = definition.hooks ?? {};
  const sequential = hooks.onToolExecutionStartHook !== undefined || hooks.afterToolCallHook !== undefined;
  return defineSubAgent({
    ...definition,
    executionMode: "sequential",
    llm: { ...definition.llm, streamFn: durableStreamFn(ctx, definition.llm.streamFn ?? streamSimple) },
    tools: durableTools(ctx, tools, { sequential }),
    hooks: durableHooks(ctx, hooks, tools, { storeHistory: false }).hooks,
  });
}
