import { DBOS } from "@dbos-inc/dbos-sdk";
import type { RuntimeTool, RuntimeToolResult } from "@turnkit/agent-core";
import { beginLiveStep, type LiveStart, liveSignal, replayLiveStart, type TurnContext } from "../turn/turn-context.js";
import type { DurableRuntimeTool } from "./durable-tool.js";

/** The text of the result an interrupted call gets when its tool may not run again. */
export const INTERRUPTED_TOOL_RESULT_TEXT =
  "This tool call was interrupted by a restart of the worker running it and was not run again: it may or may not have taken effect. Check before calling it again.";

/** The checkpoint of one tool call. */
type ToolCallRecord = { start: LiveStart } & (
  | { kind: "result"; result: RuntimeToolResult; aborted: boolean }
  | { kind: "threw"; message: string; aborted: boolean }
  | { kind: "interrupted" }
  | { kind: "aborted" }
);

/**
 * Makes every call of `tool` a durable step. A finished call (result or
 * throw) is recorded and never runs again: a replay returns the record. A
 * call that was running when its worker died runs again only when the tool
 * declares `replay: "safe"`; otherwise it is answered with an error result
 * ({@link INTERRUPTED_TOOL_RESULT_TEXT}). Attempts are counted in the
 * database before `execute` starts (keyed by the step's position and the
 * call id), which is how an interrupted call is recognised.
 *
 * The steps of a turn must start in the same order on every replay. Calls
 * of `parallel` tools start together, in the model's order, which holds as
 * long as no per-call hook runs between admission and execution or after
 * it: with `sequential`, every call runs one at a time (the caller sets it
 * when the turn has an `onToolExecutionStartHook` or `afterToolCallHook`,
 * whose steps would otherwise interleave in completion order).
 */
export function durableToolCall(
  ctx: TurnContext,
  tool: DurableRuntimeTool,
  options: { sequential: boolean },
): RuntimeTool {
  const replaySafe = tool.replay === "safe";
  return {
    def: options.sequential ? { ...tool.def, executionMode: "sequential" } : tool.def,
    impl: {
      async execute(toolCtx, input, signal, onUpdate) {
        let live = false;
        const nested = DBOS.isInStep();
        const record = await DBOS.runStep(
          async (): Promise<ToolCallRecord> => {
            live = true;
            const start = await beginLiveStep(ctx, { nested });
            if (start.abortRequested) return { start, kind: "aborted" };
            // Keyed by the step's position too: a model may reuse a call id in a later response.
            const attempts = await ctx.stores.turnTable.startToolAttempt(
              ctx.ref.workflowId,
              `${DBOS.stepID}:${toolCtx.toolCallId}`,
            );
            if (attempts > 1 && !replaySafe) return { start, kind: "interrupted" };
            const callSignal = liveSignal(ctx, signal);
            try {
              const result = await tool.impl.execute(toolCtx, input, callSignal, onUpdate);
              return { start, kind: "result", result, aborted: ctx.liveAbort.signal.aborted };
            } catch (error) {
              return {
                start,
                kind: "threw",
                message: error instanceof Error ? error.message : String(error),
                aborted: ctx.liveAbort.signal.aborted,
              };
            }
          },
          // The call id in the name: a replay that reached another call here fails loudly instead of taking its record.
          { name: `turnkit.tool-call:${tool.def.name}:${toolCtx.toolCallId}` },
        );
        if (!live) replayLiveStart(ctx, record.start);
        switch (record.kind) {
          case "result":
            if (record.aborted) ctx.turnAbort.abort();
            return record.result;
          case "threw":
            if (record.aborted) ctx.turnAbort.abort();
            throw new Error(record.message);
          case "interrupted":
            return {
              content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
              isError: true,
              details: { interrupted: true },
            };
          case "aborted":
            ctx.turnAbort.abort();
            return {
              content: [{ type: "text", text: "The turn was aborted before this tool call ran." }],
              isError: true,
            };
          default: {
            const unreachable: never = record;
            return unreachable;
          }
        }
      },
    },
  };
}
