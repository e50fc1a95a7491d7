/** The README's complete host, run as written (same imports), and kept identical to the README's block. */
import { readFileSync } from "node:fs";
import { afterEach, expect, it, vi } from "vitest";
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, defineRuntimeTool } from "@turnkit/agent-core";
import { assertRuntimeEventSequence, createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The code lines between the two markers of this file, trimmed. */
function exampleLinesInThisFile(): string[] {
  const source = readFileSync(new URL(import.meta.url), "utf8");
  // Built from pieces, so these lines do not match themselves.
  const start = source.indexOf(["// ---", "README example ---"].join(" "));
  const end = source.indexOf(["// ---", "end of the README example ---"].join(" "));
  return source
    .slice(start, end)
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The first ts block of the README after "A complete host, run by a test", without its imports, trimmed. */
function exampleLinesInReadme(): string[] {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## A complete host, run by a test"));
  const block = section.slice(section.indexOf("```ts") + 5, section.indexOf("```", section.indexOf("```ts") + 5));
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("import "));
}

it("the README host runs a full turn and prints its events", async () => {
  const printed: string[] = [];
  vi.spyOn(console, "log").mockImplementation(
    (...args: unknown[]) =>
      void printed.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" ")),
  );

  // --- README example ---
  const listFiles = defineRuntimeTool({
    name: "list_files",
    description: "Lists the files of the project",
    parameters: Type.Object({}),
    executionMode: "parallel",
    execute: () => ({ content: [{ type: "text", text: "README.md\nsrc/main.ts" }] }),
  });
  const readFile = defineRuntimeTool({
    name: "read_file",
    description: "Reads one file of the project",
    parameters: Type.Object({ path: Type.String() }),
    executionMode: "parallel",
    execute: (_ctx, { path }) => ({ content: [{ type: "text", text: `# ${path}\nA tiny demo.` }] }),
  });
  const eventWriter = {
    push(event: RuntimeEvent) {
      const { type, payload } = event;
      if (type === "stream.resp" && payload.chunk.kind === "text")
        console.log(`${event.seq} text ${payload.chunk.delta}`);
      else if (type === "stream.resp" && payload.chunk.kind === "tool_call")
        console.log(`${event.seq} ${payload.chunk.toolName} ${payload.chunk.status}`);
      else if (type === "session.status") console.log(`${event.seq} status ${payload.status}`);
      else if (type === "message.persisted") console.log(`${event.seq} persisted ${payload.reason}`);
    },
  };

  const model = createScriptedModel([
    response([toolCall("list_files"), toolCall("read_file", { path: "README.md" })]),
    "It is a tiny demo.",
  ]);
  const outcome = await new PiTurnRunner().runTurn({
    sessionId: "session-1",
    turnId: "turn-1",
    systemPrompt: "You answer questions about a project.",
    userMessage: { text: "What does the README say?" },
    llm: { model: model.model, streamFn: model.streamFn },
    tools: [listFiles, readFile],
    disableBuiltinToolFallback: true,
    eventWriter,
    hooks: {
      onHistoryChangedHook: (change) =>
        void console.log(`store ${change.reason}: ${change.messages.length} message(s)`),
    },
  });
  console.log(outcome); // { kind: "completed" }
  // --- end of the README example ---

  expect(exampleLinesInThisFile()).toEqual(exampleLinesInReadme());
  expect(outcome).toEqual({ kind: "completed" });
  expect(printed[0]).toBe("1 status running");
  const toolLines = printed
    .filter((line) => /^\d+ (list_files|read_file) /.test(line))
    .map((line) => line.replace(/^\d+ /, ""));
  expect(toolLines).toEqual([
    "list_files preparing",
    "read_file preparing",
    "list_files started",
    "read_file started",
    "list_files finished",
    "read_file finished",
  ]);
  expect(
    printed
      .filter((line) => line.includes(" text "))
      .map((line) => line.split(" text ")[1])
      .join(""),
  ).toBe("It is a tiny demo.");
  expect(printed.filter((line) => line.startsWith("store "))).toEqual([
    "store messageDelta: 1 message(s)",
    "store messageDelta: 1 message(s)",
    "store messageDelta: 1 message(s)",
    "store messageDelta: 1 message(s)",
    "store messageDelta: 1 message(s)",
  ]);
  expect(printed.at(-2)).toMatch(/^\d+ status completed$/);
  expect(printed.at(-1)).toBe('{"kind":"completed"}');
  expect(model.requests).toHaveLength(2);
});

it("the same turn passes the event-sequence check", async () => {
  const events: RuntimeEvent[] = [];
  const model = createScriptedModel(["ok"]);
  await new PiTurnRunner().runTurn({
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: model.model, streamFn: model.streamFn },
    disableBuiltinToolFallback: true,
    eventWriter: { push: (event) => void events.push(event) },
  });
  expect(assertRuntimeEventSequence(events)).toBe("completed");
});
