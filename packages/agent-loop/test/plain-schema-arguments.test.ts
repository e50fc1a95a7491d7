import { validateToolArguments as piValidateToolArguments, type TSchema, type ToolCall } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { copyArguments, plainSchema } from "../src/plain-schema-check.js";
import { validateToolArguments } from "../src/tool-arguments.js";

/** Plain JSON Schemas of every shape pi-ai's coercion treats differently. */
const schemas: Record<string, object> = {
  empty: { type: "object", properties: {} },
  scalars: {
    type: "object",
    properties: {
      n: { type: "number" },
      i: { type: "integer" },
      s: { type: "string" },
      b: { type: "boolean" },
      z: { type: "null" },
    },
    required: ["n"],
  },
  nested: {
    type: "object",
    properties: {
      list: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } },
      tuple: { type: "array", items: [{ type: "string" }, { type: "number" }] },
    },
    additionalProperties: { type: "string" },
  },
  closed: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false, required: ["a"] },
  allOf: {
    allOf: [
      { type: "object", properties: { a: { type: "number" } } },
      { type: "object", required: ["a"] },
    ],
  },
  typeArray: { type: "object", properties: { v: { type: ["number", "string"] } } },
  union: { type: "object", properties: { v: { anyOf: [{ type: "number" }, { type: "string" }] } } },
  oneOf: { type: "object", properties: { v: { oneOf: [{ type: "boolean" }, { type: "string" }] } } },
  inheritedName: { type: "object", properties: { toString: { type: "string" }, constructor: { type: "number" } } },
  // JSON.parse makes "__proto__" an own key, as a schema received over the wire has it.
  protoName: JSON.parse('{ "type": "object", "properties": { "__proto__": { "type": "string" } } }'),
  noType: { properties: { x: {} } },
};

/** Arguments as models send them: valid, coercible (strings for numbers, ...), invalid. */
const argumentSets: Record<string, unknown>[] = [
  {},
  { n: 1, i: 2, s: "x", b: true, z: null },
  { n: "42", i: "7", s: 5, b: "true", z: "" },
  { n: [] },
  { list: [{ id: 1 }, { id: "2" }], tuple: ["a", 1], extra: "e", other: 3 },
  { a: "x" },
  { a: "x", b: 1 },
  { a: 1 },
  { v: "42" },
  { v: 42 },
  { v: true },
  { v: "true" },
  { toString: "x" },
  JSON.parse('{ "__proto__": "x" }'),
  { x: { deep: [1, 2] } },
];

function outcome(run: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The schemas where pi-ai's coercion changes arguments that are valid as sent: unions, inherited property names. */
const CHANGED_BY_PI = new Set(["union", "oneOf", "inheritedName"]);

describe("plain JSON Schema tools: the compiled check", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`keeps valid arguments as sent and coerces the rest as pi-ai's validateToolArguments does (${name})`, () => {
      const tool = { name: "t", description: "t", parameters: schema as TSchema };
      const check = plainSchema(schema)!.check!;
      let changedByPi = 0;
      for (const args of argumentSets) {
        const call = (): ToolCall => ({ type: "toolCall", id: "c", name: "t", arguments: structuredClone(args) });
        const ours = outcome(() => validateToolArguments(tool, call()));
        const theirs = outcome(() => piValidateToolArguments(tool, call()));
        if (!check(args)) {
          expect(ours, `${name} with ${JSON.stringify(args)}`).toEqual(theirs);
          continue;
        }
        expect(ours, `${name} with ${JSON.stringify(args)}`).toEqual({ ok: structuredClone(args) });
        if (JSON.stringify(theirs) !== JSON.stringify(ours)) changedByPi++;
      }
      // Where pi-ai changes a valid value, the table above has such a case, so the difference is exercised.
      expect(changedByPi > 0, name).toBe(CHANGED_BY_PI.has(name));
    });
  }

  it("has a compiled check for every schema the compiler takes", () => {
    for (const schema of Object.values(schemas)) expect(plainSchema(schema)?.check).toBeTypeOf("function");
  });

  it('passes a null a nullable anyOf allows, as Pydantic-based MCP servers declare optional fields (pi-ai makes it 0, "" or false)', () => {
    const nullable = (type: string) => ({ anyOf: [{ type }, { type: "null" }], default: null });
    const tool = {
      name: "search",
      description: "search",
      parameters: {
        type: "object",
        properties: { limit: nullable("integer"), note: nullable("string"), flag: nullable("boolean") },
      } as unknown as TSchema,
    };
    const call: ToolCall = {
      type: "toolCall",
      id: "c",
      name: "search",
      arguments: { limit: null, note: null, flag: null },
    };
    expect(validateToolArguments(tool, call)).toEqual({ limit: null, note: null, flag: null });
    expect(piValidateToolArguments(tool, structuredClone(call))).toEqual({ limit: 0, note: "", flag: false });
    // Arguments that are not valid as sent are still coerced: "5" becomes 5.
    expect(validateToolArguments(tool, { ...call, arguments: { limit: "5" } })).toEqual({ limit: 5 });
  });

  it("hands the tool a copy, never the call's own arguments object", () => {
    const tool = { name: "t", description: "t", parameters: schemas.scalars as TSchema };
    const args = { n: 1 };
    const validated = validateToolArguments(tool, { type: "toolCall", id: "c", name: "t", arguments: args });
    expect(validated).toEqual(args);
    expect(validated).not.toBe(args);
  });

  it("copies arguments as structuredClone does: JSON-like data by hand, anything else through structuredClone", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const values: unknown[] = [
      {},
      { n: -0, s: "é\u0000", b: false, z: null, u: undefined, list: [1, [2, { deep: "x" }]], "2": "two", "1": "one" },
      JSON.parse('{ "__proto__": { "polluted": true }, "constructor": "c" }'),
      "text",
      42,
      [[], {}],
      { when: new Date(0), map: new Map([["k", 1]]) },
      cyclic,
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
    ];
    for (const value of values) {
      const copy = copyArguments(value);
      const cloned = structuredClone(value);
      expect(copy).toEqual(cloned);
      if (typeof value === "object" && value !== null) expect(copy).not.toBe(value);
      if (typeof copy === "object" && copy !== null) {
        expect(Object.keys(copy)).toEqual(Object.keys(cloned as object));
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(cloned));
      }
    }
    const negativeZero = copyArguments({ n: -0 }) as { n: number };
    expect(Object.is(negativeZero.n, -0)).toBe(true);
    const proto = copyArguments(JSON.parse('{ "__proto__": { "polluted": true } }')) as Record<string, unknown>;
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
    expect((proto as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe("plain JSON Schema tools: references that resolve to nothing", () => {
  const validate = (parameters: object, args: unknown) =>
    outcome(() =>
      validateToolArguments(
        { name: "t", description: "t", parameters: parameters as TSchema },
        {
          type: "toolCall",
          id: "c",
          name: "t",
          arguments: args as Record<string, unknown>,
        },
      ),
    );
  const remote = {
    type: "object",
    properties: {
      point: { $ref: "https://example.com/point.json", description: "a point" },
      label: { type: "string" },
    },
    required: ["point"],
  };

  it("a $ref to another document allows anything there (pi-ai's validator fails every call); the rest of the schema applies", () => {
    const call: ToolCall = { type: "toolCall", id: "c", name: "t", arguments: { point: { x: 1 } } };
    expect(
      outcome(() => piValidateToolArguments({ name: "t", description: "t", parameters: remote as TSchema }, call)),
    ).toEqual({ error: expect.stringContaining("schema is false") });
    expect(validate(remote, { point: { x: 1 } })).toEqual({ ok: { point: { x: 1 } } });
    expect(validate(remote, { point: "anything", label: "l" })).toEqual({ ok: { point: "anything", label: "l" } });
    expect(validate(remote, { label: "l" })).toEqual({ error: expect.stringContaining("point") });
    expect(validate(remote, { point: 1, label: { no: 1 } })).toEqual({ error: expect.stringContaining("label") });
  });

  it("keywords beside such a reference still apply", () => {
    const schema = {
      type: "object",
      properties: { name: { $ref: "https://example.com/name.json", type: "string", minLength: 2 } },
    };
    expect(validate(schema, { name: "ab" })).toEqual({ ok: { name: "ab" } });
    expect(validate(schema, { name: "a" })).toEqual({ error: expect.stringContaining("name") });
  });

  it("a missing pointer, anchor or dynamic anchor allows anything; references the document holds still constrain", () => {
    const schema = {
      type: "object",
      properties: {
        missing: { $ref: "#/$defs/Missing" },
        noAnchor: { $ref: "#nowhere" },
        noDynamic: { $dynamicRef: "#nowhere" },
        held: { $ref: "#/$defs/Held" },
        anchored: { $ref: "#count" },
      },
      $defs: { Held: { type: "object", required: ["x"] }, Count: { $anchor: "count", type: "integer" } },
    };
    expect(validate(schema, { missing: 1, noAnchor: [], noDynamic: "d", held: { x: 1 }, anchored: 3 })).toEqual({
      ok: { missing: 1, noAnchor: [], noDynamic: "d", held: { x: 1 }, anchored: 3 },
    });
    expect(validate(schema, { held: {} })).toEqual({ error: expect.stringContaining("held") });
    expect(validate(schema, { anchored: "x" })).toEqual({ error: expect.stringContaining("anchored") });
  });

  it("a reference to the document's own $id resolves and constrains", () => {
    const schema = {
      $id: "https://example.com/tool.json",
      type: "object",
      properties: { a: { $ref: "https://example.com/tool.json#/$defs/A" }, b: { $ref: "tool.json#/$defs/A" } },
      $defs: { A: { type: "integer" } },
    };
    expect(validate(schema, { a: 1, b: 2 })).toEqual({ ok: { a: 1, b: 2 } });
    expect(validate(schema, { a: "x" })).toEqual({ error: expect.stringContaining("a") });
    expect(validate(schema, { b: "x" })).toEqual({ error: expect.stringContaining("b") });
  });

  it("a $ref inside const, enum or default is data, not a reference", () => {
    const schema = { type: "object", properties: { k: { const: { $ref: "https://example.com/x.json" } } } };
    expect(validate(schema, { k: { $ref: "https://example.com/x.json" } })).toEqual({
      ok: { k: { $ref: "https://example.com/x.json" } },
    });
    expect(validate(schema, { k: {} })).toEqual({ error: expect.stringContaining("k") });
  });

  it("the tool's own schema is left as declared (the model is sent it unchanged)", () => {
    const schema = structuredClone(remote);
    validate(schema, { point: 1 });
    validate(schema, { label: 5 });
    expect(schema).toEqual(remote);
    expect(plainSchema(schema)?.schema).not.toBe(schema);
    expect(plainSchema(schemas.nested)?.schema).toBe(schemas.nested);
  });
});
