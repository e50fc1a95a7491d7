/**
 * Every function and class the layers export (protocol, agent-loop,
 * agent-core, agent-runtime, ui-stream), called with a first argument no code can use
 * as given (a revoked proxy, an object whose getter throws, a bigint, a
 * symbol, a prototype-less object), answers or refuses it in words: no
 * engine text ("Cannot perform 'get' on a proxy that has been revoked",
 * "Cannot convert a Symbol value to a string") reaches the caller, and
 * nothing hangs. A new export is covered by being exported.
 */
import * as core from "@turnkit/agent-core";
import * as loop from "@turnkit/agent-loop";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";
import * as runtime from "@turnkit/agent-runtime";
import * as protocol from "@turnkit/protocol";
import * as uiStream from "@turnkit/ui-stream";
import { describe, expect, it } from "vitest";

const ENGINE_TEXT =
  /Cannot perform|Cannot read properties|is not a function|is not iterable|Cannot convert|serialize a BigInt|circular structure|Cannot destructure/;

const VALUES: [string, () => unknown][] = [
  ["a revoked proxy", () => revokedProxy()],
  ["an object whose getter throws", () => throwingGetter("name")],
  ["a bigint", () => 5n],
  ["a symbol", () => Symbol("odd")],
  ["a prototype-less object", () => Object.create(null)],
];

/** What calling `fn` with `value` says: its error's text, or "" when it answered. */
async function textOf(name: string, fn: Function, value: unknown): Promise<string> {
  try {
    const isClass = /^[A-Z]/.test(name) && fn.prototype !== undefined;
    const answer = isClass ? new (fn as new (value: unknown) => unknown)(value) : fn(value);
    if (answer && typeof (answer as Promise<unknown>).then === "function") await answer;
    return "";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe("no export answers an unusable argument with the engine's text", () => {
  for (const [layer, exports] of [
    ["protocol", protocol],
    ["agent-loop", loop],
    ["agent-core", core],
    ["agent-runtime", runtime],
    ["ui-stream", uiStream],
  ] as const) {
    it(layer, async () => {
      const found: string[] = [];
      for (const [name, fn] of Object.entries(exports)) {
        // The error classes are the libraries' own to build; a caller only reads them.
        if (typeof fn !== "function" || name.endsWith("Error")) continue;
        for (const [kind, value] of VALUES) {
          const text = await textOf(name, fn, value());
          if (ENGINE_TEXT.test(text)) found.push(`${name}(${kind}): ${text}`);
        }
      }
      expect(found).toEqual([]);
    });
  }
});
