/**
 * `jsonSafe`: plain JSON is handed back as it is; anything else becomes a
 * copy that JSON writes and reads back unchanged, without throwing.
 */
import { describe, expect, it } from "vitest";
import { jsonSafe } from "../../src/event-bridge/json-safe.js";

describe("jsonSafe", () => {
  it("hands back plain JSON itself, an undefined field included", () => {
    const plain = { a: [1, "x", null, { b: true }], c: undefined };
    expect(jsonSafe(plain)).toBe(plain);
  });

  it("keeps a __proto__ key an own field of the copy, and changes no prototype", () => {
    const raw = JSON.parse('{"__proto__": {"polluted": true}, "n": 1}') as Record<string, unknown>;
    raw.odd = 1n;
    const copy = jsonSafe(raw) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "n", "odd"]);
    expect(JSON.parse(JSON.stringify(copy))).toEqual(copy);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("leaves out a field whose getter or toJSON throws, and writes a hole as null", () => {
    const value = {
      ok: 1,
      get broken(): never {
        throw new Error("no");
      },
      nested: {
        toJSON: () => {
          throw new Error("no");
        },
      },
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      list: [1, , 3],
    };
    expect(jsonSafe(value)).toEqual({ ok: 1, list: [1, null, 3] });
  });

  it('writes what lies deeper than 256 levels as "[Too deep]" instead of running out of stack', () => {
    let value: unknown = { leaf: 1 };
    for (let level = 0; level < 100_000; level++) value = level % 2 ? { v: value } : [value];
    const copy = jsonSafe(value);
    let depth = 0;
    let at: unknown = copy;
    while (typeof at === "object" && at !== null) {
      at = Array.isArray(at) ? at[0] : (at as { v: unknown }).v;
      depth++;
    }
    expect(depth).toBe(256);
    expect(at).toBe("[Too deep]");
    expect(JSON.parse(JSON.stringify(copy))).toEqual(copy);
  });

  it("leaves out a proxy that is revoked or whose keys cannot be listed", () => {
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const unlisted = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    expect(jsonSafe({ ok: 1, revoked: revocable.proxy, unlisted, list: [revocable.proxy] })).toEqual({
      ok: 1,
      list: [null],
    });
  });
});
