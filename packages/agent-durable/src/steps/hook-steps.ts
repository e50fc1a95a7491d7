import { DBOS } from "@dbos-inc/dbos-sdk";
import type {
  BeforeToolCallDecision,
  BeforeToolCallHook,
  HistoryChange,
  HookList,
  OnHistoryChangedHook,
  OnStepEndHook,
  PiTurnHooks,
  ToolCallHookEvent,
} from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { TurnContext } from "../turn/turn-context.js";
import { awaitApproval } from "./approval-wait.js";
import type { DurableRuntimeTool } from "./durable-tool.js";

/** A `beforeToolCallHook` decision of a durable turn: the runner's, or "ask a person first". */
export type DurableBeforeToolCallDecision = BeforeToolCallDecision | { approval: "required"; reason?: string };

/** A `beforeToolCallHook` that may ask for a person's approval. */
export type DurableBeforeToolCallHook = (
  event: ToolCallHookEvent,
  signal: AbortSignal,
) => DurableBeforeToolCallDecision | Promise<DurableBeforeToolCallDecision>;

/**
 * The hooks of a durable turn: the runner's eight, with a
 * `beforeToolCallHook` that may also answer `{ approval: "required" }`.
 * Every hook runs as a DBOS step (see {@link durableHooks}).
 */
export type DurableTurnHooks = Omit<PiTurnHooks, "beforeToolCallHook"> & {
  /**
   * Run in order before each tool call, each as its own step. The first
   * `block` wins; `{ approval: "required" }` (or a tool with
   * `requiresApproval`) makes the call wait for a person once the hooks have
   * run, and it runs only when approved.
   */
  beforeToolCallHook?: HookList<DurableBeforeToolCallHook>;
};

function list<T>(hooks: HookList<T> | undefined): readonly T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? (hooks as readonly T[]) : [hooks as T];
}

/** Runs `call` as a step named after the hook; its result is the record a replay returns instead of calling it. */
function step<T>(name: string, call: () => T | Promise<T>): Promise<T> {
  return DBOS.runStep(async () => call(), { name: `turnkit.hook:${name}` });
}

function stepped<THook extends (...args: any[]) => unknown>(
  name: string,
  hooks: HookList<THook> | undefined,
): THook[] | undefined {
  const all = list(hooks);
  if (all.length === 0) return undefined;
  return all.map(
    (hook) =>
      ((...args: Parameters<THook>) => step(name, () => hook(...args) as ReturnType<THook>)) as unknown as THook,
  );
}

/**
 * Turns the host's hooks into the runner's hooks for a durable turn.
 *
 * Every host hook runs as a DBOS step: when it finished before a crash, its
 * recorded result is used on replay and it is not called again; a hook that
 * was running at the crash is called again. So each hook runs at least
 * once and, unless a crash interrupts it, exactly once: side effects in
 * hooks must be idempotent (key them by `turnId`, `toolCall.id`,
 * `requestIndex`). Results must be JSON (they are the record).
 *
 * Added by the durable layer: the session history is stored (each message
 * once, at a position fixed in advance) before the host's
 * `onHistoryChangedHook` runs; `enqueue` calls of `onStepEndHook` are
 * recorded and repeated on replay; `beforeToolCallHook` may ask for
 * approval, and tools with `requiresApproval` always do.
 */
export function durableHooks(
  ctx: TurnContext,
  hooks: DurableTurnHooks,
  tools: readonly DurableRuntimeTool[],
): PiTurnHooks {
  const approvalTools = new Set(tools.filter((tool) => tool.requiresApproval).map((tool) => tool.def.name));
  const beforeToolHooks = list(hooks.beforeToolCallHook);
  return {
    beforeLlmCallHook: stepped("beforeLlmCall", hooks.beforeLlmCallHook),
    onLlmCallPreparedHook: stepped("onLlmCallPrepared", hooks.onLlmCallPreparedHook),
    afterLlmCallHook: stepped("afterLlmCall", hooks.afterLlmCallHook),
    onToolExecutionStartHook: stepped("onToolExecutionStart", hooks.onToolExecutionStartHook),
    afterToolCallHook: stepped("afterToolCall", hooks.afterToolCallHook),
    beforeToolCallHook: beforeToolCall(ctx, beforeToolHooks, approvalTools),
    onHistoryChangedHook: [storeHistory(ctx), ...(stepped("onHistoryChanged", hooks.onHistoryChangedHook) ?? [])],
    onStepEndHook: list(hooks.onStepEndHook).map((hook) => stepEnd(hook)),
  };
}

function beforeToolCall(
  ctx: TurnContext,
  hooks: readonly DurableBeforeToolCallHook[],
  approvalTools: ReadonlySet<string>,
): BeforeToolCallHook {
  return async (event, signal) => {
    let approvalReason = approvalTools.has(event.toolCall.name)
      ? `${event.toolCall.name} needs a person's approval`
      : undefined;
    for (const hook of hooks) {
      const decision = await step("beforeToolCall", () => hook(event, signal));
      if (decision && "approval" in decision) {
        approvalReason = decision.reason ?? approvalReason ?? "A hook asked for a person's approval";
        continue;
      }
      if (decision?.block) return decision;
    }
    return approvalReason === undefined ? undefined : awaitApproval(ctx, event, approvalReason);
  };
}

/** Stores each history change in the session history, exactly once per message position. */
function storeHistory(ctx: TurnContext): OnHistoryChangedHook {
  return async (change: HistoryChange) => {
    const position = ctx.counters.historyLength;
    await DBOS.runStep(
      () =>
        change.reason === "messageDelta"
          ? ctx.stores.history.append(ctx.ref.sessionId, ctx.ref.workflowId, position, change.messages)
          : ctx.stores.history.replace(ctx.ref.sessionId, ctx.ref.workflowId, change.messages),
      { name: "turnkit.store-history" },
    );
    ctx.counters.historyLength =
      change.reason === "messageDelta" ? position + change.messages.length : change.messages.length;
  };
}

/** An `onStepEndHook` as a step whose `enqueue` calls are recorded and made again on replay. */
function stepEnd(hook: OnStepEndHook): OnStepEndHook {
  return async (event) => {
    const enqueued = await step("onStepEnd", async () => {
      const queued: (string | AgentMessage)[] = [];
      await hook({ ...event, enqueue: (message) => void queued.push(message) });
      return queued;
    });
    for (const message of enqueued) event.enqueue(message);
  };
}
