import type { AgentMessage } from "@turnkit/agent-loop";
import type { BudgetExceededDetail } from "@turnkit/protocol";
import { TURN_DEFAULTS } from "../defaults.js";
import type { HistoryChange } from "../pi-turn-runner/turn-hooks.js";
import { hookArray } from "../pi-turn-runner/turn-hooks.js";
import type { TurnState } from "../pi-turn-runner/turn-state.js";
import type { RuntimeTool, RuntimeToolResult, ToolExecutionContext } from "../tools/runtime-tool.js";
import { childTurnId, runChildTurn } from "./child-turn.js";
import { type SubAgentDefinition, type SubAgentResultDetails, isSubAgentTool } from "./define-sub-agent.js";
import { subAgentInputProblem } from "./sub-agent-input-check.js";

/**
 * The turn's tools with every sub-agent tool (`defineSubAgent`) bound to
 * `turn`: its calls run the sub-agent as a child turn of `turn`. Other
 * tools, and a value that is not a list (which the tool table rejects), are
 * returned as they are.
 */
export function bindSubAgentTools(tools: readonly RuntimeTool<any, any>[], turn: TurnState): RuntimeTool<any, any>[] {
  if (!Array.isArray(tools) || !tools.some(isSubAgentTool)) return tools as RuntimeTool<any, any>[];
  return tools.map((tool) =>
    isSubAgentTool(tool)
      ? {
          def: tool.def,
          impl: {
            execute: (ctx, { task }, signal) => {
              const run = (definition: SubAgentDefinition) => runSubAgent(definition, turn, ctx, task, signal);
              if (!tool.runCall) return run(tool.subAgent);
              return tool.runCall(
                { turnId: childTurnId(ctx.turnId, ctx.callKey ?? ctx.toolCallId), toolCallId: ctx.toolCallId },
                run,
              );
            },
          },
        }
      : tool,
  );
}

/**
 * One call of a sub-agent in `parent`: refused past its depth limit, for
 * an empty task, once the parent's output-token or cost limit is
 * reached (a child would spend more), or for a definition its child turn
 * could not run with (naming the field), otherwise run as a child turn; the result is the child's final answer, or
 * an error result naming why there is none.
 */
async function runSubAgent(
  definition: SubAgentDefinition,
  parent: TurnState,
  ctx: ToolExecutionContext,
  task: string,
  signal: AbortSignal,
): Promise<RuntimeToolResult<SubAgentResultDetails>> {
  const { name } = definition;
  const maxDepth = definition.maxDepth ?? TURN_DEFAULTS.subAgentMaxDepth;
  const path = parent.nesting.subAgentPath;
  if (path.length + 1 > maxDepth) {
    const above = path.map((step) => step.agent).join(" > ");
    return refused(name, `it would run ${path.length + 1} levels deep (under ${above}), and its limit is ${maxDepth}`);
  }
  if (task.trim() === "") return refused(name, "its task is empty", "Call it again with the task in words.");
  const spent = parent.watch.spendingLimitReached();
  if (spent) return refused(name, `the turn's ${budgetText(spent)} is spent`);
  // A definition handed over for this call (a host layer's `runCall`) was never checked; narrowing its budget must not hide a bad one.
  const problem = subAgentInputProblem(definition);
  if (problem) return refused(name, `its definition for this call is invalid: ${problem}`);
  const transcript: AgentMessage[] = [];
  const keepTranscript = (change: HistoryChange) => {
    if (change.reason === "replaceMessages") transcript.length = 0;
    transcript.push(...change.messages);
  };
  const callKey = ctx.callKey ?? ctx.toolCallId;
  // A host that bounds its own hooks expects no hook of the turn, a sub-agent's included, to hold it up without limit.
  const hookTimeoutMs = definition.hookTimeoutMs ?? parent.input.hookTimeoutMs;
  const outcome = await runChildTurn(
    parent,
    { toolCallId: ctx.toolCallId, callKey },
    {
      agent: name,
      signal,
      input: {
        systemPrompt: definition.systemPrompt,
        userMessage: { text: task },
        llm: definition.llm,
        tools: definition.tools ?? [],
        disableBuiltinToolFallback: true,
        hooks: {
          ...definition.hooks,
          onHistoryChangedHook: [keepTranscript, ...hookArray(definition.hooks?.onHistoryChangedHook)],
        },
        ...(hookTimeoutMs !== undefined && { hookTimeoutMs }),
        ...(definition.llmRetry !== undefined && { llmRetry: definition.llmRetry }),
        ...(definition.budget && { budget: definition.budget }),
        ...(definition.workspaceDir !== undefined && { workspaceDir: definition.workspaceDir }),
      },
    },
  );
  const details: SubAgentResultDetails = {
    agent: name,
    turnId: childTurnId(ctx.turnId, callKey),
    outcome: outcome.kind,
    ...(outcome.usage && { usage: outcome.usage }),
  };
  switch (outcome.kind) {
    case "completed": {
      const answer = finalAnswer(transcript);
      if (answer !== undefined) return { content: [{ type: "text", text: answer }], details };
      return {
        content: [{ type: "text", text: `Sub-agent "${name}" gave no answer: its last response had no text.` }],
        details,
        isError: true,
      };
    }
    case "failed":
      return {
        content: [
          { type: "text", text: `Sub-agent "${name}" failed (${outcome.error.code}): ${outcome.error.message}` },
        ],
        details,
        isError: true,
      };
    case "aborted":
      return { content: [{ type: "text", text: `Sub-agent "${name}" was aborted.` }], details, isError: true };
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The text of the transcript's last assistant message (the child's final
 * response), or `undefined` when it has none: an earlier step's text (a
 * preamble before a tool call) is never taken for the answer.
 */
function finalAnswer(transcript: readonly AgentMessage[]): string | undefined {
  const last = transcript.findLast((message) => message.role === "assistant");
  if (last?.role !== "assistant") return undefined;
  const text = last.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
  return text.trim().length > 0 ? text : undefined;
}

/** The error result of a call that was not run: why, and what the model may do instead. */
function refused(
  name: string,
  why: string,
  instead = "Do the task without it.",
): RuntimeToolResult<SubAgentResultDetails> {
  return {
    content: [{ type: "text", text: `Sub-agent "${name}" was not run: ${why}. ${instead}` }],
    details: { agent: name, outcome: "refused" },
    isError: true,
  };
}

/** A spending limit in words: `cost limit (maxCost 0.5)`. */
function budgetText(limit: BudgetExceededDetail): string {
  return limit.limit === "maxCost"
    ? `cost limit (maxCost ${limit.max})`
    : `${limit.limit === "maxOutputTokens" ? "output token" : "step"} limit (${limit.limit} ${limit.max})`;
}
