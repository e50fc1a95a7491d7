import { type LlmConfig, PiTurnRunner, createBuiltinTools } from "@turnkit/agent-core";
import type { RuntimeEvent } from "@turnkit/protocol";
import { createAgentRuntime, createSubAgentExtension, toRunTurnInput } from "../src/index.js";

/** Answers a question about a workspace with the help of a read-only "explore" sub-agent. */
export async function askWithExplorer(
  llm: { main: LlmConfig; explore: LlmConfig },
  workspaceDir: string,
  question: string,
) {
  const readOnly = createBuiltinTools({ workspaceDir }).filter((tool) =>
    ["read", "grep", "glob"].includes(tool.def.name),
  );
  const runtime = await createAgentRuntime({
    base: [],
    additions: [
      createSubAgentExtension({
        id: "explorer",
        agents: {
          name: "explore",
          description: "Searches the workspace and reports the relevant files and lines. Give it one precise task.",
          systemPrompt: "You explore a code base with read, grep and glob, then answer in two sentences.",
          llm: llm.explore,
          tools: readOnly,
          executionMode: "parallel", // two explore calls in one response run at once
          budget: { maxSteps: 8 }, // a run that needs more stops, and its call gets an error result
        },
      }),
    ],
    profile: { enable: ["explorer"] },
  });
  const transcript: string[] = [];
  const texts = new Map<string, string>(); // message id -> its text so far
  const eventWriter = {
    push(event: RuntimeEvent) {
      if (event.type !== "stream.resp") return;
      const { messageId, chunk } = event.payload;
      const indent = "  ".repeat(event.origin?.path.length ?? 0); // a sub-agent's events, under its call
      if (chunk.kind === "tool_call" && chunk.status === "started") transcript.push(`${indent}-> ${chunk.toolName}`);
      if (chunk.kind === "text") texts.set(messageId, (texts.get(messageId) ?? "") + chunk.delta);
      if (chunk.kind === "finish" && texts.has(messageId)) transcript.push(`${indent}${texts.get(messageId)}`);
    },
  };
  const turn = await runtime.assembleTurn({ sessionId: "s1", turnId: "t1" });
  const outcome = await new PiTurnRunner().runTurn(
    toRunTurnInput(turn, {
      systemPrompt: "You answer questions about the workspace; delegate searching to explore.",
      userMessage: { text: question },
      llm: llm.main,
      eventWriter,
      disableBuiltinToolFallback: true,
    }),
  );
  for (const call of outcome.subAgentCalls ?? []) {
    transcript.push(`${call.agent} ${call.outcome}: $${call.usage?.total.cost.total.toFixed(3)}`); // per call
  }
  transcript.push(`total: $${outcome.usage?.total.cost.total.toFixed(3)}`); // children included
  await runtime.dispose();
  return { outcome, transcript };
}
