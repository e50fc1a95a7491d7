import { createLogger } from "vite";
import { defineProject } from "vitest/config";

// The MCP SDK ships source maps that point to files it does not publish; Vite
// warns about each of them once the SDK is inlined (below). Nothing to act on.
const logger = createLogger();
const warnOnce = logger.warnOnce.bind(logger);
logger.warnOnce = (message, options) => {
  if (!message.startsWith("Sourcemap for ")) warnOnce(message, options);
};

export default defineProject({
  customLogger: logger,
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "agent-mcp",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // The SDK's eventsource packages publish a "source" condition too (their .ts
    // files), and Node resolves them with the workers' --conditions=source: let
    // Vite load the SDK and transform those files instead.
    server: { deps: { inline: [/@modelcontextprotocol\/sdk/, /eventsource/] } },
  },
});
