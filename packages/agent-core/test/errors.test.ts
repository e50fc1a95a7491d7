import { describe, expect, it } from "vitest";
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
