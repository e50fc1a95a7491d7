import type { RuntimeTool, ToolExecutionContext } from "@turnkit/agent-core";
import { assertRuntimeTool } from "@turnkit/agent-core/internal";
import type { ToolSchema } from "@turnkit/agent-loop";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { invalidInput } from "../errors.js";

/**
 * Whether a tool call that was running when its worker died may run again.
 * `never` (the default): the call is answered with an error result saying
 * it was interrupted by a restart and not re-run, and the model decides.
 * `safe`: it runs again (reads, idempotent writes; see
 * {@link DurableToolExecutionContext.idempotencyKey}).
 */
export type ToolReplayPolicy = "safe" | "never";

/**
 * What a durable tool's `execute` receives as `ctx`: the runner's context
 * plus the call's idempotency key. The key is the same on every attempt of
 * one call (a `replay: "safe"` call run again after a crash gets the key
 * of the attempt that was interrupted) and different for every other call,
 * in any turn or session of the deployment. Send it with the side effect
 * (an `Idempotency-Key` header, a unique column) so the far end performs
 * it once however often the call runs.
 */
export interface DurableToolExecutionContext extends ToolExecutionContext {
  /** Stable per call: the turn's workflow id, the call's step position and its call id. */
  readonly idempotencyKey: string;
}

/**
 * The idempotency key of a durable tool call, from the `ctx` its `execute`
 * received (see {@link DurableToolExecutionContext}). Throws
 * `invalid_input` for a context without one (or no context at all): the
 * tool runs outside a durable turn (then there is no replay to guard
 * against either).
 */
export function idempotencyKeyOf(ctx: ToolExecutionContext): string {
  const key = isRecord(ctx) ? (ctx as Partial<DurableToolExecutionContext>).idempotencyKey : undefined;
  if (typeof key !== "string")
    throw invalidInput("ctx.idempotencyKey is missing: the tool runs outside a durable turn");
  return key;
}

/**
 * A `RuntimeTool` with the two durable flags. A plain `RuntimeTool` is a
 * valid `DurableRuntimeTool` (never replayed, no approval).
 *
 * The contract of `execute` in a durable turn: it runs as a step; a call
 * that finished is never run again (its result is the record); a call that
 * was running when its worker died is run again only with `replay:
 * "safe"`, with the same `ctx.idempotencyKey` (read it with
 * {@link idempotencyKeyOf}); `signal` fires when the turn is aborted, and a
 * call that has not settled within the abort grace is answered as aborted
 * (it may still take effect: honour the signal).
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

/**
 * Adds the durable flags to a tool (`defineRuntimeTool(...)` or
 * `toRuntimeTool(...)`); the tool itself is not modified. Throws when `tool`
 * is no `RuntimeTool` (`TurnkitConfigError`, `invalid_tool`) or `flags` is
 * no object, or holds a `replay` other than `"safe"`/`"never"` or a
 * `requiresApproval` that is no boolean (`DurableTurnError`,
 * `invalid_input`, naming the field).
 */
export function durableTool<TParameters extends ToolSchema, TDetails>(
  tool: RuntimeTool<TParameters, TDetails>,
  flags: { replay?: ToolReplayPolicy; requiresApproval?: boolean },
): DurableRuntimeTool<TParameters, TDetails> {
  assertRuntimeTool(tool, "durableTool: tool");
  if (!isRecord(flags))
    throw invalidInput(
      `durableTool: flags must be an object { replay?, requiresApproval? }, got ${describeValue(flags)}`,
    );
  if (flags.replay !== undefined && flags.replay !== "safe" && flags.replay !== "never")
    throw invalidInput(`durableTool: flags.replay must be "safe" or "never", got ${describeValue(flags.replay)}`);
  if (flags.requiresApproval !== undefined && typeof flags.requiresApproval !== "boolean")
    throw invalidInput(
      `durableTool: flags.requiresApproval must be a boolean, got ${describeValue(flags.requiresApproval)}`,
    );
  return { ...tool, ...flags };
}
