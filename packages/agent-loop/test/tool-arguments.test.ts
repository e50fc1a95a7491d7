import { Type as PiType, type TSchema } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentToolCall } from "../src/index.js";
import { isSinclairSchema, validateToolArguments } from "../src/tool-arguments.js";
import { response, toolCall } from "../src/testing/index.js";
import { firstText, runLoopScenario, testTool, textResult } from "./support/scenario.js";

const plainJsonSchema = {
  type: "object",
  properties: { n: { type: "number" }, label: { type: "string" } },
  required: ["n"],
} as const;

/** The three kinds of schema a user may hand us, each declaring `n: number` (and optional `label: string`). */
const schemaKinds: [string, TSchema][] = [
  [
    "@sinclair/typebox 0.34",
    Type.Object({ n: Type.Number(), label: Type.Optional(Type.String()) }) as unknown as TSchema,
  ],
  ["pi-ai Type", PiType.Object({ n: PiType.Number(), label: PiType.Optional(PiType.String()) })],
  ["plain JSON Schema", plainJsonSchema as unknown as TSchema],
];

function call(args: Record<string, unknown>): AgentToolCall {
  return { type: "toolCall", id: "c1", name: "count", arguments: args };
}

const tool = (parameters: TSchema) => ({ name: "count", description: "counts", parameters });

describe("tool arguments: coercion and validation for every schema kind", () => {
  it("tells the schema kinds apart", () => {
    expect(schemaKinds.map(([, schema]) => isSinclairSchema(schema))).toEqual([true, false, false]);
  });

  for (const [kind, schema] of schemaKinds) {
    describe(kind, () => {
      it('coerces {"n": "42"} to { n: 42 } through the loop, and the tool receives the number', async () => {
        let received: unknown;
        const counting = testTool("count", {
          parameters: schema,
          execute: async (_id, params) => {
            received = params;
            return textResult(`n is ${typeof params.n}`);
          },
        });
        const { messages } = await runLoopScenario({
          script: [response(toolCall("count", { n: "42" }, { id: "c1" })), "done"],
          tools: [counting],
        });
        expect(received).toEqual({ n: 42 });
        expect(firstText(messages.find((message) => message.role === "toolResult"))).toBe("n is number");
      });

      it("returns valid arguments unchanged and never mutates the call's arguments", () => {
        const valid = call({ n: 7, label: "x" });
        expect(validateToolArguments(tool(schema), valid)).toEqual({ n: 7, label: "x" });
        const coercible = call({ n: "42" });
        expect(validateToolArguments(tool(schema), coercible)).toEqual({ n: 42 });
        expect(coercible.arguments).toEqual({ n: "42" });
      });

      it("rejects what cannot be coerced with a readable message: tool, field, problem, what was received", () => {
        let message = "";
        try {
          validateToolArguments(tool(schema), call({ n: "many" }));
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).toContain('Validation failed for tool "count"');
        expect(message).toMatch(/n: .*number/i);
        expect(message).toContain('"n": "many"');
        expect(message).not.toContain("[object Object]");
      });

      it("names a missing required field", () => {
        expect(() => validateToolArguments(tool(schema), call({ label: "no n" }))).toThrow(/\bn\b/);
      });

      it("a __proto__ key in the arguments pollutes no prototype", () => {
        const args = JSON.parse('{"n": "1", "__proto__": {"polluted": "yes"}, "label": "x"}') as Record<
          string,
          unknown
        >;
        const result = validateToolArguments(tool(schema), call(args)) as Record<string, unknown>;
        expect(result.n).toBe(1);
        expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
        expect((result as { polluted?: unknown }).polluted).toBeUndefined();
        expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
        expect((Object.prototype as { polluted?: unknown }).polluted).toBeUndefined();
      });
    });
  }

  afterEach(() => {
    // Defensive: a polluting implementation must not leak into other tests.
    delete (Object.prototype as { polluted?: unknown }).polluted;
  });

  it("a __proto__ key streamed by the model reaches the tool as plain data (sinclair schema, through the loop)", async () => {
    let received: Record<string, unknown> | undefined;
    const counting = testTool("count", {
      parameters: Type.Object({
        n: Type.Number(),
        nested: Type.Optional(Type.Object({ m: Type.Number() })),
      }) as unknown as TSchema,
      execute: async (_id, params) => {
        received = params;
        return textResult("ok");
      },
    });
    const args = JSON.parse(
      '{"n": "5", "__proto__": {"isAdmin": true}, "nested": {"m": "2", "__proto__": {"isAdmin": true}}}',
    );
    await runLoopScenario({ script: [response(toolCall("count", args, { id: "c1" })), "done"], tools: [counting] });
    expect(received?.n).toBe(5);
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect((received as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(((received?.nested ?? {}) as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });

  it("applies @sinclair/typebox defaults", () => {
    const schema = Type.Object({ n: Type.Number(), unit: Type.String({ default: "cm" }) }) as unknown as TSchema;
    expect(validateToolArguments(tool(schema), call({ n: "3" }))).toEqual({ n: 3, unit: "cm" });
  });

  it("coerces nested values and booleans", () => {
    const sinclair = Type.Object({
      flag: Type.Boolean(),
      inner: Type.Object({ count: Type.Integer() }),
    }) as unknown as TSchema;
    const pi = PiType.Object({ flag: PiType.Boolean(), inner: PiType.Object({ count: PiType.Integer() }) });
    for (const schema of [sinclair, pi]) {
      expect(validateToolArguments(tool(schema), call({ flag: "true", inner: { count: "12" } }))).toEqual({
        flag: true,
        inner: { count: 12 },
      });
    }
  });
});
