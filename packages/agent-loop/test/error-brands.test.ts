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

describe("the error classes' constructors given odd options", () => {
  const throwingField = (field: string, valid: Record<string, unknown>) =>
    Object.defineProperty({ ...valid }, field, {
      get: () => {
        throw new Error(`${field} getter failed`);
      },
    });
  const proxyValid = { code: "invalid_field", message: "m" };
  const scriptedValid = { code: "unexpected_request", message: "m" };
  const grammarValid = { index: 0, rule: "r", events: [] };
  const cases: [string, () => unknown, RegExp][] = [
    [
      "ProxyRequestError()",
      () => new (ProxyRequestError as any)(),
      /^ProxyRequestError: options must be an object, got undefined$/,
    ],
    [
      "ProxyRequestError(null)",
      () => new ProxyRequestError(null as any),
      /^ProxyRequestError: options must be an object, got null$/,
    ],
    [
      "ProxyRequestError(revoked)",
      () => new ProxyRequestError(revokedProxy() as any),
      /^ProxyRequestError: options must be an object/,
    ],
    [
      "ProxyRequestError unknown code",
      () => new ProxyRequestError({ code: "x" as any, message: "m" }),
      /^ProxyRequestError: options\.code must be one of/,
    ],
    [
      "ProxyRequestError field 5",
      () => new ProxyRequestError({ ...proxyValid, field: 5 } as any),
      /^ProxyRequestError: options\.field must be a string/,
    ],
    ...["code", "message", "field", "cause"].map((field): [string, () => unknown, RegExp] => [
      `ProxyRequestError ${field} getter throws`,
      () => new ProxyRequestError(throwingField(field, proxyValid) as any),
      new RegExp(`^ProxyRequestError: options\\.${field} could not be read: ${field} getter failed$`),
    ]),
    ["ScriptedModelError()", () => new (ScriptedModelError as any)(), /^ScriptedModelError: options must be an object/],
    [
      "ScriptedModelError string",
      () => new ScriptedModelError("boom" as any),
      /^ScriptedModelError: options must be an object/,
    ],
    [
      "ScriptedModelError symbol message",
      () => new ScriptedModelError({ ...scriptedValid, message: Symbol() } as any),
      /^ScriptedModelError: options\.message must be a string/,
    ],
    [
      "ScriptedModelError message getter throws",
      () => new ScriptedModelError(throwingField("message", scriptedValid) as any),
      /^ScriptedModelError: options\.message could not be read/,
    ],
    ["EventGrammarError()", () => new (EventGrammarError as any)(), /^EventGrammarError: options must be an object/],
    [
      "EventGrammarError index -1",
      () => new EventGrammarError({ ...grammarValid, index: -1 }),
      /^EventGrammarError: options\.index must be an integer/,
    ],
    [
      "EventGrammarError events 5",
      () => new EventGrammarError({ ...grammarValid, events: 5 } as any),
      /^EventGrammarError: options\.events must be an array/,
    ],
    [
      "EventGrammarError events [null]",
      () => new EventGrammarError({ ...grammarValid, events: [null] } as any),
      /^EventGrammarError: options\.events\[0\]/,
    ],
    [
      "EventGrammarError events getter throws",
      () => new EventGrammarError(throwingField("events", grammarValid) as any),
      /^EventGrammarError: options\.events could not be read/,
    ],
  ];
  it.each(cases)("%s is refused with a TypeError naming the argument", (_name, construct, message) => {
    let thrown: unknown;
    try {
      construct();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
  });

  it("what the signatures allow is accepted, each field read once", () => {
    let reads = 0;
    const options = {
      code: "invalid_field" as const,
      get message() {
        reads++;
        return "bad body";
      },
      field: "context",
    };
    expect(new ProxyRequestError(options)).toMatchObject({ status: 400, field: "context", message: "bad body" });
    expect(reads).toBe(1);
    expect(new ScriptedModelError(scriptedValid as any).code).toBe("unexpected_request");
    expect(new EventGrammarError({ index: 0, rule: "no events", events: [] }).message).toBe(
      "Event grammar violated at #0: no events",
    );
  });
});
