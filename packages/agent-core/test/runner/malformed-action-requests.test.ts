/**
 * A question a tool builds badly (`ctx.askHost`) is refused at once with a
 * reason naming the field, and nobody is asked: no `action.required` event
 * the protocol's own check would reject reaches the stream, and a request
 * or options that cannot be read are refused too, never a rejection of
 * `askHost`. Values JSON
 * cannot write reach the event and the host as their JSON-safe copy.
 */
import { Type } from "@sinclair/typebox";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { type ActionRequiredPayload, validateRuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type ActionRequestOutcome, defineRuntimeTool } from "../../src/index.js";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";

/** A turn whose tool asks `request` once with `options`; returns the outcome, what the host was handed, and the turn. */
async function askOnce(request: unknown, options?: unknown) {
  const seen: ActionRequestOutcome[] = [];
  const asked: ActionRequiredPayload[] = [];
  const tool = defineRuntimeTool({
    name: "ask",
    description: "Asks",
    parameters: Type.Object({}),
    execute: async (ctx) => {
      seen.push(await ctx.askHost!(request as never, options as never));
      return { content: [{ type: "text", text: "asked" }] };
    },
  });
  const turn = await runCheckedTurn({
    script: [response([toolCall("ask", {}, { id: "call-1" })]), "done"],
    input: {
      tools: [tool],
      answerActionRequest: (payload) => {
        asked.push(payload);
        return { approved: true };
      },
    },
  });
  for (const event of turn.events) expect(validateRuntimeEvent(event)).toMatchObject({ ok: true });
  expect(turn.outcome).toEqual({ kind: "completed" });
  return { outcome: seen[0], asked, turn };
}

const UNREADABLE = "the request or its options could not be read (a revoked proxy or a getter that throws)";

describe("a malformed question from a tool", () => {
  it.each<[string, unknown, unknown, string]>([
    ["no object", null, undefined, "the request must be an object { kind, ... }, got null"],
    [
      "an unknown kind",
      { kind: "bogus" },
      undefined,
      'the request is malformed: /kind: expected "tool_approval" or "elicitation", got "bogus"',
    ],
    [
      "a tool_approval without its fields",
      { kind: "tool_approval", toolName: 5 },
      undefined,
      "the request is malformed: /toolCallId: Expected required property; /arguments: Expected required property; /toolName: Expected string",
    ],
    [
      "a signal that is no AbortSignal",
      { kind: "tool_approval" },
      { signal: "soon" },
      'options.signal must be an AbortSignal, got "soon"',
    ],
    ["a revoked proxy", revokedProxy(), undefined, UNREADABLE],
    ["a request whose kind getter throws", throwingGetter("kind"), undefined, UNREADABLE],
    ["options that are a revoked proxy", { kind: "tool_approval" }, revokedProxy(), UNREADABLE],
    ["options whose signal getter throws", { kind: "tool_approval" }, throwingGetter("signal"), UNREADABLE],
  ])("%s: refused with a reason naming the field, nobody asked", async (_name, request, options, reason) => {
    const { outcome, asked, turn } = await askOnce(request, options);
    expect(outcome).toMatchObject({ kind: "refused" });
    expect((outcome as { reason: string }).reason).toContain(reason);
    expect(asked).toEqual([]);
    expect(turn.writer.ofType("action.required")).toEqual([]);
  });

  it("arguments JSON cannot write reach the event and the host as a JSON-safe copy", async () => {
    const { outcome, asked, turn } = await askOnce({
      kind: "tool_approval",
      toolCallId: "call-1",
      toolName: "deploy",
      arguments: { size: 10n, list: [1, undefined] },
    });
    expect(outcome).toMatchObject({ kind: "answered", answer: { approved: true } });
    expect(asked.map((payload) => (payload as { arguments: unknown }).arguments)).toEqual([
      { size: "10", list: [1, null] },
    ]);
    const [event] = turn.writer.ofType("action.required");
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });

  it("a wait until the abort (timeoutMs Infinity) leaves timeoutMs out of the event, which JSON cannot write", async () => {
    const { outcome, turn } = await askOnce(
      { kind: "tool_approval", toolCallId: "call-1", toolName: "deploy", arguments: {} },
      { timeoutMs: Number.POSITIVE_INFINITY },
    );
    expect(outcome).toMatchObject({ kind: "answered" });
    const [event] = turn.writer.ofType("action.required");
    expect(event!.payload).not.toHaveProperty("timeoutMs", Number.POSITIVE_INFINITY);
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
