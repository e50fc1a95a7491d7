import type {
  AfterLlmCallEvent,
  AfterToolCallEvent,
  BeforeLlmCallEvent,
  HistoryChange,
  LlmCallPreparedEvent,
  PiTurnHooks,
  StepEndEvent,
  ToolCallHookEvent,
} from "@turnkit/agent-core";
import { hookArray } from "@turnkit/agent-core/internal";
import { describe, expect, it } from "vitest";
import { HOOK_MAPPINGS, createAgentRuntime, createHookExtension, type TurnContext } from "../src/index.js";
import { extension, turn } from "./fixtures.js";

const first = (hooks: PiTurnHooks, field: keyof PiTurnHooks) =>
  hookArray(hooks[field] as readonly unknown[] | undefined)[0] as (...args: any[]) => Promise<unknown>;

describe("HOOK_MAPPINGS", () => {
  it("is the reference table: seven hooks, onToolExecutionStartHook not mapped", () => {
    expect(HOOK_MAPPINGS).toEqual([
      { pi: "onLlmCallPreparedHook", event: "on_llm_call_prepared", adapter: "context" },
      { pi: "beforeLlmCallHook", event: "before_llm_call", adapter: "context" },
      { pi: "afterLlmCallHook", event: "after_llm_call", adapter: "context" },
      { pi: "beforeToolCallHook", event: "before_tool_call", adapter: "tool-context" },
      { pi: "afterToolCallHook", event: "after_tool_call", adapter: "tool-context" },
      { pi: "onHistoryChangedHook", event: "on_history_changed", adapter: "context" },
      { pi: "onStepEndHook", event: "on_step_end", adapter: "context" },
    ]);
    expect(HOOK_MAPPINGS.some((mapping) => mapping.pi === ("onToolExecutionStartHook" as string))).toBe(false);
  });

  it("context adapters call (event, ctx); tool-context adapters call (event, signal, ctx)", async () => {
    const calls: { event: string; args: unknown[] }[] = [];
    const record =
      (event: string) =>
      (...args: unknown[]) =>
        void calls.push({ event, args });
    const runtime = await createAgentRuntime({
      base: [
        createHookExtension({
          id: "recorder",
          hooks: {
            on_llm_call_prepared: record("on_llm_call_prepared"),
            before_llm_call: record("before_llm_call"),
            after_llm_call: record("after_llm_call"),
            before_tool_call: record("before_tool_call"),
            after_tool_call: record("after_tool_call"),
            on_history_changed: record("on_history_changed"),
            on_step_end: record("on_step_end"),
          },
        }),
      ],
    });
    const assembled = await runtime.assembleTurn(turn("s1", "t1", { workspace: "/repo" }));
    const ctx = assembled.context;
    expect(Object.keys(assembled.hooks).sort()).toEqual(HOOK_MAPPINGS.map((m) => m.pi).sort());
    expect(assembled.hooks.onToolExecutionStartHook).toBeUndefined();

    const signal = new AbortController().signal;
    const event = { sessionId: "s1", turnId: "t1" };
    await first(assembled.hooks, "onLlmCallPreparedHook")(event as LlmCallPreparedEvent);
    await first(assembled.hooks, "beforeLlmCallHook")(event as BeforeLlmCallEvent);
    await first(assembled.hooks, "afterLlmCallHook")(event as AfterLlmCallEvent);
    await first(assembled.hooks, "beforeToolCallHook")(event as ToolCallHookEvent, signal);
    await first(assembled.hooks, "afterToolCallHook")(event as AfterToolCallEvent, signal);
    const change: HistoryChange = { reason: "messageDelta", messages: [] };
    await first(assembled.hooks, "onHistoryChangedHook")(change, { sessionId: "s1", turnId: "t1" });
    await first(assembled.hooks, "onStepEndHook")(event as StepEndEvent);

    expect(calls).toEqual([
      { event: "on_llm_call_prepared", args: [event, ctx] },
      { event: "before_llm_call", args: [event, ctx] },
      { event: "after_llm_call", args: [event, ctx] },
      { event: "before_tool_call", args: [event, signal, ctx] },
      { event: "after_tool_call", args: [event, signal, ctx] },
      // onHistoryChangedHook(change, {sessionId, turnId}): the handler gets the assembled ctx instead.
      { event: "on_history_changed", args: [change, ctx] },
      { event: "on_step_end", args: [event, ctx] },
    ]);
    expect((calls[0]!.args[1] as TurnContext).data).toEqual({ workspace: "/repo" });
  });

  it("null decisions become undefined ('no decision'); real decisions pass through", async () => {
    const runtime = await createAgentRuntime({
      base: [
        createHookExtension({
          id: "nulls",
          hooks: {
            before_llm_call: () => null,
            after_llm_call: async () => null,
            before_tool_call: () => null,
            after_tool_call: async () => null,
          },
        }),
        createHookExtension({
          id: "decides",
          hooks: {
            before_tool_call: () => ({ block: true, reason: "no", blockedBy: "permission" }),
            after_tool_call: () => ({ isError: true }),
          },
        }),
      ],
    });
    const { hooks } = await runtime.assembleTurn(turn());
    const signal = new AbortController().signal;
    expect(await first(hooks, "beforeLlmCallHook")({})).toBeUndefined();
    expect(await first(hooks, "afterLlmCallHook")({})).toBeUndefined();
    expect(await first(hooks, "beforeToolCallHook")({}, signal)).toBeUndefined();
    expect(await first(hooks, "afterToolCallHook")({}, signal)).toBeUndefined();
    const [, blocker] = hookArray(hooks.beforeToolCallHook);
    expect(await blocker!({} as ToolCallHookEvent, signal)).toEqual({
      block: true,
      reason: "no",
      blockedBy: "permission",
    });
    const [, patcher] = hookArray(hooks.afterToolCallHook);
    expect(await patcher!({} as AfterToolCallEvent, signal)).toEqual({ isError: true });
  });

  it("a handler's synchronous throw becomes a rejection of the adapted hook (the runner applies its failure rule)", async () => {
    const runtime = await createAgentRuntime({
      base: [
        createHookExtension({
          id: "thrower",
          hooks: {
            before_tool_call: () => {
              throw new Error("policy store down");
            },
          },
        }),
      ],
    });
    const { hooks } = await runtime.assembleTurn(turn());
    await expect(first(hooks, "beforeToolCallHook")({}, new AbortController().signal)).rejects.toThrow(
      "policy store down",
    );
  });

  it("hook lists keep extension order, then registration order, and skip disabled extensions", async () => {
    const order: string[] = [];
    const step = (name: string) => () => void order.push(name);
    const runtime = await createAgentRuntime({
      base: [
        extension("a", (api) => {
          api.on("on_step_end", step("a1"));
          api.on("on_step_end", step("a2"));
        }),
        createHookExtension({ id: "b", hooks: { on_step_end: [step("b1"), step("b2")] } }),
        createHookExtension({ id: "c", hooks: { on_step_end: step("c1") } }),
      ],
    });
    runtime.setEnabled("b", false, { sessionId: "quiet" });
    for (const hook of hookArray((await runtime.assembleTurn(turn("loud"))).hooks.onStepEndHook))
      await hook({} as StepEndEvent);
    expect(order).toEqual(["a1", "a2", "b1", "b2", "c1"]);
    order.length = 0;
    const quiet = await runtime.assembleTurn(turn("quiet"));
    for (const hook of hookArray(quiet.hooks.onStepEndHook)) await hook({} as StepEndEvent);
    expect(order).toEqual(["a1", "a2", "c1"]);
    expect(quiet.diagnostic.contributions.map((c) => [c.extensionId, c.hooks])).toEqual([
      ["a", { on_step_end: 2 }],
      ["c", { on_step_end: 1 }],
    ]);
  });

  it("turn_start and turn_end handlers come out as arrays with ctx bound, not as runner hooks", async () => {
    const log: unknown[] = [];
    const runtime = await createAgentRuntime({
      base: [
        createHookExtension({
          id: "lifecycle",
          hooks: {
            turn_start: (ctx) => void log.push(["start", ctx.turnId]),
            turn_end: [(event, ctx) => void log.push(["end", ctx.turnId, event.outcome.kind])],
          },
        }),
        extension("also", (api) => api.on("turn_start", async (ctx) => void log.push(["also-start", ctx.sessionId]))),
      ],
    });
    const assembled = await runtime.assembleTurn(turn("s1", "t7"));
    expect(assembled.hooks).toEqual({});
    expect(assembled.turnStartHandlers).toHaveLength(2);
    for (const handler of assembled.turnStartHandlers) await handler();
    for (const handler of assembled.turnEndHandlers) await handler({ outcome: { kind: "completed" } });
    expect(log).toEqual([
      ["start", "t7"],
      ["also-start", "s1"],
      ["end", "t7", "completed"],
    ]);
    expect(assembled.diagnostic.contributions[0]!.hooks).toEqual({ turn_start: 1, turn_end: 1 });
  });
});
