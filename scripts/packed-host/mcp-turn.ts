// A turn whose model calls the MCP server's tool (mcp-server.ts, started over stdio): prints the tool's answer.
import { fileURLToPath } from "node:url";
import { PiTurnRunner } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import { createMcpExtension } from "@turnkit/agent-mcp";
import { createAgentRuntime, toRunTurnInput } from "@turnkit/agent-runtime";

const serverScript = fileURLToPath(new URL("mcp-server.js", import.meta.url));
const runtime = await createAgentRuntime({
  base: [createMcpExtension({ id: "outsider", server: { command: process.execPath, args: [serverScript] } })],
});
try {
  const assembled = await runtime.assembleTurn({ sessionId: "s1", turnId: "t1" });
  const model = createScriptedModel([
    response([toolCall("shout", { text: "hello from the tarballs" })]),
    response("Done."),
  ]);
  const results: string[] = [];
  const input = toRunTurnInput(assembled, {
    systemPrompt: "Be brief.",
    userMessage: { text: "Shout it." },
    llm: { model: model.model, streamFn: model.streamFn },
    disableBuiltinToolFallback: true,
    eventWriter: { push: (event) => void results.push(JSON.stringify(event.payload)) },
  });
  const outcome = await new PiTurnRunner().runTurn(input);
  if (outcome.kind !== "completed") throw new Error(`the turn ended ${outcome.kind}`);
  console.log(results.filter((line) => line.includes("HELLO")).join("\n"));
} finally {
  await runtime.dispose();
}
