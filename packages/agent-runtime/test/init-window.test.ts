import { TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { type ExtensionAPI, Registry, createAgentRuntime } from "../src/index.js";
import { echoTool, extension, flush, rejected, thrown, turn } from "./fixtures.js";

describe("the init window", () => {
  it("each extension's API works during its own init, and contributions reach the turn", async () => {
    const runtime = await createAgentRuntime({
      base: [
        extension("tools", (api) => api.registerTool(echoTool("echo"))),
        extension("prompt", (api) => api.contributeSystemPrompt("Be brief.")),
      ],
    });
    const assembled = await runtime.assembleTurn(turn());
    expect(assembled.tools.map((tool) => tool.def.name)).toEqual(["echo"]);
    expect(assembled.systemPromptPrefix).toBe("Be brief.");
  });

  it("every API method throws after init, naming the extension and the method", async () => {
    let captured: ExtensionAPI | undefined;
    await createAgentRuntime({ base: [extension("late", (api) => void (captured = api))] });
    const api = captured!;
    const calls: [string, () => void][] = [
      ["registerTool", () => api.registerTool(echoTool("echo"))],
      ["contributeSystemPrompt", () => api.contributeSystemPrompt("x")],
      ["contributeUserPromptPrefix", () => api.contributeUserPromptPrefix("x")],
      ["registerReminderProvider", () => api.registerReminderProvider({ id: "r", provide: () => "x" })],
      ["on", () => api.on("turn_start", () => {})],
    ];
    for (const [method, call] of calls) {
      const error = thrown(call);
      expect(TurnkitConfigError.isInstance(error)).toBe(true);
      expect(error.code).toBe("extension_init");
      expect(error.message).toContain(`extension "late": api.${method}() was called outside its init window`);
    }
    // params stay readable: they are data, not a contribution.
    expect(api.params).toBeUndefined();
  });

  it("a call after an async init resolved throws, even from a timer the init started", async () => {
    const errors: unknown[] = [];
    await createAgentRuntime({
      base: [
        extension("detached", (api) => {
          setTimeout(() => {
            try {
              api.contributeSystemPrompt("too late");
            } catch (error) {
              errors.push(error);
            }
          }, 0);
        }),
      ],
    });
    await flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toContain('extension "detached": api.contributeSystemPrompt()');
  });

  it("calling another extension's API from one's own init throws, naming both, and fails the runtime", async () => {
    let first: ExtensionAPI | undefined;
    const error = await rejected(
      createAgentRuntime({
        base: [
          extension("first", (api) => void (first = api)),
          extension("second", () => first!.registerTool(echoTool("sneaky"))),
        ],
      }),
    );
    expect(error.code).toBe("extension_init");
    expect(error.message).toContain('extension "second" failed to initialise');
    const cause = error.cause as Error & { code?: string };
    expect(cause.code).toBe("extension_init");
    expect(cause.message).toContain(
      'extension "first": api.registerTool() was called outside its init window (it was called during the init of extension "second")',
    );
  });

  it("async init: contributions made after awaits count, and inits run one at a time in order", async () => {
    const log: string[] = [];
    const slow = (id: string, ms: number) =>
      extension(id, async (api) => {
        log.push(`${id}:start`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        api.contributeSystemPrompt(`from ${id}`);
        log.push(`${id}:end`);
      });
    const runtime = await createAgentRuntime({ base: [slow("one", 15), slow("two", 1)] });
    expect(log).toEqual(["one:start", "one:end", "two:start", "two:end"]);
    expect((await runtime.assembleTurn(turn())).systemPromptPrefix).toBe("from one\n\nfrom two");
  });

  it("an init failure rejects createAgentRuntime with the extension's id and the cause; later inits do not run", async () => {
    const boom = new Error("database unreachable");
    let laterRan = false;
    const error = await rejected(
      createAgentRuntime({
        base: [
          extension("ok"),
          extension("memory", async () => Promise.reject(boom)),
          extension("later", () => void (laterRan = true)),
        ],
      }),
    );
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect(error.code).toBe("extension_init");
    expect(error.message).toBe('extension "memory" failed to initialise: database unreachable');
    expect(error.cause).toBe(boom);
    expect(laterRan).toBe(false);
  });

  it("a synchronous throw in init is reported the same way", async () => {
    const error = await rejected(
      createAgentRuntime({
        base: [
          extension("sync", () => {
            throw new Error("bad config");
          }),
        ],
      }),
    );
    expect(error.message).toBe('extension "sync" failed to initialise: bad config');
  });

  it("misuse inside init fails the runtime naming the extension: bad tool, duplicate static tool, bad reminder, unknown event", async () => {
    const cases: [(api: ExtensionAPI) => void, string, string][] = [
      [(api) => api.registerTool({ def: { name: "x" } } as never), "invalid_tool", "missing description"],
      [
        (api) => (api.registerTool(echoTool("dup")), api.registerTool(echoTool("dup"))),
        "duplicate_tool",
        'registers tool "dup" twice',
      ],
      [(api) => api.registerReminderProvider({ id: "", provide: () => "x" }), "extension_init", "non-empty id"],
      [
        (api) => api.registerReminderProvider({ id: "r", provide: undefined as never }),
        "extension_init",
        'provider "r" has no provide(ctx) function',
      ],
      [
        (api) => api.registerReminderProvider({ id: "r", priority: Number.NaN, provide: () => "x" }),
        "extension_init",
        "not a finite number",
      ],
      [
        (api) => (
          api.registerReminderProvider({ id: "r", provide: () => "x" }),
          api.registerReminderProvider({ id: "r", provide: () => "y" })
        ),
        "extension_init",
        'reminder provider id "r" is already registered',
      ],
      [(api) => api.on("before_tool" as never, (() => {}) as never), "extension_init", 'unknown event "before_tool"'],
      [(api) => api.on("turn_end", "nope" as never), "extension_init", 'the handler for "turn_end" must be a function'],
      [(api) => api.contributeSystemPrompt(42 as never), "extension_init", "expected text or a function, got number"],
    ];
    for (const [init, causeCode, text] of cases) {
      const error = await rejected(createAgentRuntime({ base: [extension("misuse", init)] }));
      expect(error.message).toContain('extension "misuse" failed to initialise');
      expect(error.message).toContain(text);
      expect((error.cause as { code?: string }).code).toBe(causeCode);
    }
  });

  it("params: each extension reads its own profile params", async () => {
    const seen: Record<string, unknown> = {};
    const reader = (id: string) => extension(id, (api) => void (seen[id] = api.params));
    await createAgentRuntime({ base: [reader("a"), reader("b")], profile: { params: { a: { mode: "strict" } } } });
    expect(seen).toEqual({ a: { mode: "strict" }, b: undefined });
    // Only own keys count: an id like "constructor" never picks up Object.prototype members.
    await createAgentRuntime({ base: [reader("constructor")], profile: { params: {} } });
    expect(seen.constructor).toBeUndefined();
  });

  it("Registry.initialize can be used on its own and rejects repeated ids before any init", async () => {
    let ran = false;
    const error = await rejected(Registry.initialize([extension("a", () => void (ran = true)), extension("a")]));
    expect(error.code).toBe("invalid_extension_id");
    expect(ran).toBe(false);
    const registry = await Registry.initialize([extension("a", (api) => api.contributeUserPromptPrefix("hi"))]);
    expect(registry.ids).toEqual(["a"]);
    expect(registry.contributionsOf("a")?.userPromptPrefix).toEqual(["hi"]);
    expect(Object.isFrozen(registry.contributionsOf("a")?.userPromptPrefix)).toBe(true);
  });
});
