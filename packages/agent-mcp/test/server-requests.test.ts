/*
 * What a server written apart from this repo (the SDK's low-level `Server`)
 * gets when it sends the client requests during a call: an answer every
 * time, never silence, with the JSON-RPC error the protocol names.
 */
import type { ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { type McpExtensionOptions, createMcpExtension } from "../src/index.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/** Runs one call in which the server sends each of `requests` and reports, per line, the answer or the error's code. */
async function askDuringACall(requests: readonly ServerRequest[], options: Partial<McpExtensionOptions> = {}) {
  const server = await startUnusualServer({
    capabilities: { tools: {} },
    tools: [{ name: "asks", inputSchema: { type: "object" } }],
    call: async (_name, _args, _notify, ask) => {
      const lines: string[] = [];
      for (const request of requests) {
        try {
          lines.push(`${request.method}: ${JSON.stringify(await ask(request))}`);
        } catch (error) {
          const { code, message } = error as { code?: unknown; message: string };
          lines.push(
            `${request.method}: error ${code} ${message.includes("messages") ? "naming params.messages" : ""}`.trim(),
          );
        }
      }
      return { content: [{ type: "text", text: lines.join("\n") }] };
    },
  });
  const mcp = createMcpExtension({ id: "asker", server: { url: server.url }, ...options });
  const runtime = await createAgentRuntime({ base: [mcp] });
  const turn = await runMcpTurn({
    runtime,
    script: [response([toolCall("asks", {}), toolCall("asks", {})]), "Done."],
  });
  await runtime.dispose();
  return turn.toolResults.map(({ isError, text }) => ({ isError, lines: text.split("\n") }));
}

describe("requests a server sends the client", { timeout: 15_000 }, () => {
  it("ping is answered; roots, sampling, elicitation and unknown methods the client did not declare are Method not found (-32601)", async () => {
    const results = await askDuringACall([
      { method: "ping" },
      { method: "roots/list" },
      {
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 },
      },
      {
        method: "elicitation/create",
        params: { message: "Who?", requestedSchema: { type: "object", properties: {} } },
      },
      { method: "custom/thing", params: {} } as unknown as ServerRequest,
    ]);
    const lines = [
      "ping: {}",
      "roots/list: error -32601",
      "sampling/createMessage: error -32601",
      "elicitation/create: error -32601",
      "custom/thing: error -32601",
    ];
    // The second call of the turn gets the same answers: the connection stayed.
    expect(results).toEqual([
      { isError: false, lines },
      { isError: false, lines },
    ]);
  });

  it("a malformed sampling or elicitation request to a client that serves them is Invalid params (-32602), not an internal error", async () => {
    const results = await askDuringACall(
      [
        { method: "sampling/createMessage", params: { messages: "hi" } } as unknown as ServerRequest,
        { method: "elicitation/create", params: { message: 5 } } as unknown as ServerRequest,
      ],
      { sampling: {}, elicitation: {} },
    );
    const lines = ["sampling/createMessage: error -32602 naming params.messages", "elicitation/create: error -32602"];
    expect(results).toEqual([
      { isError: false, lines },
      { isError: false, lines },
    ]);
  });
});
