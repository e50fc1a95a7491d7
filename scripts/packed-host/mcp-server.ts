// An MCP server written with the official SDK, as a host's own would be: one tool over stdio.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "outsider", version: "1.0.0" });
server.registerTool(
  "shout",
  { description: "Upper-cases text", inputSchema: { text: z.string() } },
  async ({ text }) => ({
    content: [{ type: "text", text: text.toUpperCase() }],
  }),
);
await server.connect(new StdioServerTransport());
