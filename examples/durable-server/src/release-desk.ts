/*
 * The example's MCP server as the workers use it: one `release-desk`
 * server process per worker (started at the first turn that needs it, ended
 * with the worker), whose tools are durable tools of a turn, each replayed
 * after a crash as its MCP hints allow.
 */
import { fileURLToPath } from "node:url";
import { durableTool, type DurableRuntimeTool } from "@turnkit/agent-durable";
import { createMcpExtension, type McpExtension } from "@turnkit/agent-mcp";
import { type AgentRuntime, createAgentRuntime } from "@turnkit/agent-runtime";
import type { ExtensionDegradedWarning } from "@turnkit/protocol";

const SERVER_SCRIPT = fileURLToPath(new URL("./release-desk-server.ts", import.meta.url));
const EXAMPLE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The `release-desk` MCP server of one worker process. */
export interface ReleaseDesk {
  /** The server's tools for one turn (connecting at the first call), and a warning when the server is down. */
  toolsFor(turn: { sessionId: string; turnId: string }): Promise<{
    tools: DurableRuntimeTool[];
    warnings: readonly ExtensionDegradedWarning[];
  }>;
  /** Ends the server process. */
  dispose(): Promise<void>;
}

/**
 * The worker's `release-desk`: elicitation allowed (the person's answer
 * comes through the turn's `action.required`, answered with
 * `DurableTurnClient.respond`). A tool the server declares idempotent
 * (`idempotentHint`) is `replay: "safe"`: a call interrupted by a crash,
 * also while its question waits, runs again in the worker that recovers
 * the turn (with that worker's server) and asks again under the same
 * request id; any other tool is `replay: "never"` and is answered as
 * interrupted, its open question withdrawn. `RELEASE_DESK_COMMAND` (a
 * JSON array) replaces the command that starts the server (the tests run a
 * bundle with plain node).
 */
export async function createReleaseDesk(): Promise<ReleaseDesk> {
  const [command, ...args] = process.env.RELEASE_DESK_COMMAND
    ? (JSON.parse(process.env.RELEASE_DESK_COMMAND) as string[])
    : [process.execPath, "--import", "tsx", SERVER_SCRIPT];
  const extension: McpExtension = createMcpExtension({
    id: "release-desk",
    server: { command: command!, args, cwd: EXAMPLE_DIR },
    elicitation: {},
  });
  const runtime: AgentRuntime = await createAgentRuntime({ base: [extension] });
  return {
    async toolsFor(turn) {
      const assembled = await runtime.assembleTurn(turn);
      const tools = assembled.tools.map((tool) =>
        durableTool(tool, {
          replay: extension.toolHints(tool.def.name, assembled.context)?.idempotent ? "safe" : "never",
        }),
      );
      return { tools, warnings: assembled.warnings };
    },
    dispose: () => runtime.dispose(),
  };
}
