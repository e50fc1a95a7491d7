import { describe, expect, it } from "vitest";
import { hasBrand } from "../src/internal.js";
import { ProxyRequestError } from "../src/proxy-server/index.js";
import { EventGrammarError, ScriptedModelError, revokedProxy } from "../src/testing/index.js";

const MARKER = Symbol.for("turnkit.test.brand");
const throwsOnEveryRead = new Proxy(
  {},
  {
    get: () => {
      throw new Error("read failed");
    },
  },
);

describe("recognising the project's errors by their marker", () => {
  it("hasBrand is true only for an object whose marker is true, and false, never a throw, for one that cannot be read", () => {
    expect(hasBrand({ [MARKER]: true }, MARKER)).toBe(true);
    expect(hasBrand(Object.assign(new Error("x"), { [MARKER]: true }), MARKER)).toBe(true);
    for (const value of [
      { [MARKER]: "true" },
      {},
      null,
      undefined,
      1,
      "x",
      () => {},
      revokedProxy(),
      throwsOnEveryRead,
    ])
      expect(hasBrand(value, MARKER)).toBe(false);
  });

  it("isInstance of agent-loop's errors is false, never a throw, for a value that cannot be read", () => {
    for (const value of [revokedProxy(), throwsOnEveryRead]) {
      expect(ProxyRequestError.isInstance(value)).toBe(false);
      expect(EventGrammarError.isInstance(value)).toBe(false);
      expect(ScriptedModelError.isInstance(value)).toBe(false);
    }
  });
});
