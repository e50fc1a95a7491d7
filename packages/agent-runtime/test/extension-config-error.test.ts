import { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "@turnkit/agent-core";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import {
  ExtensionConfigError,
  ExtensionConfigErrorCode,
  ExtensionContributionError,
  createAgentRuntime,
  createToolExtension,
} from "../src/index.js";
import { extension, rejected, thrown } from "./fixtures.js";

describe("the extension mistakes are agent-runtime's own configuration errors", () => {
  it("a bad id and a failing init are ExtensionConfigErrors with agent-runtime's codes, and TurnkitConfigErrors too", async () => {
    const badId = thrown(() => createToolExtension({ id: "Bad Id", tools: [] }));
    const failedInit = await rejected(
      createAgentRuntime({
        base: [
          extension("boom", () => {
            throw new Error("no config file");
          }),
        ],
      }),
    );
    for (const [error, code] of [
      [badId, ExtensionConfigErrorCode.InvalidExtensionId],
      [failedInit, ExtensionConfigErrorCode.ExtensionInit],
    ] as const) {
      expect(error.code).toBe(code);
      expect(error.name).toBe("ExtensionConfigError");
      expect(ExtensionConfigError.isInstance(error)).toBe(true);
      expect(TurnkitConfigError.isInstance(error)).toBe(true);
      expect(TurnkitError.isInstance(error)).toBe(true);
    }
    expect(ExtensionConfigErrorCode).toEqual({
      InvalidExtensionId: "invalid_extension_id",
      ExtensionInit: "extension_init",
    });
    expect(Object.values(ConfigErrorCode)).not.toContain("invalid_extension_id");
    expect(Object.values(ConfigErrorCode)).not.toContain("extension_init");
  });

  it("isInstance checks its own marker: another copy's error counts, a plain config error with the same code does not", () => {
    const fromOtherCopy = Object.assign(new Error("bad id"), {
      code: "invalid_extension_id",
      [Symbol.for("turnkit.error")]: true,
      [Symbol.for("turnkit.config-error")]: true,
      [Symbol.for("turnkit.agent-runtime.ExtensionConfigError")]: true,
    });
    const sameCodeOnly = new TurnkitConfigError("invalid_extension_id", "bad id");
    const renamed = Object.assign(new TurnkitConfigError("extension_init", "init failed"), {
      name: "ExtensionConfigError",
    });
    expect(ExtensionConfigError.isInstance(fromOtherCopy)).toBe(true);
    expect(ExtensionConfigError.isInstance(sameCodeOnly)).toBe(false);
    expect(ExtensionConfigError.isInstance(renamed)).toBe(false);
    expect(ExtensionConfigError.isInstance(null)).toBe(false);
  });
});

it("isInstance of agent-runtime's errors is false, never a throw, for a value that cannot be read (a revoked proxy)", () => {
  expect(ExtensionConfigError.isInstance(revokedProxy())).toBe(false);
  expect(ExtensionContributionError.isInstance(revokedProxy())).toBe(false);
});

describe("the extension error classes' constructors given odd arguments", () => {
  const cases: [string, () => unknown, RegExp][] = [
    ["ExtensionConfigError()", () => new (ExtensionConfigError as any)(), /^ExtensionConfigError: code must be one of/],
    [
      "ExtensionConfigError symbol message",
      () => new ExtensionConfigError("extension_init", Symbol() as any),
      /^ExtensionConfigError: message must be a string/,
    ],
    [
      "ExtensionConfigError revoked options",
      () => new ExtensionConfigError("extension_init", "m", revokedProxy()),
      /^ExtensionConfigError: options must be an object/,
    ],
    [
      "ExtensionConfigError cause getter throws",
      () => new ExtensionConfigError("extension_init", "m", throwingGetter("cause")),
      /^ExtensionConfigError: options\.cause could not be read: cause getter failed$/,
    ],
    [
      "ExtensionContributionError()",
      () => new (ExtensionContributionError as any)(),
      /^ExtensionContributionError: extensionId must be a string/,
    ],
    [
      "ExtensionContributionError unknown contribution",
      () => new ExtensionContributionError("x", "nope" as any, "m"),
      /^ExtensionContributionError: contribution must be one of/,
    ],
    [
      "ExtensionContributionError null options",
      () => new ExtensionContributionError("x", "reminder", "m", null as any),
      /^ExtensionContributionError: options must be an object, got null$/,
    ],
    [
      "ExtensionContributionError cause getter throws",
      () => new ExtensionContributionError("x", "reminder", "m", throwingGetter("cause")),
      /^ExtensionContributionError: options\.cause could not be read/,
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
});
