import {
  createHiddenMessage,
  defineRuntimeTool,
  type BeforeToolCallHook,
  type RunTurnInput,
} from "@turnkit/agent-core";
import { hookArray } from "@turnkit/agent-core/internal";
import { createScriptedModel, throwingGetter } from "@turnkit/agent-loop/testing";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import {
  createAgentRuntime,
  createHookExtension,
  createPromptExtension,
  createReminderExtension,
  createToolExtension,
  toRunTurnInput,
  type ExtensionAPI,
  type HostTurnInputs,
} from "../src/index.js";
import { echoTool, extension, thrown, turn } from "./fixtures.js";

const model = createScriptedModel([]);
const eventWriter = { push() {} };

async function assembled() {
  const runtime = await createAgentRuntime({
    base: [
      createPromptExtension({ id: "prompt", systemPrompt: "Extension rules.", userPromptPrefix: "[plan mode]" }),
      createToolExtension({ id: "pack", tools: echoTool("ext_tool") }),
      createReminderExtension({ id: "later", priority: 2, provide: () => "second" }),
      createReminderExtension({ id: "sooner", priority: 1, provide: () => "first" }),
      createHookExtension({ id: "guard", hooks: { before_tool_call: () => undefined } }),
    ],
  });
  return runtime.assembleTurn(turn("s1", "t1"));
}

function host(overrides: Partial<HostTurnInputs> = {}): HostTurnInputs {
  return {
    systemPrompt: "Host prompt.",
    userMessage: { text: "Fix the bug", batchId: "b1" },
    llm: { model: model.model, streamFn: model.streamFn },
    eventWriter,
    ...overrides,
  };
}

describe("toRunTurnInput", () => {
  it("prefixes the system prompt and the user text, adds reminders as hidden messages, appends host tools", async () => {
    const turnParts = await assembled();
    const hostTool = defineRuntimeTool({
      name: "host_tool",
      description: "host",
      parameters: Type.Object({}),
      execute: () => ({ content: [] }),
    });
    const earlier = createHiddenMessage("host context", "host");
    const input = toRunTurnInput(
      turnParts,
      host({ tools: [hostTool], beforeUserMessages: [earlier], disableBuiltinToolFallback: true, history: [] }),
    );
    expect(input.sessionId).toBe("s1");
    expect(input.turnId).toBe("t1");
    expect(input.systemPrompt).toBe("Extension rules.\n\nHost prompt.");
    expect(input.userMessage).toEqual({ text: "[plan mode]\n\nFix the bug", batchId: "b1" });
    expect(input.beforeUserMessages!.map((m) => (m.role === "hidden" ? [m.source, m.content] : m.role))).toEqual([
      ["host", "host context"],
      ["sooner", "<system-reminder>\nfirst\n</system-reminder>"],
      ["later", "<system-reminder>\nsecond\n</system-reminder>"],
    ]);
    expect(input.tools!.map((t) => t.def.name)).toEqual(["ext_tool", "host_tool"]);
    expect(input.disableBuiltinToolFallback).toBe(true);
    expect(input.history).toEqual([]);
    expect(input.llm.model).toBe(model.model);
    expect(input.eventWriter).toBe(eventWriter);
  });

  it("uses either prompt alone when the other is empty", async () => {
    const runtime = await createAgentRuntime({ base: [] });
    const empty = await runtime.assembleTurn(turn("s1", "t1"));
    expect(toRunTurnInput(empty, host()).systemPrompt).toBe("Host prompt.");
    expect(toRunTurnInput(empty, host()).userMessage!.text).toBe("Fix the bug");
    expect(toRunTurnInput(await assembled(), host({ systemPrompt: undefined })).systemPrompt).toBe("Extension rules.");
  });

  it("continue mode: no user message to prefix; reminders still go before", async () => {
    const input = toRunTurnInput(
      await assembled(),
      host({ userMessage: undefined, startMode: "continue", history: [createHiddenMessage("x")] }),
    );
    expect(input.userMessage).toBeUndefined();
    expect(input.startMode).toBe("continue");
    expect(input.beforeUserMessages).toHaveLength(2);
  });

  it("merges hooks: extensions first by default, host first on request; host-only fields kept", async () => {
    const turnParts = await assembled();
    const hostBefore: BeforeToolCallHook = () => undefined;
    const hostStart = () => {};
    const merged = toRunTurnInput(
      turnParts,
      host({ hooks: { beforeToolCallHook: hostBefore, onToolExecutionStartHook: hostStart } }),
    );
    const extensionHook = hookArray(turnParts.hooks.beforeToolCallHook)[0];
    expect(hookArray(merged.hooks!.beforeToolCallHook)).toEqual([extensionHook, hostBefore]);
    expect(hookArray(merged.hooks!.onToolExecutionStartHook)).toEqual([hostStart]);
    const hostFirst = toRunTurnInput(turnParts, host({ hooks: { beforeToolCallHook: [hostBefore] } }), {
      hookOrder: "host-first",
    });
    expect(hookArray(hostFirst.hooks!.beforeToolCallHook)).toEqual([hostBefore, extensionHook]);
  });

  it("does not modify its arguments", async () => {
    const turnParts = await assembled();
    const hostInputs = host({ hooks: {}, tools: [] });
    const snapshot = JSON.stringify({ turnParts, hostInputs });
    toRunTurnInput(turnParts, hostInputs);
    expect(JSON.stringify({ turnParts, hostInputs })).toBe(snapshot);
  });

  it("a host tool named like an extension's tool throws duplicate_tool naming both", async () => {
    const turnParts = await assembled();
    const clash = thrown(() => toRunTurnInput(turnParts, host({ tools: [echoTool("ext_tool")] })));
    expect(clash.code).toBe("duplicate_tool");
    expect(clash.message).toBe('toRunTurnInput: tool "ext_tool" is contributed by both extension "pack" and the host');
  });

  it("a host tool keeps its name against a tool an extension's factory made: that tool is left out with a warning naming both", async () => {
    const runtime = await createAgentRuntime({
      base: [createToolExtension({ id: "server", tools: () => [echoTool("search"), echoTool("fetch")] })],
    });
    const turnParts = await runtime.assembleTurn(turn("s1", "t1"));
    expect(turnParts.diagnostic.contributions[0]!.factoryTools).toEqual(["search", "fetch"]);
    const hostSearch = echoTool("search");
    const input = toRunTurnInput(turnParts, host({ tools: [hostSearch], warnings: [] }));
    expect(input.tools!.map((tool) => tool.def.name)).toEqual(["fetch", "search"]);
    expect(input.tools![1]).toBe(hostSearch);
    expect(input.warnings).toEqual([
      {
        code: "extension_degraded",
        message:
          'tool "search" of extension "server" is left out of this turn: the host already has a tool of that name (give one of them another name)',
        extensionId: "server",
        tools: ["search"],
      },
    ]);
    expect(turnParts.tools.map((tool) => tool.def.name)).toEqual(["search", "fetch"]);
  });

  it("a tool a host tool left out is no longer among the tools its extension's api.keptTools reports for the turn", async () => {
    let serverApi: ExtensionAPI | undefined;
    const runtime = await createAgentRuntime({
      base: [
        extension("server", (api) => {
          serverApi = api;
          api.registerTool(() => [echoTool("search"), echoTool("fetch")]);
        }),
      ],
    });
    const turnParts = await runtime.assembleTurn(turn("s1", "t1"));
    expect([...serverApi!.keptTools(turnParts.context)!]).toEqual(["search", "fetch"]);
    toRunTurnInput(turnParts, host({ tools: [echoTool("search")] }));
    expect([...serverApi!.keptTools(turnParts.context)!]).toEqual(["fetch"]);
    expect([...serverApi!.keptTools()!]).toEqual(["fetch"]);
    // Another turn without the host tool keeps both.
    const next = await runtime.assembleTurn(turn("s1", "t2"));
    toRunTurnInput(next, host({ tools: [] }));
    expect([...serverApi!.keptTools(next.context)!]).toEqual(["search", "fetch"]);
    expect([...serverApi!.keptTools(turnParts.context)!]).toEqual(["fetch"]);
  });

  it("host ids must match the assembled turn's", async () => {
    const turnParts = await assembled();
    expect(toRunTurnInput(turnParts, host({ sessionId: "s1", turnId: "t1" })).sessionId).toBe("s1");
    const error = thrown(() => toRunTurnInput(turnParts, { ...host(), turnId: "t2" } as RunTurnInput));
    expect(error.code).toBe("invalid_turn_input");
    expect(error.message).toContain('host turnId "t2" differs from the assembled turn\'s "t1"');
  });

  it("refuses malformed arguments naming the field, instead of failing on them", async () => {
    const turnParts = await assembled();
    for (const [call, expected] of [
      [
        () => toRunTurnInput(undefined as never, host()),
        "assembled must be the turn assembleTurn returned (with its context), got undefined",
      ],
      [
        () => toRunTurnInput({} as never, host()),
        "assembled must be the turn assembleTurn returned (with its context), got object",
      ],
      [
        () => toRunTurnInput({ ...turnParts, tools: null } as never, host()),
        "assembled.tools must be an array, got null",
      ],
      [() => toRunTurnInput(turnParts, null as never), "host must be an object of turn inputs, got null"],
      [() => toRunTurnInput(turnParts, host({ tools: "echo" as never })), 'host.tools must be an array, got "echo"'],
      [
        () => toRunTurnInput(turnParts, host({ userMessage: "hi" as never })),
        'host.userMessage must be an object, got "hi"',
      ],
      [
        () => toRunTurnInput(turnParts, host(), { hookOrder: "last" as never }),
        'options.hookOrder must be "extensions-first" or "host-first", got "last"',
      ],
      [
        () => toRunTurnInput(turnParts, host(), { hookOrder: 1n as never }),
        'options.hookOrder must be "extensions-first" or "host-first", got bigint',
      ],
    ] as const) {
      const error = thrown(call);
      expect(error.code).toBe("invalid_turn_input");
      expect(error.message).toBe(`toRunTurnInput: ${expected}`);
    }
  });

  it("refuses what it would otherwise turn into input the runner accepts: a user text that is no string, a host hook that is no function", async () => {
    const turnParts = await assembled();
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const [given, expected] of [
      [host({ userMessage: { text: undefined } as never }), "host.userMessage.text must be a string, got undefined"],
      [host({ userMessage: { text: 5 } as never }), "host.userMessage.text must be a string, got 5"],
      [host({ userMessage: { text: null } as never }), "host.userMessage.text must be a string, got null"],
      [
        host({ hooks: { beforeToolCallHook: 5 } as never }),
        "host.hooks.beforeToolCallHook must be a function or an array of functions, got 5",
      ],
      [
        host({ hooks: { beforeToolCallHook: [() => undefined, , "x"] } as never }),
        "host.hooks.beforeToolCallHook[1] must be a function, got undefined",
      ],
      [revoked.proxy, "host must be an object of turn inputs, got an unreadable value"],
      [host({ userMessage: revoked.proxy as never }), "host.userMessage must be an object, got an unreadable value"],
      [
        host({ userMessage: throwingGetter("text") as never }),
        "an argument could not be read (a revoked proxy or a getter that throws)",
      ],
    ] as const) {
      const error = thrown(() => toRunTurnInput(turnParts, given as HostTurnInputs));
      expect(error.code).toBe("invalid_turn_input");
      expect(error.message).toBe(`toRunTurnInput: ${expected}`);
    }
    // Continuing needs no user text.
    expect(() => toRunTurnInput(turnParts, host({ startMode: "continue", userMessage: undefined }))).not.toThrow();
  });

  it("refuses a host tool list entry that is no tool (a hole, null) as invalid_tool naming its index", async () => {
    const turnParts = await assembled();
    for (const tools of [
      [echoTool("mine"), , echoTool("other")],
      [echoTool("mine"), null],
    ]) {
      const error = thrown(() => toRunTurnInput(turnParts, host({ tools: tools as never })));
      expect(error.code).toBe("invalid_tool");
      expect(error.message).toMatch(/^toRunTurnInput: host\.tools\[1\]: expected a RuntimeTool/);
    }
  });
});
