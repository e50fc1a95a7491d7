import { describe, expect, it } from "vitest";
import {
  createAgentRuntime,
  createCompactionExtension,
  createExtension,
  createHookExtension,
  createPromptExtension,
  createReminderExtension,
  createSubAgentExtension,
  createToolExtension,
  ExtensionConfigError,
} from "../src/index.js";
import { echoTool, thrown, turn } from "./fixtures.js";

describe("extension factories", () => {
  it("createToolExtension: one tool, a list, or factories", async () => {
    const runtime = await createAgentRuntime({
      base: [
        createToolExtension({ id: "single", description: "one tool", tools: echoTool("one") }),
        createToolExtension({ id: "list", tools: [echoTool("two"), () => [echoTool("three")]] }),
      ],
    });
    const assembled = await runtime.assembleTurn(turn());
    expect(assembled.tools.map((t) => t.def.name)).toEqual(["one", "two", "three"]);
  });

  it("createHookExtension subscribes each handler (single or list)", async () => {
    const ext = createHookExtension({
      id: "hooks",
      hooks: { on_step_end: [() => {}, () => {}], before_tool_call: () => undefined },
    });
    const runtime = await createAgentRuntime({ base: [ext] });
    const { diagnostic } = await runtime.assembleTurn(turn());
    expect(diagnostic.contributions[0]!.hooks).toEqual({ on_step_end: 2, before_tool_call: 1 });
  });

  it("createPromptExtension: system prompt, user prefix or both; neither throws", async () => {
    const runtime = await createAgentRuntime({
      base: [
        createPromptExtension({ id: "sys", systemPrompt: "S" }),
        createPromptExtension({ id: "usr", userPromptPrefix: (ctx) => `[${ctx.turnId}]` }),
      ],
    });
    expect(await runtime.assembleTurn(turn("s", "t4"))).toMatchObject({
      systemPromptPrefix: "S",
      userPromptPrefix: "[t4]",
    });
    const error = thrown(() => createPromptExtension({ id: "empty" }));
    expect(error.code).toBe("extension_init");
    expect(error.message).toContain('createPromptExtension("empty")');
  });

  it("createReminderExtension: one provider named after the extension, with its priority", async () => {
    const runtime = await createAgentRuntime({
      base: [createReminderExtension({ id: "todo", priority: 5, provide: () => "3 todos open" })],
    });
    const { reminders } = await runtime.assembleTurn(turn());
    expect(reminders).toEqual([
      {
        extensionId: "todo",
        providerId: "todo",
        priority: 5,
        text: "<system-reminder>\n3 todos open\n</system-reminder>",
      },
    ]);
  });

  it("createExtension mixes every kind; init runs after the declarative parts in the same window and reads params", async () => {
    const seenParams: unknown[] = [];
    const ext = createExtension<{ greeting: string }>({
      id: "combo",
      description: "everything at once",
      tools: echoTool("combo_tool"),
      hooks: { turn_start: () => {} },
      systemPrompt: "declared",
      userPromptPrefix: "[combo]",
      reminders: [{ id: "r1", provide: () => "rem" }],
      init(api) {
        seenParams.push(api.params);
        api.contributeSystemPrompt(api.params?.greeting ?? "no params");
      },
    });
    expect(ext.description).toBe("everything at once");
    const runtime = await createAgentRuntime({
      base: [ext],
      profile: { params: { combo: { greeting: "from init" } } },
    });
    const assembled = await runtime.assembleTurn(turn());
    expect(seenParams).toEqual([{ greeting: "from init" }]);
    expect(assembled.systemPromptPrefix).toBe("declared\n\nfrom init");
    expect(assembled.userPromptPrefix).toBe("[combo]");
    expect(assembled.tools.map((t) => t.def.name)).toEqual(["combo_tool"]);
    expect(assembled.reminders.map((r) => r.providerId)).toEqual(["r1"]);
    expect(assembled.turnStartHandlers).toHaveLength(1);
  });

  it("createExtension's init failure fails the runtime naming the extension", async () => {
    const ext = createExtension({ id: "fails", init: () => Promise.reject(new Error("nope")) });
    await expect(createAgentRuntime({ base: [ext] })).rejects.toThrow('extension "fails" failed to initialise: nope');
  });

  it("factories validate eagerly: id, tools, hook names and handlers, reminders, init", () => {
    const cases: [() => unknown, string, string][] = [
      [
        () => createToolExtension({ id: "Bad Id", tools: [] }),
        "invalid_extension_id",
        'createExtension: invalid extension id "Bad Id"',
      ],
      [
        () => createToolExtension({ id: "t", tools: [{ def: { name: "x" } } as never] }),
        "invalid_tool",
        'createExtension("t"): tools[0]',
      ],
      [
        () => createHookExtension({ id: "h", hooks: { before_tool: () => {} } as never }),
        "extension_init",
        'unknown hook event "before_tool"',
      ],
      [
        () => createHookExtension({ id: "h", hooks: { on_step_end: [42] } as never }),
        "extension_init",
        'the handler for "on_step_end" must be a function',
      ],
      [
        () => createReminderExtension({ id: "r", provide: undefined as never }),
        "extension_init",
        "reminders[0] has no provide(ctx) function",
      ],
      [
        () => createPromptExtension({ id: "p", systemPrompt: [1] as never }),
        "extension_init",
        "systemPrompt[0] must be text or a function",
      ],
      [() => createExtension({ id: "i", init: "x" as never }), "extension_init", "init must be a function"],
      [
        () => createReminderExtension({ id: "", provide: () => "x" }),
        "invalid_extension_id",
        "must be a non-empty string",
      ],
    ];
    for (const [create, code, text] of cases) {
      const error = thrown(create);
      expect(error.code).toBe(code);
      expect(error.message).toContain(text);
    }
  });

  it("every factory and createAgentRuntime refuse options that are not an object, naming themselves and what they got", async () => {
    const factories: [string, (options: never) => unknown][] = [
      ["createExtension", createExtension],
      ["createToolExtension", createToolExtension],
      ["createHookExtension", createHookExtension],
      ["createPromptExtension", createPromptExtension],
      ["createReminderExtension", createReminderExtension],
      ["createSubAgentExtension", createSubAgentExtension],
      ["createCompactionExtension", createCompactionExtension],
      ["createAgentRuntime", createAgentRuntime],
    ];
    const values: [unknown, string][] = [
      [null, "null"],
      [42, "number"],
      ["x", "string"],
      [[], "an array"],
      [() => ({}), "function"],
    ];
    for (const [name, factory] of factories) {
      for (const [value, got] of [
        ...values,
        ...(name === "createCompactionExtension" ? [] : [[undefined, "undefined"]]),
      ]) {
        const error = await Promise.resolve()
          .then(() => factory(value as never))
          .then(
            () => undefined,
            (thrownError: unknown) => thrownError,
          );
        expect(ExtensionConfigError.isInstance(error), `${name}(${String(value)})`).toBe(true);
        expect((error as ExtensionConfigError).code).toBe("extension_init");
        expect((error as Error).message).toBe(`${name}: expected an options object, got ${got}`);
      }
    }
  });

  it("an id that is not a string is named by its kind; a sub-agent extension without agents names the field", () => {
    expect(thrown(() => createHookExtension({ hooks: {} } as never)).message).toBe(
      "createExtension: invalid extension id undefined: an extension id must be a non-empty string",
    );
    expect(thrown(() => createHookExtension({ id: {}, hooks: {} } as never)).message).toBe(
      "createExtension: invalid extension id an object: an extension id must be a non-empty string",
    );
    expect(thrown(() => createSubAgentExtension({ id: "helpers" } as never)).message).toBe(
      "createSubAgentExtension: agents is missing (a sub-agent definition or a list of them)",
    );
  });
});
