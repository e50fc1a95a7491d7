/**
 * A tool's result reaches runtime events and the history the host stores
 * as plain JSON, whatever its `details` hold (a cycle, a bigint, a function,
 * `undefined` in a list): a writer that serialises events, or a history
 * hook that stores messages, neither crashes nor reads back something else.
 * Plain values are not changed (the hook gets a copy of its own, as every hook does).
 */
import { Type } from "@sinclair/typebox";
import type { AgentMessage } from "@turnkit/agent-loop";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { type RuntimeEvent, validateRuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type HistoryChange, defineRuntimeTool } from "../../src/index.js";

function oddDetails(): Record<string, unknown> {
  const details: Record<string, unknown> = { bytes: 10n, format: () => "x", list: [1, undefined, Number.NaN] };
  details.self = details;
  return details;
}

const SAFE_DETAILS = { bytes: "10", list: [1, null, null], self: "[Circular]" };

function expectPersistable(events: readonly RuntimeEvent[]): void {
  for (const event of events) {
    expect(validateRuntimeEvent(event)).toMatchObject({ ok: true });
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  }
}

/** A turn whose model calls `tool` once, then answers; returns the turn and what the history hook was handed. */
async function callOnce(details: unknown) {
  const tool = defineRuntimeTool({
    name: "odd",
    description: "Returns odd details",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "done" }], details }),
  });
  const stored: AgentMessage[] = [];
  const turn = await runCheckedTurn({
    script: [response(toolCall("odd", {}, { id: "call-1" })), "ok"],
    input: {
      tools: [tool],
      hooks: { onHistoryChangedHook: (change: HistoryChange) => void stored.push(...change.messages) },
    },
  });
  return { turn, stored };
}

function toolResultOf(messages: readonly unknown[]): { details?: unknown } | undefined {
  return messages.find((message) => (message as { role?: string }).role === "toolResult") as
    | { details?: unknown }
    | undefined;
}

describe("a tool result's details", () => {
  it("with a cycle, a bigint, a function and undefined in a list reach events and the stored history as plain JSON", async () => {
    const details = oddDetails();
    const { turn, stored } = await callOnce(details);
    expect(turn.outcome).toEqual({ kind: "completed" });
    expectPersistable(turn.events);
    const finished = turn.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "tool_call" && event.payload.chunk.result
        ? [event.payload.chunk.result.details]
        : [],
    );
    expect(finished).toEqual([SAFE_DETAILS]);
    const persisted = turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages);
    expect(toolResultOf(persisted)?.details).toEqual(SAFE_DETAILS);
    // What the hook stores is what the event carries.
    expect(toolResultOf(stored)?.details).toEqual(SAFE_DETAILS);
    // The tool's own object is left as it was.
    expect(details.bytes).toBe(10n);
    expect(details.self).toBe(details);
  });

  it("nested far too deep for JSON reach events and the stored history cut at 256 levels, and the turn goes on", async () => {
    let details: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 100_000; level++) details = { v: details };
    const { turn, stored } = await callOnce(details);
    // Before, the turn failed with "Maximum call stack size exceeded".
    expect(turn.outcome).toEqual({ kind: "completed" });
    expectPersistable(turn.events);
    const persisted = turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages);
    for (const kept of [toolResultOf(persisted)?.details, toolResultOf(stored)?.details]) {
      // Cut 256 levels below the message that holds them.
      const levels = JSON.stringify(kept).split('{"v":').length - 1;
      expect(levels).toBeGreaterThan(250);
      expect(JSON.stringify(kept)).toBe(`${'{"v":'.repeat(levels)}"[Too deep]"${"}".repeat(levels)}`);
    }
  });

  it("that are plain JSON reach the history hook unchanged, in a copy of its own (editing it changes nothing of the turn)", async () => {
    const details = { rows: [{ id: 1 }], note: "plain" };
    const { turn, stored } = await callOnce(details);
    expectPersistable(turn.events);
    expect(toolResultOf(stored)?.details).toEqual(details);
    expect(toolResultOf(stored)?.details).not.toBe(details);
  });

  it("reach a history hook as plain JSON also among a replacement's previous messages", async () => {
    const tool = defineRuntimeTool({
      name: "odd",
      description: "Returns odd details",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "done" }], details: oddDetails() }),
    });
    const changes: HistoryChange[] = [];
    const turn = await runCheckedTurn({
      script: [response(toolCall("odd", {}, { id: "call-1" })), "ok"],
      input: {
        tools: [tool],
        hooks: {
          // At the second request, a compaction keeps the transcript as it is.
          beforeLlmCallHook: (event) =>
            event.requestIndex === 1 ? { type: "replaceMessages", messages: [...event.messages] } : undefined,
          onHistoryChangedHook: (change: HistoryChange) => void changes.push(change),
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    const replacement = changes.find((change) => change.reason === "replaceMessages");
    expect(replacement).toBeDefined();
    expect(() => JSON.stringify(replacement)).not.toThrow();
    expect(toolResultOf((replacement as { previousMessages: unknown[] }).previousMessages)?.details).toEqual(
      SAFE_DETAILS,
    );
  });
});
