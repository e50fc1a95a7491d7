import { Type } from "@sinclair/typebox";
import { PiTurnRunner, defineRuntimeTool, type HistoryChange } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { createScriptedModel, response, text, toolCall } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import {
  createAgentRuntime,
  createExtension,
  createHookExtension,
  createReminderExtension,
  toRunTurnInput,
} from "../src/index.js";

/** A tool pack: list and delete files of an in-memory workspace, with a line for the system prompt. */
function fileTools(files: Set<string>) {
  const listFiles = defineRuntimeTool({
    name: "list_files",
    description: "Lists the workspace's files",
    parameters: Type.Object({}),
    executionMode: "parallel",
    execute: () => ({ content: [{ type: "text", text: [...files].sort().join("\n") }] }),
  });
  const deleteFile = defineRuntimeTool({
    name: "delete_file",
    description: "Deletes one file",
    parameters: Type.Object({ path: Type.String() }),
    execute: (_ctx, input) => {
      files.delete(input.path);
      return { content: [{ type: "text", text: `deleted ${input.path}` }] };
    },
  });
  return createExtension({
    id: "file-tools",
    tools: [listFiles, deleteFile],
    systemPrompt: "You can list and delete workspace files.",
  });
}

/** A permission check: delete_file is refused for this session. */
const permissions = createHookExtension({
  id: "permissions",
  hooks: {
    before_tool_call: (event, _signal, ctx) =>
      event.toolCall.name === "delete_file" && ctx.data?.readOnly === true
        ? { block: true, reason: "Permission denied: this session is read-only", blockedBy: "permission" }
        : null,
  },
});

/** A reminder of the session's mode. */
const modeReminder = createReminderExtension({
  id: "mode-reminder",
  provide: (ctx) => (ctx.data?.readOnly ? "The workspace is read-only in this session." : undefined),
});

describe("end to end: a runtime's extensions in a real turn through PiTurnRunner", () => {
  it("the model sees the prompt prefix, the reminder and the tools; the blocked call gets an error result", async () => {
    const files = new Set(["notes.md", "secret.env"]);
    const model = createScriptedModel([
      response([text("Let me look."), toolCall("list_files", {}), toolCall("delete_file", { path: "secret.env" })]),
      response("I could list the files but deleting secret.env was refused."),
    ]);
    const runtime = await createAgentRuntime({ base: [fileTools(files), permissions, modeReminder] });
    const runner = new PiTurnRunner({
      allocateMessageId: (() => {
        let n = 0;
        return () => `msg-${++n}`;
      })(),
    });

    // The host: assemble, run, persist.
    const persisted: AgentMessage[] = [];
    const events: RuntimeEvent[] = [];
    const assembled = await runtime.assembleTurn({ sessionId: "s1", turnId: "t1", data: { readOnly: true } });
    const input = toRunTurnInput(assembled, {
      systemPrompt: "You are a careful assistant.",
      userMessage: { text: "Clean up the workspace." },
      llm: { model: model.model, streamFn: model.streamFn },
      disableBuiltinToolFallback: true,
      llmRetry: false,
      eventWriter: { push: (event) => void events.push(event) },
      hooks: {
        onHistoryChangedHook: (change: HistoryChange) => {
          if (change.reason === "messageDelta") persisted.push(...change.messages);
        },
      },
    });
    const outcome: TurnOutcome = await runner.runTurn(input);

    expect(outcome).toEqual({ kind: "completed" });
    expect(model.requests).toHaveLength(2);

    const first = model.requests[0]!.context;
    expect(first.systemPrompt).toBe("You can list and delete workspace files.\n\nYou are a careful assistant.");
    expect(first.tools!.map((tool) => tool.name)).toEqual(["list_files", "delete_file"]);
    expect(
      first.messages.map((m) => [
        m.role,
        typeof m.content === "string"
          ? m.content
          : m.content.map((b) => (b.type === "text" ? b.text : b.type)).join(""),
      ]),
    ).toEqual([
      ["user", "<system-reminder>\nThe workspace is read-only in this session.\n</system-reminder>"],
      ["user", "Clean up the workspace."],
    ]);

    // The blocked call: an error result in history and in the next request; the file survived.
    expect(files.has("secret.env")).toBe(true);
    const results = persisted.filter((m) => m.role === "toolResult");
    expect(
      results.map((m) => [m.toolName, m.isError, m.content.map((b) => (b.type === "text" ? b.text : "")).join("")]),
    ).toEqual([
      ["list_files", false, "notes.md\nsecret.env"],
      ["delete_file", true, "Permission denied: this session is read-only"],
    ]);
    const second = model.requests[1]!.context;
    expect(second.messages.filter((m) => m.role === "toolResult").map((m) => m.isError)).toEqual([false, true]);

    // History holds the reminder (hidden, sourced), the user message, both steps.
    expect(persisted.map((m) => m.role)).toEqual([
      "hidden",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expect(persisted[0]).toMatchObject({ role: "hidden", source: "mode-reminder" });

    // The runner traced the permission block.
    const blockTrace = events.find((e) => e.type === "debug.trace" && e.payload.message === "tool call blocked");
    expect(blockTrace?.type === "debug.trace" && blockTrace.payload.attrs).toMatchObject({
      toolName: "delete_file",
      blockedBy: "permission",
    });
    expect(events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "completed" } });
  });

  it("a session where the extension is off runs the same host code without the block and reminder", async () => {
    const files = new Set(["notes.md", "secret.env"]);
    const model = createScriptedModel([
      response([toolCall("delete_file", { path: "secret.env" })]),
      response("Deleted."),
    ]);
    const runtime = await createAgentRuntime({ base: [fileTools(files), permissions, modeReminder] });
    runtime.setEnabled("permissions", false, { sessionId: "trusted" });
    const assembled = await runtime.assembleTurn({ sessionId: "trusted", turnId: "t1", data: { readOnly: true } });
    const outcome = await new PiTurnRunner().runTurn(
      toRunTurnInput(assembled, {
        userMessage: { text: "Delete secret.env" },
        llm: { model: model.model, streamFn: model.streamFn },
        disableBuiltinToolFallback: true,
        llmRetry: false,
        eventWriter: { push() {} },
      }),
    );
    expect(outcome).toEqual({ kind: "completed" });
    expect(files.has("secret.env")).toBe(false);
    expect(model.requests[0]!.context.messages).toHaveLength(2); // reminder still on: it is a different extension
    expect(model.requests[1]!.context.messages.filter((m) => m.role === "toolResult").map((m) => m.isError)).toEqual([
      false,
    ]);
  });
});
