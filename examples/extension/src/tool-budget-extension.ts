import type { Extension } from "@turnkit/agent-runtime";

/** The profile's `params["tool-budget"]`. */
export interface ToolBudgetParams {
  maxToolCalls: number;
}

/**
 * A hand-written extension: an object with `id` and `init(api)`, no factory.
 * `init` runs once, when the runtime is built; everything per turn happens
 * in the handlers it subscribes, which get the turn's `ctx`.
 *
 * It caps tool calls per turn at `params.maxToolCalls` (from the profile):
 * later calls are blocked, and the model gets the reason as the call's error
 * result. Counters are per turn (keyed by `ctx.turnId`, dropped at
 * `turn_end`), so concurrent turns do not share a budget. `report` receives
 * one line per turn.
 */
export function createToolBudget(report: (line: string) => void): Extension<ToolBudgetParams> {
  return {
    id: "tool-budget",
    description: "Caps the number of tool calls per turn",
    init(api) {
      const max = api.params?.maxToolCalls ?? Number.POSITIVE_INFINITY;
      const id = api.extensionId;
      const used = new Map<string, { admitted: number; blocked: string[] }>();
      const countOf = (turnId: string) => {
        let count = used.get(turnId);
        if (!count) used.set(turnId, (count = { admitted: 0, blocked: [] }));
        return count;
      };

      api.contributeUserPromptPrefix(`(You may call at most ${max} tools in this turn.)`);
      api.on("before_tool_call", (event, _signal, ctx) => {
        const count = countOf(ctx.turnId);
        if (count.admitted < max) {
          count.admitted += 1;
          return undefined;
        }
        count.blocked.push(event.toolCall.name);
        return { block: true, reason: `Tool budget of ${max} calls used up for this turn` };
      });
      api.on("turn_end", (event, ctx) => {
        const count = countOf(ctx.turnId);
        used.delete(ctx.turnId);
        const blocked = count.blocked.length > 0 ? `, blocked ${count.blocked.join(", ")}` : "";
        report(`  [${id}] ${ctx.turnId} ${event.outcome.kind}: ${count.admitted}/${max} tool calls${blocked}`);
      });
    },
  };
}
