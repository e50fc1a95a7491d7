/**
 * The `mcp-server` and `mcp-stdio-server` properties (generated MCP
 * servers through `@turnkit/agent-mcp`; see `mcp-server-scenario.ts`),
 * over Streamable HTTP and over stdio from a child process. Their cases
 * need the MCP SDK's HTTP client, which the fuzz's own vitest project (the
 * `source` condition) cannot load: CI runs them from agent-mcp's project
 * (`fuzz/test/mcp/`), `pnpm fuzz --property mcp-server` from here. The
 * case runner is loaded at the first case, so the other properties never
 * load the SDK.
 */
import fc from "fast-check";
import type { FuzzProperty } from "./fuzz-property.js";
import { type McpFuzzCase, mcpFuzzCaseArbitrary } from "./mcp-server-arbitraries.js";
import { type McpStdioCase, mcpStdioCaseArbitrary } from "./mcp-stdio-arbitraries.js";

/** The property, as `createFuzzProperties` lists it. */
export const mcpServerProperty: FuzzProperty<McpFuzzCase> = {
  name: "mcp-server",
  description:
    "generated MCP servers (odd and invalid tool lists, every content kind, structured content against output schemas, JSON-RPC errors, hangs, dropped connections, closed sessions, progress, logs, list_changed, sampling and elicitation mid-call) through agent-mcp in a PiTurnRunner turn, then the host's reads of its resources and prompts: every call answered, failures typed and named, no engine text, no hang",
  arbitrary: mcpFuzzCaseArbitrary,
  run: async (scenario) => (await import("./mcp-server-scenario.js")).checkMcpCase(scenario),
  ciRuns: 25,
  fuzzWeight: 0.5,
};

/** The same generated servers as child processes over stdio, misbehaving as only a process can. */
export const mcpStdioServerProperty: FuzzProperty<McpStdioCase> = {
  name: "mcp-stdio-server",
  description:
    "generated MCP servers as child processes over stdio (the same servers, written a line at a time, in CRLF, split or two to a write, with a byte-order mark; banners, log lines and pino JSON logs on stdout (also before the handshake's answer) that break nothing, JSON that is no JSON-RPC, answers to ids never asked, malformed JSON-RPC messages, lines past maxMessageBytes; exits, signals and a closed stdout or stdin before the handshake, in a call and between calls; initialize never answered; a stderr flood; SIGTERM ignored; writes after stdin ended; the runtime disposed mid-call): every call answered, failures typed and named, statuses and restarts as documented, no process left, no hang",
  arbitrary: mcpStdioCaseArbitrary,
  run: async (scenario) => (await import("./mcp-server-scenario.js")).checkMcpStdioCase(scenario),
  ciRuns: 8,
  fuzzWeight: 0.25,
};

/** Runs `property` with fast-check's `assert` (`numRuns` cases from `seed`), then stops the HTTP server. */
export async function assertMcpServerProperty<TScenario>(
  property: FuzzProperty<TScenario>,
  options: { seed: number; numRuns: number },
): Promise<void> {
  try {
    await fc.assert(
      fc.asyncProperty(property.arbitrary, (scenario) => property.run(scenario)),
      options,
    );
  } finally {
    await (await import("./mcp-fuzz-server.js")).closeMcpFuzzServer();
  }
}
