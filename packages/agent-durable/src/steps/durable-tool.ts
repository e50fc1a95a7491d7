import type { RuntimeTool } from "@turnkit/agent-core";
import type { ToolSchema } from "@turnkit/agent-loop";

/**
 * Whether a tool call that was running when its worker died may run again.
 * `never` (the default): the call is answered with an error result saying
 * it was interrupted by a restart and not re-run, and the model decides.
 * `safe`: it runs again (reads, idempotent writes).
 */
export type ToolReplayPolicy = "safe" | "never";

/**
 * A `RuntimeTool` with the two durable flags. A plain `RuntimeTool` is a
 * valid `DurableRuntimeTool` (never replayed, no approval).
 */
export type DurableRuntimeTool<TParameters extends ToolSchema = ToolSchema, TDetails = unknown> = RuntimeTool<
  TParameters,
  TDetails
> & {
  /** May an interrupted call run again? Default `"never"`. */
  readonly replay?: ToolReplayPolicy;
  /** `true`: every call waits for a person's `respond` (an `action.required` event) before it runs. */
  readonly requiresApproval?: boolean;
};

/** Adds the durable flags to a tool (`defineRuntimeTool(...)` or `toRuntimeTool(...)`); the tool itself is not modified. */
export function durableTool<TParameters extends ToolSchema, TDetails>(
  tool: RuntimeTool<TParameters, TDetails>,
  flags: { replay?: ToolReplayPolicy; requiresApproval?: boolean },
): DurableRuntimeTool<TParameters, TDetails> {
  return { ...tool, ...flags };
}
