import { revokedProxy } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpServerError } from "../src/index.js";

it("isInstance of agent-mcp's errors is false, never a throw, for a value that cannot be read (a revoked proxy)", () => {
  expect(McpConfigError.isInstance(revokedProxy())).toBe(false);
  expect(McpServerError.isInstance(revokedProxy())).toBe(false);
});

describe("agent-mcp's error constructors given odd options", () => {
  const withThrowing = (base: object, field: string) =>
    Object.defineProperty({ ...base }, field, {
      get: () => {
        throw new Error(`${field} getter failed`);
      },
    });
  const server = { code: "server_exited" as const, serverId: "files", message: "exited" };
  const config = { field: "callTimeoutMs", problem: "must be a positive integer" };
  const cases: [string, () => unknown, RegExp][] = [
    [
      "McpServerError without options",
      () => new (McpServerError as any)(),
      /^McpServerError: options must be an object, got undefined$/,
    ],
    [
      "McpServerError with null",
      () => new McpServerError(null as any),
      /^McpServerError: options must be an object, got null$/,
    ],
    [
      "McpServerError with a revoked proxy",
      () => new McpServerError(revokedProxy() as any),
      /^McpServerError: options must be an object/,
    ],
    [
      "McpServerError with an unknown code",
      () => new McpServerError({ ...server, code: "gone" as any }),
      /^McpServerError: options\.code must be one of/,
    ],
    [
      "McpServerError with a serverId that is no string",
      () => new McpServerError({ ...server, serverId: 5 as any }),
      /^McpServerError: options\.serverId must be a string, got 5$/,
    ],
    [
      "McpServerError with a message that is no string",
      () => new McpServerError({ ...server, message: Symbol("m") as any }),
      /^McpServerError: options\.message must be a string/,
    ],
    ...["code", "serverId", "message", "cause"].map((field): [string, () => unknown, RegExp] => [
      `McpServerError with a ${field} getter that throws`,
      () => new McpServerError(withThrowing(server, field) as any),
      new RegExp(`^McpServerError: options\\.${field} could not be read: ${field} getter failed$`),
    ]),
    [
      "McpConfigError without options",
      () => new (McpConfigError as any)(),
      /^McpConfigError: options must be an object, got undefined$/,
    ],
    [
      "McpConfigError with a string",
      () => new McpConfigError("bad" as any),
      /^McpConfigError: options must be an object, got "bad"$/,
    ],
    [
      "McpConfigError with a field that is no string",
      () => new McpConfigError({ ...config, field: null as any }),
      /^McpConfigError: options\.field must be a string, got null$/,
    ],
    [
      "McpConfigError with a where that is no string",
      () => new McpConfigError({ ...config, where: 1n as any }),
      /^McpConfigError: options\.where must be a string/,
    ],
    ...["field", "problem", "where"].map((field): [string, () => unknown, RegExp] => [
      `McpConfigError with a ${field} getter that throws`,
      () => new McpConfigError(withThrowing(config, field) as any),
      new RegExp(`^McpConfigError: options\\.${field} could not be read: ${field} getter failed$`),
    ]),
  ];
  it.each(cases)("%s is refused with a TypeError naming the argument", (_name, construct, message) => {
    expect(construct).toThrow(TypeError);
    expect(construct).toThrow(message);
  });

  it("well-formed options still build the errors as before", () => {
    const cause = new Error("socket hang up");
    const failure = new McpServerError({ ...server, cause });
    expect([failure.code, failure.serverId, failure.message, failure.cause]).toEqual([
      "server_exited",
      "files",
      'MCP server "files" exited',
      cause,
    ]);
    expect(new McpServerError(server)).not.toHaveProperty("cause");
    const refused = new McpConfigError({ ...config, where: "connect" });
    expect([refused.code, refused.field, refused.message]).toEqual([
      "invalid_mcp_options",
      "callTimeoutMs",
      "connect: callTimeoutMs must be a positive integer",
    ]);
  });
});
