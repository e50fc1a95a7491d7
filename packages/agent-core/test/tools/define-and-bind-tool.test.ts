import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { bindTool, boundToolDef, toRuntimeTool } from "../../src/tools/bind-tool.js";
import { defineRuntimeTool } from "../../src/tools/define-runtime-tool.js";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/errors.js";
import type { RuntimeToolResult, ToolExecutionContext } from "../../src/tools/runtime-tool.js";

const ctx: ToolExecutionContext = { sessionId: "s1", turnId: "t1", toolCallId: "c1", assistantMessageId: "m1" };
const signal = new AbortController().signal;
const noUpdate = () => {};

function configError(fn: () => unknown): TurnkitConfigError {
  try {
    fn();
  } catch (error) {
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    return error as TurnkitConfigError;
  }
  throw new Error("expected a TurnkitConfigError");
}

const echoParameters = Type.Object({ text: Type.String() });

describe("defineRuntimeTool", () => {
  it("splits the declaration from the behaviour and keeps the typed input", async () => {
    const tool = defineRuntimeTool({
      name: "echo",
      description: "Echoes text",
      parameters: echoParameters,
      executionMode: "parallel",
      promptGuidelines: ["Use echo to repeat"],
      execute: (_ctx, input) => ({ content: [{ type: "text", text: input.text.toUpperCase() }] }),
    });
    expect(tool.def).toEqual({
      name: "echo",
      description: "Echoes text",
      parameters: echoParameters,
      executionMode: "parallel",
      promptGuidelines: ["Use echo to repeat"],
    });
    expect("execute" in tool.def).toBe(false);
    expect(await tool.impl.execute(ctx, { text: "hi" }, signal, noUpdate)).toEqual({
      content: [{ type: "text", text: "HI" }],
    });
  });

  it("names every missing field at once, execute included", () => {
    const error = configError(() => defineRuntimeTool({ name: "broken" } as never));
    expect(error.code).toBe(ConfigErrorCode.InvalidTool);
    expect(error.message).toContain('"broken"');
    expect(error.message).toContain("missing description");
    expect(error.message).toContain("missing parameters");
    expect(error.message).toContain("missing execute");
  });

  it("rejects a missing name, a bad name, a non-object schema and a bad mode", () => {
    const base = { description: "d", parameters: echoParameters, execute: () => ({ content: [] }) };
    expect(configError(() => defineRuntimeTool({ ...base } as never)).message).toContain("missing name");
    expect(configError(() => defineRuntimeTool({ ...base, name: "has space" })).message).toMatch(/name must match/);
    expect(
      configError(() => defineRuntimeTool({ ...base, name: "x", parameters: Type.String() as never })).message,
    ).toMatch(/type "object"/);
    expect(
      configError(() => defineRuntimeTool({ ...base, name: "x", executionMode: "fast" as never })).message,
    ).toMatch(/executionMode/);
    expect(configError(() => defineRuntimeTool({ ...base, name: "x", execute: undefined as never })).message).toMatch(
      /"x".*missing execute/,
    );
  });
});

describe("@bindTool (TC39 class decorator) and toRuntimeTool", () => {
  @bindTool({
    name: "counter",
    label: "Counter",
    description: "Counts calls",
    parameters: Type.Object({ step: Type.Number() }),
  })
  class CounterTool {
    count = 0;
    execute(callCtx: ToolExecutionContext, input: { step: number }): RuntimeToolResult<{ count: number }> {
      this.count += input.step;
      return {
        content: [{ type: "text", text: `${callCtx.toolCallId}:${this.count}` }],
        details: { count: this.count },
      };
    }
  }

  it("converts an instance, calling execute with the instance as this", async () => {
    const instance = new CounterTool();
    const tool = toRuntimeTool(instance);
    expect(tool.def.name).toBe("counter");
    expect(tool.def.label).toBe("Counter");
    await tool.impl.execute(ctx, { step: 2 }, signal, noUpdate);
    const result = await tool.impl.execute(ctx, { step: 3 }, signal, noUpdate);
    expect(result).toEqual({ content: [{ type: "text", text: "c1:5" }], details: { count: 5 } });
    expect(instance.count).toBe(5);
  });

  it("throws undecorated_tool for a plain class, naming it", () => {
    class Plain {
      execute() {
        return { content: [] };
      }
    }
    const error = configError(() => toRuntimeTool(new Plain()));
    expect(error.code).toBe(ConfigErrorCode.UndecoratedTool);
    expect(error.message).toContain("Plain");
    expect(error.message).toContain("@bindTool");
  });

  it("throws undecorated_tool when given the class instead of an instance", () => {
    const error = configError(() => toRuntimeTool(CounterTool as never));
    expect(error.code).toBe(ConfigErrorCode.UndecoratedTool);
    expect(error.message).toContain("new CounterTool");
  });

  it("validates the declaration when the decorator is created", () => {
    const error = configError(() => bindTool({ name: "nodesc", parameters: Type.Object({}) } as never));
    expect(error.code).toBe(ConfigErrorCode.InvalidTool);
    expect(error.message).toContain("missing description");
  });

  it("works as a plain function for toolchains without decorators", async () => {
    class Clock {
      execute() {
        return { content: [{ type: "text" as const, text: "noon" }] };
      }
    }
    bindTool({ name: "clock", description: "Time", parameters: Type.Object({}) })(Clock);
    expect(boundToolDef(Clock)?.name).toBe("clock");
    expect(await toRuntimeTool(new Clock()).impl.execute(ctx, {}, signal, noUpdate)).toEqual({
      content: [{ type: "text", text: "noon" }],
    });
  });

  it("lets a subclass inherit the declaration unless it has its own; one class binds once", () => {
    class Sub extends CounterTool {}
    expect(toRuntimeTool(new Sub()).def.name).toBe("counter");

    @bindTool({ name: "special", description: "Own declaration", parameters: Type.Object({ step: Type.Number() }) })
    class Special extends CounterTool {}
    expect(toRuntimeTool(new Special()).def.name).toBe("special");

    const again = configError(() =>
      bindTool({ name: "other", description: "d", parameters: Type.Object({}) })(Special),
    );
    expect(again.message).toContain("already bound");
  });

  it("reports an instance without execute as invalid_tool", () => {
    class NoExecute {}
    bindTool({ name: "noexec", description: "d", parameters: Type.Object({}) })(NoExecute as never);
    const error = configError(() => toRuntimeTool(new NoExecute() as never));
    expect(error.code).toBe(ConfigErrorCode.InvalidTool);
    expect(error.message).toContain("missing execute");
  });

  it("refuses an instance it cannot read (a getter or a class proxy that throws) as invalid_tool, the host's error as cause", () => {
    const failure = new Error("the instance store is down");
    const throwing = () => {
      throw failure;
    };
    const unreadableExecute = new CounterTool();
    Object.defineProperty(unreadableExecute, "execute", { get: throwing });
    const unreadableClass = Object.defineProperty({}, "constructor", { get: throwing });
    const prototypeTrap = new Proxy(class Trapped {}, { getPrototypeOf: throwing });
    const viaTrap = Object.create(prototypeTrap.prototype, { constructor: { value: prototypeTrap } });
    for (const instance of [unreadableExecute, unreadableClass, viaTrap]) {
      const error = configError(() => toRuntimeTool(instance as never));
      expect(error.code).toBe(ConfigErrorCode.InvalidTool);
      expect(error.message).toBe("toRuntimeTool: the instance could not be read: the instance store is down");
      expect(error.cause).toBe(failure);
    }
  });

  it("refuses a second argument that is no class decorator context, in words", () => {
    const apply = bindTool({ name: "ctx", description: "d", parameters: Type.Object({}) });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const [context, says] of [
      [null, "not null"],
      [{ kind: "method" }, "not a method"],
      [proxy, "not an unreadable value"],
      [
        Object.defineProperty({}, "kind", {
          get: () => {
            throw new TypeError("Cannot read the kind");
          },
        }),
        "the decorator context could not be read",
      ],
    ] as const) {
      const error = configError(() => apply(class Target {} as never, context as never));
      expect(error.code).toBe(ConfigErrorCode.InvalidTool);
      expect(error.message).toContain(says);
      expect(error.message).not.toMatch(/Cannot (read properties|perform)/);
    }
  });
});
