import { Type } from "@sinclair/typebox";
import type { ToolExecutionMode } from "@turnkit/agent-loop";
import { isRecord } from "@turnkit/agent-loop/internal";
import type { TurnOutcome, TurnUsage } from "@turnkit/protocol";
import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { assertKnownKeys } from "../known-keys.js";
import { describeValue } from "../messages/content-checks.js";
import { assertValidSubAgentInput, nameText } from "./sub-agent-input-check.js";
import type { PiTurnHooks } from "../pi-turn-runner/turn-hooks.js";
import { defineRuntimeTool } from "../tools/define-runtime-tool.js";
import { type RuntimeTool, type RuntimeToolResult, assertRuntimeTool } from "../tools/runtime-tool.js";
import type { TurnBudget } from "../turn-watch/turn-budget.js";

/**
 * A sub-agent, declared once: an agent of its own (system prompt, tools,
 * model) that the parent's model calls like a tool with a task, and whose
 * final answer is the call's result.
 */
export interface SubAgentDefinition {
  /** The tool name the parent's model calls (letters, digits, `_`, `-`, at most 64); also the name in events and reports. */
  name: string;
  /** What the sub-agent does and when to use it; sent to the parent's model. */
  description: string;
  /** The sub-agent's own system prompt. */
  systemPrompt: string;
  /** Its model and call-stack options. */
  llm: LlmConfig;
  /** The tools it may call (none by default: built-in tools are not added unless listed here). */
  tools?: RuntimeTool[];
  /** Hooks of its turns (a permission check, its own history hook). */
  hooks?: PiTurnHooks;
  /**
   * How long, in milliseconds, its turns wait for each of its hooks (a
   * positive integer; see `RunTurnInput.hookTimeoutMs`). Absent: the
   * calling turn's `hookTimeoutMs`, so a host that bounds its own hooks
   * never waits on a sub-agent's hook without limit. A hook past it fails
   * by its kind's rule (a before-LLM hook that never answers fails the
   * child, and the call's error result names the hook).
   */
  hookTimeoutMs?: number;
  /** Transport retry of its requests; on by default, `false` turns it off. */
  llmRetry?: LlmRetryOptions | false;
  /** Limits of each of its runs; reaching one stops that run alone (an error result of the call). The parent's remaining budget applies too. */
  budget?: TurnBudget;
  /** `"parallel"` lets several calls of one parent response run at once; `"sequential"` (default) runs the batch one call at a time. */
  executionMode?: ToolExecutionMode;
  /**
   * The deepest level it may run at: 1 is a sub-agent of the host's turn, 2
   * a sub-agent of a sub-agent. A call that would run deeper is refused
   * with an error result. Default `TURN_DEFAULTS.subAgentMaxDepth` (2).
   */
  maxDepth?: number;
  /** Directory its built-in tools work in, when `tools` lists some. Default: the runner's. */
  workspaceDir?: string;
}

/** What the result of a sub-agent call carries in `details` (never sent to the model). */
export interface SubAgentResultDetails {
  /** The sub-agent's name. */
  agent: string;
  /** The sub-agent turn's id; absent when the call was refused before it ran. */
  turnId?: string;
  /** How its turn ended, or `refused` when the call was not run (past the depth limit, an empty task, the calling turn's output-token or cost limit was reached, or a host layer's `runCall` handed over a definition its turn could not run with). */
  outcome: TurnOutcome["kind"] | "refused";
  /** What its turn spent, when it ran. */
  usage?: TurnUsage;
}

const SUB_AGENT_KEYS: readonly (keyof SubAgentDefinition)[] = [
  "name",
  "description",
  "systemPrompt",
  "llm",
  "tools",
  "hooks",
  "hookTimeoutMs",
  "llmRetry",
  "budget",
  "executionMode",
  "maxDepth",
  "workspaceDir",
];

/** The arguments the model calls a sub-agent with. */
export const SubAgentTaskParameters = Type.Object({
  task: Type.String({ description: "What the sub-agent should do, with everything it needs to know." }),
});

/**
 * Makes a sub-agent a tool (`agent.asTool()` in other SDKs): the model calls
 * it with `{ task }`, and the tool runs the sub-agent as a child turn of
 * the calling turn, on the same runner:
 *
 * - the child's events reach the parent's stream marked with `origin`; its
 *   usage, timing and outcome join the parent's report (`subAgentCalls`);
 *   its spending counts for the parent's budget;
 * - the result is the text of the child's final response; a final
 *   response without text (only thinking, or empty) is an error result,
 *   and so is a child that fails (a provider error, its budget reached, a
 *   timeout) or is aborted, naming why; the parent goes on;
 * - a call that would run deeper than `maxDepth`, whose task is empty (or
 *   only whitespace), or that comes once the calling turn's output-token or
 *   cost limit is reached, is refused with an error result, without running
 *   anything;
 * - aborting the parent aborts the child (the call's signal).
 *
 * Throws `TurnkitConfigError` for an invalid definition, at once, naming
 * the field: `invalid_tool`, `unknown_key` for a misspelt key (of the
 * definition, its `llm`, `hooks`, `llmRetry` or `budget`), `duplicate_tool`
 * for two of its tools with one name; a definition that cannot be read (a
 * revoked proxy, a getter that throws) is `invalid_tool` saying so.
 * Everything `runTurn` would refuse in the child's input is refused here,
 * so no call fails for its definition.
 */
export function defineSubAgent(definition: SubAgentDefinition): SubAgentTool {
  assertValidSubAgent(definition);
  const tool = defineRuntimeTool<typeof SubAgentTaskParameters, SubAgentResultDetails>({
    name: definition.name,
    description: definition.description,
    parameters: SubAgentTaskParameters,
    executionMode: definition.executionMode ?? TURN_DEFAULTS.runtimeToolExecutionMode,
    execute: (): never => {
      throw new Error(
        `Sub-agent "${definition.name}" runs only in a turn of PiTurnRunner, which binds it to the calling turn`,
      );
    },
  });
  return { ...tool, subAgent: definition };
}

/**
 * The tool `defineSubAgent` returns: a `RuntimeTool` that also carries its
 * definition. A `PiTurnRunner` turn binds it to itself (so the sub-agent
 * runs as its child); run anywhere else, its `execute` throws.
 */
export interface SubAgentTool extends RuntimeTool<typeof SubAgentTaskParameters, SubAgentResultDetails> {
  /** The definition the tool was made from. */
  readonly subAgent: SubAgentDefinition;
  /**
   * Runs each call in place of the turn (absent: the turn runs `subAgent`
   * itself): it must call `run` once, with the definition for that call
   * (the same one, or one whose seams know the call), and return what it
   * returns. That definition is checked as `defineSubAgent` checks one: a
   * call with one its turn could not run with is refused (an error result
   * naming the field). For host layers that keep per-call state (agent-durable's
   * parallel sub-agent calls); `defineSubAgent` sets none.
   */
  readonly runCall?: SubAgentCallRunner;
}

/** One call of a sub-agent as the turn hands it to {@link SubAgentTool.runCall}. */
export interface SubAgentCall {
  /** The child turn's id: `<parent turnId>/<callKey>` (the call's `ToolExecutionContext.callKey`). */
  turnId: string;
  /** The parent's tool call that runs the sub-agent. */
  toolCallId: string;
}

/** Runs one call of a sub-agent for a host layer: calls `run` once and returns its result (see {@link SubAgentTool.runCall}). */
export type SubAgentCallRunner = (
  call: SubAgentCall,
  run: (definition: SubAgentDefinition) => Promise<RuntimeToolResult<SubAgentResultDetails>>,
) => Promise<RuntimeToolResult<SubAgentResultDetails>>;

/** True for a tool `defineSubAgent` made. */
export function isSubAgentTool(tool: unknown): tool is SubAgentTool {
  return isRecord(tool) && typeof tool.subAgent === "object";
}

/** Refuses a bad definition naming the field; one that cannot be read (a revoked proxy, a getter that throws) as such, never with the engine's error. */
function assertValidSubAgent(definition: SubAgentDefinition): void {
  try {
    checkSubAgent(definition);
  } catch (error) {
    if (TurnkitConfigError.isInstance(error)) throw error;
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      "defineSubAgent: the definition could not be read (a revoked proxy or a getter that throws)",
      { cause: error },
    );
  }
}

function checkSubAgent(definition: SubAgentDefinition): void {
  if (typeof definition !== "object" || definition === null) {
    throw new TurnkitConfigError(ConfigErrorCode.InvalidTool, "defineSubAgent: expected a sub-agent definition object");
  }
  assertKnownKeys(definition, SUB_AGENT_KEYS, "defineSubAgent");
  const { tools } = definition;
  // By index, so a hole in the list is checked (and refused) as the undefined entry it reads as.
  if (Array.isArray(tools))
    for (let index = 0; index < tools.length; index++)
      assertRuntimeTool(tools[index], `defineSubAgent: tools[${index}]`);
  const problems: string[] = [];
  if (typeof definition.systemPrompt !== "string") problems.push("systemPrompt must be a string");
  if (typeof definition.llm !== "object" || definition.llm === null || !definition.llm.model)
    problems.push("llm.model is required");
  if (definition.tools !== undefined && !Array.isArray(definition.tools)) problems.push("tools must be an array");
  const { maxDepth } = definition;
  if (maxDepth !== undefined && (!Number.isInteger(maxDepth) || maxDepth < 1))
    problems.push(`maxDepth must be a positive integer, got ${describeValue(maxDepth)}`);
  if (problems.length > 0) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `defineSubAgent: sub-agent ${nameText(definition.name)} is invalid: ${problems.join("; ")}`,
    );
  }
  assertValidSubAgentInput(definition);
}
