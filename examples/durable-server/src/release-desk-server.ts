/*
 * The example's MCP server, "release-desk", run by each worker as a child
 * process speaking MCP on stdin/stdout (the official SDK's server). Its one
 * tool, `release`, asks the person which branch to release, and optionally
 * where (a titled choice) and after how many minutes (an MCP elicitation,
 * in the middle of the call), and answers with what they said.
 * It only asks and reports, so calling it again is harmless: it declares
 * `idempotentHint`, which the example's workers read as `replay: "safe"`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "release-desk", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "release",
      description: "Releases the service: asks the person which branch to release",
      inputSchema: { type: "object", properties: {} },
      annotations: { idempotentHint: true, destructiveHint: false },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  if (request.params.name !== "release")
    return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
  const reply = await extra.sendRequest(
    {
      method: "elicitation/create",
      params: {
        message: "Which branch should I release?",
        requestedSchema: {
          type: "object",
          properties: {
            branch: { type: "string", title: "Branch" },
            environment: {
              type: "string",
              title: "Environment",
              oneOf: [
                { const: "staging", title: "Staging" },
                { const: "production", title: "Production" },
              ],
            },
            delayMinutes: { type: "integer", title: "Delay (minutes)", minimum: 0 },
          },
          required: ["branch"],
        },
      },
    },
    ElicitResultSchema,
  );
  const { branch, environment, delayMinutes } = reply.content ?? {};
  const where = environment === undefined ? "" : ` to ${String(environment)}`;
  const when = delayMinutes === undefined ? "" : ` in ${String(delayMinutes)} minutes`;
  const text =
    reply.action === "accept"
      ? `releasing ${String(branch)}${where}${when} (server pid ${process.pid})`
      : `not released: the person answered ${reply.action}`;
  return { content: [{ type: "text", text }] };
});

await server.connect(new StdioServerTransport());
