import { resolveLlmRetryPolicy } from "../call-stack/llm-retry-policy.js";
import { resolveModelFallback } from "../call-stack/model-fallback.js";
import { optionLayers } from "../call-stack/option-layers.js";
import { resolveStreamTimeouts } from "../call-stack/stream-timeout-options.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import type { RunTurnInput } from "../pi-turn-runner/run-turn-input.js";
import { assertValidRunTurnInput } from "../pi-turn-runner/run-turn-input-validation.js";
import { describeValue } from "../messages/content-checks.js";

/** What of a sub-agent definition its child turns are run with (`SubAgentDefinition` has these fields). */
export type SubAgentTurnParts = Pick<
  RunTurnInput,
  "systemPrompt" | "llm" | "tools" | "hooks" | "hookTimeoutMs" | "llmRetry" | "budget" | "workspaceDir"
> & { name: string };

/**
 * Checks what a sub-agent's turns will be run with, as `runTurn` and the
 * turn's call stack check it, so a bad definition fails where it is
 * written instead of at each call: its `llm` (unknown keys, option types,
 * cache retention, host cap, stream timeouts, `fallback`), `hooks`, `hookTimeoutMs`,
 * `llmRetry`, `budget`, `workspaceDir` and the names of its `tools`.
 *
 * Throws `TurnkitConfigError` whose message names the sub-agent and the
 * field of the definition (`defineSubAgent: sub-agent "explore":
 * hooks.onHistoryChangedHook must be ...`): code `unknown_key` for a
 * misspelt key, `duplicate_tool` for two tools of one name, `invalid_tool`
 * for everything else; the runner's own error is the `cause`.
 */
export function assertValidSubAgentInput(definition: SubAgentTurnParts): void {
  try {
    checkChildInput(definition);
  } catch (error) {
    if (!TurnkitConfigError.isInstance(error)) throw error;
    const code =
      error.code === ConfigErrorCode.UnknownKey || error.code === ConfigErrorCode.DuplicateTool
        ? error.code
        : ConfigErrorCode.InvalidTool;
    throw new TurnkitConfigError(code, `defineSubAgent: sub-agent ${nameText(definition.name)}: ${fieldText(error)}`, {
      cause: error,
    });
  }
}

/**
 * What is wrong with the input a sub-agent's child turn would be run with,
 * checked as {@link assertValidSubAgentInput} checks it, in words naming
 * the field (`budget.maxSteps must be a positive integer, got 0`), or
 * `undefined` when nothing is. For a definition handed over at a call (a
 * host layer's `runCall`), which `defineSubAgent` never saw.
 */
export function subAgentInputProblem(definition: SubAgentTurnParts): string | undefined {
  try {
    checkChildInput(definition);
    return undefined;
  } catch (error) {
    if (!TurnkitConfigError.isInstance(error)) throw error;
    return fieldText(error);
  }
}

/** Throws the runner's own `TurnkitConfigError` for the first problem of the child's input. */
function checkChildInput(definition: SubAgentTurnParts): void {
  assertValidRunTurnInput(childInputOf(definition));
  const { llm } = definition;
  optionLayers(llm);
  // Only the values given: the environment's overrides are read, and checked, when a turn runs.
  resolveStreamTimeouts(
    { firstEventTimeoutMs: llm.firstEventTimeoutMs, streamIdleTimeoutMs: llm.streamIdleTimeoutMs },
    {},
  );
  resolveModelFallback(llm.fallback, llm);
  if (definition.llmRetry !== false) resolveLlmRetryPolicy(definition.llmRetry);
  assertUniqueToolNames(definition.tools ?? []);
}

/** The runner's message, with the fields named as a definition names them (`budget.maxSteps`, not `RunTurnInput.budget.maxSteps`). */
function fieldText(error: Error): string {
  return error.message.replace(/RunTurnInput\./g, "");
}

/** The child turn's input as `runSubAgent` builds it, with placeholders for what each call provides. */
function childInputOf(definition: SubAgentTurnParts): RunTurnInput {
  return {
    sessionId: "sub-agent-definition",
    turnId: "sub-agent-definition",
    systemPrompt: definition.systemPrompt,
    userMessage: { text: "the task of a call" },
    llm: definition.llm,
    tools: definition.tools ?? [],
    disableBuiltinToolFallback: true,
    eventWriter: { push: () => {} },
    ...(definition.hooks !== undefined && { hooks: definition.hooks }),
    ...(definition.hookTimeoutMs !== undefined && { hookTimeoutMs: definition.hookTimeoutMs }),
    ...(definition.llmRetry !== undefined && { llmRetry: definition.llmRetry }),
    ...(definition.budget !== undefined && { budget: definition.budget }),
    ...(definition.workspaceDir !== undefined && { workspaceDir: definition.workspaceDir }),
  };
}

function assertUniqueToolNames(tools: NonNullable<RunTurnInput["tools"]>): void {
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const { name } = tool.def;
    if (seen.has(name)) {
      throw new TurnkitConfigError(
        ConfigErrorCode.DuplicateTool,
        `tools[${index}]: two tools are named ${JSON.stringify(name)}; tool names must be unique`,
      );
    }
    seen.add(name);
  });
}

/** A sub-agent's name for an error message: quoted when it is text, else described (a bigint has no JSON). */
export function nameText(name: unknown): string {
  return typeof name === "string" ? JSON.stringify(name) : describeValue(name);
}
