import { describe, expect, it } from "vitest";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";
import { LlmTimeoutError } from "../src/call-stack/stream-errors.js";
import { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "../src/errors.js";

describe("typed errors recognise each other across package copies", () => {
  it("TurnkitConfigError.isInstance checks its own marker, not the name", () => {
    const config = new TurnkitConfigError(ConfigErrorCode.InvalidTool, "bad tool");
    const renamed = Object.assign(new TurnkitError("invalid_tool", "bad tool"), { name: "TurnkitConfigError" });
    expect(TurnkitConfigError.isInstance(config)).toBe(true);
    expect(TurnkitError.isInstance(config)).toBe(true);
    expect(TurnkitConfigError.isInstance(renamed)).toBe(false);
    expect(TurnkitError.isInstance(renamed)).toBe(true);
  });

  it("an error carrying both global markers counts, as one from another copy of the package would", () => {
    const fromOtherCopy = Object.assign(new Error("bad tool"), {
      code: "invalid_tool",
      [Symbol.for("turnkit.error")]: true,
      [Symbol.for("turnkit.config-error")]: true,
    });
    expect(TurnkitConfigError.isInstance(fromOtherCopy)).toBe(true);
    expect(TurnkitConfigError.isInstance({ code: "invalid_tool" })).toBe(false);
    expect(TurnkitConfigError.isInstance(null)).toBe(false);
  });
});

describe("isInstance of a value that cannot be read", () => {
  it("is false, never a throw, for a revoked proxy or an object whose every property throws", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwing = new Proxy(
      {},
      {
        get: () => {
          throw new Error("read failed");
        },
      },
    );
    for (const value of [proxy, throwing]) {
      expect(TurnkitError.isInstance(value)).toBe(false);
      expect(TurnkitConfigError.isInstance(value)).toBe(false);
    }
  });
});

describe("error constructors given odd arguments", () => {
  const revoked = () => revokedProxy();
  const withThrowingCause = () => throwingGetter("cause");
  const cases: [string, () => unknown, RegExp][] = [
    ["TurnkitError()", () => new (TurnkitError as any)(), /^TurnkitError: code must be a string, got undefined$/],
    ["TurnkitError(code)", () => new (TurnkitError as any)("c"), /^TurnkitError: message must be a string/],
    ["TurnkitError symbol message", () => new TurnkitError("c", Symbol("m") as any), /^TurnkitError: message must/],
    ["TurnkitError revoked message", () => new TurnkitError("c", revoked() as any), /^TurnkitError: message must/],
    ["TurnkitError null options", () => new TurnkitError("c", "m", null as any), /^TurnkitError: options must be/],
    ["TurnkitError string options", () => new TurnkitError("c", "m", "x" as any), /^TurnkitError: options must be/],
    ["TurnkitError revoked options", () => new TurnkitError("c", "m", revoked()), /^TurnkitError: options must be/],
    [
      "TurnkitError throwing cause",
      () => new TurnkitError("c", "m", withThrowingCause()),
      /^TurnkitError: options\.cause could not be read: cause getter failed$/,
    ],
    ["TurnkitConfigError()", () => new (TurnkitConfigError as any)(), /^TurnkitConfigError: code must be a string/],
    [
      "TurnkitConfigError revoked options",
      () => new TurnkitConfigError("c", "m", revoked()),
      /^TurnkitConfigError: options must be an object, got an unreadable value$/,
    ],
    [
      "TurnkitConfigError throwing cause",
      () => new TurnkitConfigError("c", "m", withThrowingCause()),
      /^TurnkitConfigError: options\.cause could not be read/,
    ],
    ["LlmTimeoutError()", () => new (LlmTimeoutError as any)(), /^LlmTimeoutError: kind must be/],
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

  it("what the signature allows is accepted: no options, or options with a cause read once", () => {
    const plain = new TurnkitError("c", "m");
    expect(plain).toMatchObject({ code: "c", message: "m" });
    expect(plain.cause).toBeUndefined();
    let reads = 0;
    const cause = new Error("root");
    const options = {
      get cause() {
        reads++;
        return cause;
      },
    };
    const error = new TurnkitConfigError("c", "m", options);
    expect(error.cause).toBe(cause);
    expect(reads).toBe(1);
    expect(new TurnkitError("c", "", {}).message).toBe("");
  });
});
