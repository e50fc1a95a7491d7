import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpTransportSettings } from "./mcp-options.js";
import type { StderrTail } from "./stderr-tail.js";

/** A client transport plus what the connection needs to know about it. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** Ends an HTTP session politely (a DELETE); nothing for stdio. Rejects on failure. */
  readonly endSession: () => Promise<void>;
}

/**
 * Builds the SDK client transport for the settings. Nothing is started
 * here: the client starts it on connect. A stdio server's stderr is piped
 * into `stderr` instead of the host's terminal.
 */
export function createTransport(settings: McpTransportSettings, stderr: StderrTail): OpenedTransport {
  switch (settings.kind) {
    case "stdio": {
      const transport = new StdioClientTransport({
        command: settings.command,
        args: [...settings.args],
        env: { ...settings.env },
        ...(settings.cwd !== undefined && { cwd: settings.cwd }),
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => stderr.append(chunk));
      return { transport, endSession: async () => {} };
    }
    case "http": {
      const transport = new StreamableHTTPClientTransport(settings.url, { requestInit: { headers: { ...settings.headers } } });
      return { transport, endSession: () => transport.terminateSession() };
    }
    default: {
      const unreachable: never = settings;
      return unreachable;
    }
  }
}
