import { TurnkitConfigError, TurnkitError } from "@turnkit/agent-core";
import { revokedProxy } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { McpConfigError, type McpExtensionOptions, createMcpExtension } from "../src/index.js";

function configError(options: unknown): McpConfigError {
  try {
    createMcpExtension(options as McpExtensionOptions);
  } catch (error) {
    if (McpConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected createMcpExtension to throw");
}

const stdio = { command: "node", args: ["server.js"] };

describe("createMcpExtension checks its options before starting anything", () => {
  it.each([
    [undefined, "options", "must be an object, got undefined"],
    [
      { id: "Bad Id", server: stdio },
      "id",
      'must be a lower-case extension id ([a-z0-9][a-z0-9._-]*, at most 64 characters), got "Bad Id"',
    ],
    [{ id: "x" }, "server", "must be { command, args? } or { url, headers? }, got undefined"],
    [
      { id: "x", server: { command: "node", url: "http://127.0.0.1/mcp" } },
      "server",
      "must have exactly one of command (a stdio server) or url (a Streamable HTTP server)",
    ],
    [{ id: "x", server: { command: " " } }, "server.command", "must be a non-empty string, got string"],
    [
      { id: "x", server: { command: "node", args: "server.js" } },
      "server.args",
      "must be an array of strings, got string",
    ],
    [{ id: "x", server: { command: "node", args: ["a", 1] } }, "server.args[1]", "must be a string, got number"],
    [{ id: "x", server: { command: "node", env: { TOKEN: 5 } } }, "server.env.TOKEN", "must be a string, got number"],
    [{ id: "x", server: { command: "node", cwd: 1 } }, "server.cwd", "must be a string, got number"],
    [
      { id: "x", server: { url: "ftp://example.test/mcp" } },
      "server.url",
      'must be an http: or https: URL, got "ftp://example.test/mcp"',
    ],
    [{ id: "x", server: { url: "not a url" } }, "server.url", 'must be an http: or https: URL, got "not a url"'],
    [
      { id: "x", server: { url: { href: "http://127.0.0.1/mcp" } } },
      "server.url",
      "must be an http: or https: URL, got object",
    ],
    [
      { id: "x", server: { url: "http://127.0.0.1/mcp", headers: { Authorization: ["Bearer"] } } },
      "server.headers.Authorization",
      "must be a string, got an array",
    ],
    [
      { id: "x", server: stdio, toolPrefix: "gh." },
      "toolPrefix",
      'may hold only letters, digits, "_" and "-" (at most 63), got "gh."',
    ],
    [
      { id: "x", server: stdio, toolNames: { search: "gh search" } },
      "toolNames.search",
      'must be a tool name (letters, digits, "_" or "-", 1 to 64), got "gh search"',
    ],
    [{ id: "x", server: stdio, callTimeoutMs: 0 }, "callTimeoutMs", "must be an integer of at least 1, got 0"],
    [
      { id: "x", server: stdio, connectTimeoutMs: 1.5 },
      "connectTimeoutMs",
      "must be an integer of at least 1, got 1.5",
    ],
    [
      { id: "x", server: stdio, restart: { maxRestarts: -1 } },
      "restart.maxRestarts",
      "must be an integer of at least 0, got -1",
    ],
    [
      { id: "x", server: stdio, maxRestarts: 3 },
      "maxRestarts",
      "is not an option; the options are id, description, server, toolPrefix, toolNames, callTimeoutMs, callMaxDurationMs, maxResultChars, maxMessageBytes, connectTimeoutMs, restart, shutdownGraceMs, clock, logger, logLevel, roots, sampling, elicitation, onStatus",
    ],
    [
      { id: "x", server: stdio, restart: { backoffMs: 5_000, maxBackoffMs: 1_000 } },
      "restart.maxBackoffMs",
      "must be at least restart.backoffMs (5000), got 1000",
    ],
    [
      { id: "x", server: stdio, restart: { healthyAfter: 10 } },
      "restart.healthyAfter",
      "is not an option; the options are maxRestarts, backoffMs, maxBackoffMs, healthyAfterMs",
    ],
    [
      { id: "x", server: { url: "http://127.0.0.1/mcp", header: {} } },
      "server.header",
      "is not an option; the options are url, headers, auth, command",
    ],
    [{ id: "x", server: stdio, callMaxDurationMs: 0 }, "callMaxDurationMs", "must be an integer of at least 1, got 0"],
    [{ id: "x", server: stdio, maxResultChars: 0 }, "maxResultChars", "must be an integer of at least 1, got 0"],
    [{ id: "x", server: stdio, maxMessageBytes: 0 }, "maxMessageBytes", "must be an integer of at least 1, got 0"],
    [{ id: "x", server: stdio, shutdownGraceMs: -5 }, "shutdownGraceMs", "must be an integer of at least 0, got -5"],
    [{ id: "x", server: stdio, clock: Date }, "clock", "must be a Clock { now, setTimeout, clearTimeout }"],
    [
      { id: "x", server: stdio, logger: { warn: "loud" } },
      "logger",
      "must be a logger { debug?, warn?, error? } of functions",
    ],
    [
      { id: "x", server: stdio, logLevel: "verbose" },
      "logLevel",
      'must be one of debug, info, notice, warning, error, critical, alert, emergency, got "verbose"',
    ],
    [{ id: "x", server: stdio, roots: "/srv" }, "roots", "must be an array of absolute paths or { uri, name? }"],
    [{ id: "x", server: stdio, sampling: true }, "sampling", "must be an object { maxTokens? }, got boolean"],
    [
      { id: "x", server: stdio, sampling: { maxTokens: 0 } },
      "sampling.maxTokens",
      "must be an integer of at least 1, got 0",
    ],
    [
      { id: "x", server: { url: "http://127.0.0.1:1/mcp", auth: { redirectUrl: "nope", authorize: () => "" } } },
      "server.auth.redirectUrl",
      'must be a URL, got "nope"',
    ],
    [
      { id: "x", server: { url: "http://127.0.0.1:1/mcp", auth: { redirectUrl: "http://127.0.0.1:1/cb" } } },
      "server.auth.authorize",
      "must be a function (authorizationUrl) => code",
    ],
    [{ id: "x", server: stdio, elicitation: "yes" }, "elicitation", "must be an object { timeoutMs? }, got string"],
    [
      { id: "x", server: stdio, elicitation: { timeoutMs: 0.5 } },
      "elicitation.timeoutMs",
      "must be an integer of at least 1, got 0.5",
    ],
    [{ id: "x", server: stdio, roots: ["/srv", "src"] }, "roots[1]", 'must be an absolute path, got "src"'],
    [
      { id: "x", server: stdio, roots: [{ uri: "/srv" }] },
      "roots[0].uri",
      'must be a file:// URI (the protocol allows no other roots), got "/srv"',
    ],
    [
      { id: "x", server: stdio, roots: [{ uri: "file:///srv", name: 1 }] },
      "roots[0].name",
      "must be a string, got number",
    ],
    [{ id: "x", server: stdio, onStatus: "log" }, "onStatus", "must be a function, got string"],
  ])("%j names the field %s", (options, field, problem) => {
    const error = configError(options);
    expect(error).toMatchObject({
      code: "invalid_mcp_options",
      field,
      name: "McpConfigError",
      message: `createMcpExtension: ${field} ${problem}`,
    });
    expect(TurnkitError.isInstance(error)).toBe(true);
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
  });

  it("options no code can read (a revoked proxy) are refused in words, not with the engine's error", () => {
    const error = configError(revokedProxy());
    expect(error).toMatchObject({ field: "options" });
    expect(error.message).toBe("createMcpExtension: options must be an object, got an unreadable value");
  });

  it("a URL that is a list of length 2^32 - 1 is refused at once, never made text (joined entry by entry, it blocked the process)", () => {
    const list = ["http://127.0.0.1/mcp"];
    list.length = 2 ** 32 - 1;
    const error = configError({ id: "x", server: { url: list } });
    expect(error).toMatchObject({ field: "server.url" });
    expect(error.message).toBe("createMcpExtension: server.url must be an http: or https: URL, got an array");
    const redirect = configError({
      id: "x",
      server: { url: "http://127.0.0.1/mcp", auth: { redirectUrl: list, authorize: () => "" } },
    });
    expect(redirect.message).toBe("createMcpExtension: server.auth.redirectUrl must be a URL, got an array");
  });

  it("valid options make an idle extension with a description of its server", () => {
    const local = createMcpExtension({ id: "files", server: stdio });
    const remote = createMcpExtension({
      id: "remote",
      server: { url: new URL("https://mcp.example.test/v1?key=secret") },
      restart: { maxRestarts: 0 },
    });
    expect(local).toMatchObject({ id: "files", description: "MCP server: node server.js" });
    expect(remote).toMatchObject({ id: "remote", description: "MCP server at https://mcp.example.test/v1" });
    expect(local.status).toEqual({
      id: "files",
      transport: "stdio",
      state: "idle",
      tools: [],
      toolsOutdated: false,
      resourcesOutdated: false,
      promptsOutdated: false,
      restarts: 0,
      maxRestarts: 3,
      totalRestarts: 0,
      nextRestartInMs: undefined,
      serverInfo: undefined,
      lastError: undefined,
      stderrTail: "",
    });
  });
});

it("values that cannot be written as JSON or read at all (a bigint, a revoked proxy) are named by their kind, never the engine's text", () => {
  const stdio = { command: process.execPath };
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  for (const [options, field, problem] of [
    [
      { id: 10n, server: stdio },
      "id",
      "must be a lower-case extension id ([a-z0-9][a-z0-9._-]*, at most 64 characters), got bigint",
    ],
    [{ id: "x", server: stdio, callTimeoutMs: 10n }, "callTimeoutMs", "must be an integer of at least 1, got bigint"],
    [
      { id: "x", server: { ...stdio, args: proxy } },
      "server.args",
      "must be an array of strings, got an unreadable value",
    ],
    [{ id: "x", server: { url: proxy } }, "server.url", "must be an http: or https: URL, got an unreadable value"],
    [{ id: "x", server: stdio, roots: proxy }, "roots", "must be an array of absolute paths or { uri, name? }"],
    [
      { id: "x", server: stdio, roots: [proxy] },
      "roots[0].uri",
      "must be a file:// URI (the protocol allows no other roots), got undefined",
    ],
    [
      { id: "x", server: stdio, roots: [{ uri: 1n }] },
      "roots[0].uri",
      "must be a file:// URI (the protocol allows no other roots), got bigint",
    ],
  ] as const) {
    expect(configError(options)).toMatchObject({ field, message: `createMcpExtension: ${field} ${problem}` });
  }
});
