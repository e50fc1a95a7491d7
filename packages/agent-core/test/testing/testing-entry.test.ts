/** The public `@turnkit/agent-core/testing` entry, as a host imports it. */
import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@turnkit/protocol";
import {
  applyHistoryChanges,
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  assistantMessage,
  createRecordingEventWriter,
  createRecordingTool,
  response,
  runScriptedTurn,
  toolCall,
  toolResultMessage,
  userMessage,
} from "@turnkit/agent-core/testing";
import { revokedProxy } from "@turnkit/agent-loop/testing";

const event = (seq: number, type: RuntimeEvent["type"], payload: unknown, eventId = `e${seq}`): RuntimeEvent =>
  ({ schema: "turnkit.runtime-event/v1", eventId, sessionId: "s", turnId: "t", seq, type, payload }) as RuntimeEvent;

describe("@turnkit/agent-core/testing", () => {
  it("runScriptedTurn runs a real turn and returns events, history, transcript, requests and outcome", async () => {
    const turn = await runScriptedTurn({ script: [response("Hi!")], input: { userMessage: { text: "hello there" } } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(assertRuntimeEventSequence(turn.events)).toBe("completed");
    expect(turn.writer.text()).toBe("Hi!");
    expect(turn.transcript.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.events[0]).toMatchObject({ eventId: "evt_1", seq: 1, sessionId: "session-1", turnId: "turn-1" });
  });

  it("runScriptedTurn refuses options it cannot use, naming the option, before any turn runs", async () => {
    for (const [options, message] of [
      [null, "runScriptedTurn: options must be an object, got null"],
      [{ script: "hello" }, 'runScriptedTurn: options.script must be an array, got "hello"'],
      [{ input: 5 }, "runScriptedTurn: options.input must be an object, got 5"],
      [{ writer: [] }, "runScriptedTurn: options.writer must be an object, got an array"],
    ] as const) {
      await expect(runScriptedTurn(options as never)).rejects.toThrow(message);
    }
    await expect(runScriptedTurn({ input: { hooks: revokedProxy() as never } })).rejects.toThrow(
      "runScriptedTurn: options.input could not be read: a value in it cannot be read (a revoked proxy, or an object with no text)",
    );
    await expect(runScriptedTurn({ script: [5 as never] })).rejects.toThrow(
      new TypeError(
        "createScriptedModel: script[0] must be text, response(...), a fault such as hang(...), an AssistantMessage or a function, got 5",
      ),
    );
  });

  it("the assertion helpers say what they got when it is no array", () => {
    expect(() => assertRuntimeEventSequence(undefined as never)).toThrow(
      "RuntimeEvent sequence is invalid: expected an array of events, got undefined",
    );
    expect(() => assertToolCallsAnswered(null as never)).toThrow(
      "assertToolCallsAnswered: expected a transcript (an array of messages), got null",
    );
  });

  it("the helpers refuse a value that cannot be read (a revoked proxy) in words, never with the engine's text", () => {
    const revoked = () => revokedProxy() as never;
    const engine = /proxy that has been revoked/;
    for (const call of [
      () => assertRuntimeEventSequence(revoked()),
      () => assertToolCallsAnswered(revoked()),
      () => applyHistoryChanges(revoked(), []),
      () => applyHistoryChanges([], revoked()),
      () => applyHistoryChanges([], [{ reason: "messageDelta", messages: revoked() }]),
      () => assistantMessage(revoked()),
      () => response(revoked()),
    ]) {
      expect(call).toThrow();
      expect(call).not.toThrow(engine);
    }
    expect(() => applyHistoryChanges(revoked(), [])).toThrow(
      new TypeError("applyHistoryChanges: history must be an array of messages, got an unreadable value"),
    );
  });

  it("each helper refuses a malformed argument with a TypeError naming it, and takes undefined options as none", () => {
    const bad = undefined as never;
    const nul = null as never;
    for (const [call, message] of [
      [() => applyHistoryChanges(bad, []), "applyHistoryChanges: history must be an array of messages, got undefined"],
      [
        () => applyHistoryChanges([], bad),
        "applyHistoryChanges: changes must be an array of history changes, got undefined",
      ],
      [
        () => applyHistoryChanges([], [{ reason: "append", messages: [] } as never]),
        'applyHistoryChanges: changes[0].reason must be "messageDelta" or "replaceMessages", got "append"',
      ],
      [
        () => applyHistoryChanges([], [{ reason: "messageDelta" } as never]),
        "applyHistoryChanges: changes[0].messages must be an array of messages, got undefined",
      ],
      [() => createRecordingEventWriter(nul), "createRecordingEventWriter: options must be an object, got null"],
      [
        () => createRecordingEventWriter({ asyncTicks: -1 }),
        "createRecordingEventWriter: options.asyncTicks must be a non-negative integer, got -1",
      ],
      [() => createRecordingTool("t", nul), "createRecordingTool: options must be an object, got null"],
      [() => createRecordingTool(bad), "createRecordingTool: name must be a string, got undefined"],
      [
        () => createRecordingTool("t", { answer: 5 as never }),
        "createRecordingTool: options.answer must be a function, got 5",
      ],
      [
        () => assertRuntimeEventSequence([nul]),
        "assertRuntimeEventSequence: events[0] must be a RuntimeEvent object, got null",
      ],
      [
        () => assertToolCallsAnswered([nul]),
        "assertToolCallsAnswered: transcript[0] must be a message object, got null",
      ],
      [
        () => assertToolCallsAnswered([{ role: "assistant" } as never]),
        "assertToolCallsAnswered: transcript[0].content must be an array of content blocks, got undefined",
      ],
      [
        () => assertToolCallsAnswered(nul),
        "assertToolCallsAnswered: expected a transcript (an array of messages), got null",
      ],
      [() => response(bad), "response: content must be a string, a content block or an array of them, got undefined"],
    ] as const) {
      expect(call, message).toThrow(message);
      expect(call, message).toThrow(TypeError);
    }
    expect(createRecordingEventWriter(undefined).events).toEqual([]);
    expect(createRecordingTool("t", undefined).calls).toEqual([]);
  });

  it("createRecordingEventWriter answers queries and can simulate a failing sink", async () => {
    const writer = createRecordingEventWriter({
      onEvent: (recorded) => {
        if (recorded.seq === 2) throw new Error("sink down");
      },
    });
    writer.push(event(1, "session.status", { status: "running" }));
    expect(() =>
      writer.push(event(2, "stream.resp", { messageId: "m", chunkIndex: 0, chunk: { kind: "text", delta: "a" } })),
    ).toThrow("sink down");
    writer.push(event(3, "stream.resp", { messageId: "m", chunkIndex: 1, chunk: { kind: "text", delta: "b" } }));
    writer.push(event(4, "debug.trace", { phase: "x", level: "warn", message: "careful" }));
    expect(writer.events).toHaveLength(4);
    expect(writer.text("m")).toBe("ab");
    expect(writer.messageIds()).toEqual(["m"]);
    expect(writer.statuses()).toEqual(["running"]);
    expect(writer.traces("warn").map((trace) => trace.message)).toEqual(["careful"]);
    const asyncWriter = createRecordingEventWriter({ asyncTicks: 1 });
    await expect(asyncWriter.push(event(1, "session.status", { status: "running" }))).resolves.toBeUndefined();
  });

  describe("assertRuntimeEventSequence", () => {
    const running = event(1, "session.status", { status: "running" });
    const done = (seq: number) => event(seq, "session.status", { status: "completed" });
    const cases: [string, RuntimeEvent[], RegExp][] = [
      ["no events", [], /no events/],
      ["a first event other than running", [done(1)], /first event/],
      [
        "a seq that does not increase",
        [
          running,
          event(2, "debug.trace", { phase: "p", level: "info", message: "m" }),
          event(2, "debug.trace", { phase: "p", level: "info", message: "m" }, "x"),
          done(3),
        ],
        /seq must strictly increase/,
      ],
      ["no terminal status", [running], /no terminal/],
      ["two terminal statuses", [running, done(2), done(3)], /2 terminal/],
      [
        "a terminal status that is not last",
        [running, done(2), event(3, "debug.trace", { phase: "p", level: "info", message: "late" })],
        /not the last/,
      ],
      ["a failed status without a code", [running, event(2, "session.status", { status: "failed" })], /error.code/],
      [
        "a repeated eventId",
        [running, event(2, "debug.trace", { phase: "p", level: "info", message: "m" }, "e1"), done(3)],
        /repeated/,
      ],
      [
        "a chunkIndex that goes back",
        [
          running,
          event(2, "stream.resp", { messageId: "m", chunkIndex: 1, chunk: { kind: "text", delta: "a" } }),
          event(3, "stream.resp", { messageId: "m", chunkIndex: 0, chunk: { kind: "text", delta: "b" } }),
          done(4),
        ],
        /chunkIndex/,
      ],
      [
        "an action request id asked twice",
        [
          running,
          event(2, "action.required", {
            requestId: "r",
            kind: "elicitation",
            message: "?",
            requestedSchema: {},
            serverName: "s",
          }),
          event(3, "action.required", {
            requestId: "r",
            kind: "tool_approval",
            toolCallId: "c",
            toolName: "t",
            arguments: {},
          }),
          done(4),
        ],
        /requestId r is repeated/,
      ],
    ];
    for (const [name, events, message] of cases) {
      it(`rejects ${name}`, () => {
        expect(() => assertRuntimeEventSequence(events)).toThrow(message);
      });
    }
    it("accepts a valid sequence and returns its terminal status", () => {
      expect(
        assertRuntimeEventSequence([
          running,
          event(5, "debug.trace", { phase: "p", level: "info", message: "m" }),
          event(6, "action.required", {
            requestId: "r1",
            kind: "elicitation",
            message: "?",
            requestedSchema: {},
            serverName: "s",
          }),
          event(7, "action.required", {
            requestId: "r2",
            kind: "tool_approval",
            toolCallId: "c",
            toolName: "t",
            arguments: {},
          }),
          done(9),
        ]),
      ).toBe("completed");
    });
  });

  it("assertToolCallsAnswered finds calls without exactly one result and ignores failed responses", () => {
    const asked = assistantMessage([toolCall("a", {}, { id: "c1" }), toolCall("b", {}, { id: "c2" })], {
      timestamp: 2,
    });
    expect(() => assertToolCallsAnswered([userMessage("q"), asked, toolResultMessage("c1", "a", "ok")])).toThrow(
      /c2: 0 results/,
    );
    expect(() =>
      assertToolCallsAnswered([
        asked,
        toolResultMessage("c1", "a", "ok"),
        toolResultMessage("c1", "a", "again"),
        toolResultMessage("c2", "b", "ok"),
      ]),
    ).toThrow(/c1: 2 results/);
    expect(
      assertToolCallsAnswered([asked, toolResultMessage("c2", "b", "ok"), toolResultMessage("c1", "a", "ok")]),
    ).toBe(2);
    expect(
      assertToolCallsAnswered([assistantMessage([toolCall("a", {}, { id: "c9" })], { stopReason: "aborted" })]),
    ).toBe(0);
  });

  it("applyHistoryChanges appends deltas and applies replacements", () => {
    const a = userMessage("a", { timestamp: 1 });
    const b = userMessage("b", { timestamp: 2 });
    const c = userMessage("c", { timestamp: 3 });
    expect(
      applyHistoryChanges(
        [a],
        [
          { reason: "messageDelta", messages: [b] },
          { reason: "replaceMessages", messages: [c], previousMessages: [a, b] },
          { reason: "messageDelta", messages: [a] },
        ],
      ),
    ).toEqual([c, a]);
  });
});
