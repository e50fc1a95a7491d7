import { describe, expect, it } from "vitest";
import {
  createRuntimeEvent,
  isProtocolLlmMessage,
  RUNTIME_EVENT_SCHEMA,
  RUNTIME_EVENT_TYPES,
  isRuntimeEvent,
  isRuntimeEventOfType,
  isTerminalEvent,
  validateRuntimeEvent,
  validateActionAnswer,
  type RuntimeEvent,
} from "../src/index.js";
import { assistantMessage, event, sampleTurn } from "./sample-events.js";

/** A deep copy of `base` with `edit` applied, typed loosely so tests can break it. */
function broken(base: RuntimeEvent, edit: (event: any) => void): unknown {
  const copy = structuredClone(base);
  edit(copy);
  return copy;
}

describe("isRuntimeEvent", () => {
  it("accepts a valid event of every type and every chunk kind", () => {
    const turn = sampleTurn();
    expect(new Set(turn.map((e) => e.type))).toEqual(new Set(RUNTIME_EVENT_TYPES));
    for (const e of turn) {
      expect(validateRuntimeEvent(e)).toEqual({ ok: true, event: e });
      expect(isRuntimeEvent(e)).toBe(true);
    }
  });

  it("accepts events that went through JSON, and extra fields a newer producer added", () => {
    for (const e of sampleTurn()) {
      const wire = JSON.parse(JSON.stringify({ ...e, emittedAt: 123 }));
      expect(isRuntimeEvent(wire)).toBe(true);
    }
  });

  it.each([
    ["missing seq", (e: any) => delete e.seq],
    ["fractional seq", (e: any) => (e.seq = 1.5)],
    ["negative seq", (e: any) => (e.seq = -1)],
    ["seq as a string", (e: any) => (e.seq = "1")],
    ["missing eventId", (e: any) => delete e.eventId],
    ["empty sessionId", (e: any) => (e.sessionId = "")],
    ["missing turnId", (e: any) => delete e.turnId],
    ["another schema version", (e: any) => (e.schema = "turnkit.runtime-event/v0")],
    ["missing payload", (e: any) => delete e.payload],
  ])("rejects an envelope with %s", (_name, edit) => {
    const valid = event("debug.trace", { phase: "p", level: "info", message: "m" });
    expect(isRuntimeEvent(broken(valid, edit))).toBe(false);
  });

  it("rejects an unknown type and says which types exist", () => {
    const value = broken(
      event("debug.trace", { phase: "p", level: "info", message: "m" }),
      (e) => (e.type = "debug.log"),
    );
    expect(isRuntimeEvent(value)).toBe(false);
    const result = validateRuntimeEvent(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[0]).toContain("stream.resp");
  });

  it("rejects a payload that belongs to another type", () => {
    const status = event("session.status", { status: "running" });
    expect(isRuntimeEvent({ ...status, type: "debug.trace" })).toBe(false);
  });

  it.each([null, undefined, 42, "session.status", [], {}])("rejects %j", (value) => {
    expect(isRuntimeEvent(value)).toBe(false);
    expect(validateRuntimeEvent(value).ok).toBe(false);
  });

  describe("session.status", () => {
    it("rejects failed without an error", () => {
      expect(
        isRuntimeEvent(broken(event("session.status", { status: "running" }), (e) => (e.payload.status = "failed"))),
      ).toBe(false);
    });

    it("rejects an error on a status other than failed", () => {
      const error = { code: "internal", message: "x" };
      for (const status of ["running", "completed", "aborted"]) {
        const value = broken(event("session.status", { status: "running" }), (e) => (e.payload = { status, error }));
        expect(isRuntimeEvent(value)).toBe(false);
      }
    });

    it("rejects an unknown status and an unknown error code", () => {
      const failed = event("session.status", { status: "failed", error: { code: "timeout", message: "idle" } });
      expect(isRuntimeEvent(broken(failed, (e) => (e.payload.status = "cancelled")))).toBe(false);
      expect(isRuntimeEvent(broken(failed, (e) => (e.payload.error.code = "teapot")))).toBe(false);
    });
  });

  describe("stream.resp", () => {
    const text = () => event("stream.resp", { messageId: "m1", chunkIndex: 0, chunk: { kind: "text", delta: "hi" } });

    it.each([
      ["an unknown chunk kind", (e: any) => (e.payload.chunk.kind = "image")],
      ["a text chunk without delta", (e: any) => delete e.payload.chunk.delta],
      ["a missing messageId", (e: any) => delete e.payload.messageId],
      ["a negative chunkIndex", (e: any) => (e.payload.chunkIndex = -1)],
      [
        "a tool call with an unknown status",
        (e: any) => (e.payload.chunk = { kind: "tool_call", toolCallId: "c", toolName: "t", status: "queued" }),
      ],
      [
        "a tool call with a negative duration",
        (e: any) =>
          (e.payload.chunk = { kind: "tool_call", toolCallId: "c", toolName: "t", status: "finished", durationMs: -3 }),
      ],
      [
        "a tool result without isError",
        (e: any) =>
          (e.payload.chunk = {
            kind: "tool_call",
            toolCallId: "c",
            toolName: "t",
            status: "finished",
            result: { content: [] },
          }),
      ],
      [
        "an error finish without its classified error",
        (e: any) => (e.payload.chunk = { kind: "finish", reason: "error" }),
      ],
      [
        "a normal finish carrying an error",
        (e: any) => (e.payload.chunk = { kind: "finish", reason: "stop", error: { code: "internal", message: "x" } }),
      ],
      ["an unknown finish reason", (e: any) => (e.payload.chunk = { kind: "finish", reason: "timeout" })],
      [
        "a tool result carrying inline image bytes",
        (e: any) =>
          (e.payload.chunk = {
            ...imageResult().payload.chunk,
            result: { content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], isError: false },
          }),
      ],
      [
        "a media descriptor without its size",
        (e: any) =>
          (e.payload.chunk = {
            ...imageResult().payload.chunk,
            result: { content: [{ type: "media", mediaType: "image", mimeType: "image/png" }], isError: false },
          }),
      ],
    ])("rejects %s", (_name, edit) => {
      expect(isRuntimeEvent(text())).toBe(true);
      expect(isRuntimeEvent(broken(text(), edit))).toBe(false);
    });

    /** A finished call whose image came back as a descriptor: what, how big, from which file, never the bytes. */
    const imageResult = () =>
      event("stream.resp", {
        messageId: "m1",
        chunkIndex: 3,
        chunk: {
          kind: "tool_call",
          toolCallId: "call-1",
          toolName: "read",
          status: "finished",
          result: {
            content: [
              { type: "text", text: "the screenshot" },
              {
                type: "media",
                mediaType: "image",
                mimeType: "image/png",
                bytes: 3_500_000,
                fileName: "shots/home.png",
              },
            ],
            isError: false,
          },
        },
      });

    it("accepts a tool result whose media is a descriptor", () => {
      const withDescriptor = imageResult();
      expect(validateRuntimeEvent(withDescriptor)).toEqual({ ok: true, event: withDescriptor });
    });

    it("points at the broken field", () => {
      const result = validateRuntimeEvent(broken(text(), (e) => delete e.payload.messageId));
      expect(result).toMatchObject({
        ok: false,
        errors: expect.arrayContaining([expect.stringContaining("/payload/messageId")]),
      });
    });
  });

  describe("debug.trace", () => {
    it("rejects an unknown level and non-object attrs", () => {
      const trace = event("debug.trace", { phase: "turn_end", level: "warn", message: "m" });
      expect(isRuntimeEvent(broken(trace, (e) => (e.payload.level = "fatal")))).toBe(false);
      expect(isRuntimeEvent(broken(trace, (e) => (e.payload.attrs = ["a"])))).toBe(false);
      expect(isRuntimeEvent(broken(trace, (e) => delete e.payload.message))).toBe(false);
    });
  });

  describe("message.persisted", () => {
    const persisted = () =>
      event("message.persisted", { reason: "replaceMessages", messages: [assistantMessage()], messageIds: ["m1"] });

    it("rejects an unknown reason", () => {
      expect(isRuntimeEvent(broken(persisted(), (e) => (e.payload.reason = "append")))).toBe(false);
    });

    it("rejects a malformed provider message rather than taking it for a custom one", () => {
      expect(isRuntimeEvent(broken(persisted(), (e) => delete e.payload.messages[0].usage))).toBe(false);
      expect(isRuntimeEvent(broken(persisted(), (e) => (e.payload.messages[0] = { role: "user" })))).toBe(false);
    });

    it("accepts custom messages with any other role, but not an empty role", () => {
      expect(
        isRuntimeEvent(broken(persisted(), (e) => (e.payload.messages[0] = { role: "compaction", summary: "s" }))),
      ).toBe(true);
      expect(isRuntimeEvent(broken(persisted(), (e) => (e.payload.messages[0] = { role: "" })))).toBe(false);
      expect(isRuntimeEvent(broken(persisted(), (e) => (e.payload.messages[0] = { text: "no role" })))).toBe(false);
    });

    it("refuses a list of length 2^32 - 1 with a few entries at once, naming its first holes", () => {
      // Collected whole, the checker's billions of errors (one per hole) ran the process out of memory.
      const result = validateRuntimeEvent(
        broken(persisted(), (e) => {
          e.payload.messages.length = 2 ** 32 - 1;
          delete e.payload.messageIds;
        }),
      );
      expect(result.ok).toBe(false);
      const { errors } = result as { errors: string[] };
      expect(errors.length).toBeLessThanOrEqual(50);
      expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(/^\/payload\/messages\/1: /)]));
    });

    it("requires messageIds to be index-aligned with messages", () => {
      const result = validateRuntimeEvent(broken(persisted(), (e) => e.payload.messageIds.push("extra")));
      expect(result).toEqual({ ok: false, errors: ["/payload/messageIds: has 2 ids for 1 messages"] });
      expect(isRuntimeEvent(broken(persisted(), (e) => delete e.payload.messageIds))).toBe(true);
    });
  });
});

describe("isRuntimeEventOfType", () => {
  it("accepts a valid event of the asked type only", () => {
    const status = event("session.status", { status: "completed" });
    expect(isRuntimeEventOfType(status, "session.status")).toBe(true);
    expect(isRuntimeEventOfType(status, "stream.resp")).toBe(false);
  });

  it("rejects a malformed event of the asked type", () => {
    const value = broken(event("session.status", { status: "completed" }), (e) => delete e.seq);
    expect(isRuntimeEventOfType(value, "session.status")).toBe(false);
  });

  it("narrows the payload", () => {
    const value: unknown = event("session.status", { status: "failed", error: { code: "auth", message: "401" } });
    if (!isRuntimeEventOfType(value, "session.status")) throw new Error("expected a status event");
    expect(value.payload.status === "failed" && value.payload.error.code).toBe("auth");
  });
});

describe("isTerminalEvent", () => {
  it("is true only for a session.status with a terminal status", () => {
    expect(isTerminalEvent(event("session.status", { status: "completed" }))).toBe(true);
    expect(isTerminalEvent(event("session.status", { status: "aborted" }))).toBe(true);
    expect(isTerminalEvent(event("session.status", { status: "failed", error: { code: "hook", message: "h" } }))).toBe(
      true,
    );
    expect(isTerminalEvent(event("session.status", { status: "running" }))).toBe(false);
    expect(isTerminalEvent(event("debug.trace", { phase: "agent_end", level: "info", message: "completed" }))).toBe(
      false,
    );
  });

  it("finds exactly one terminal event, the last, in a sample turn", () => {
    const turn = sampleTurn();
    expect(turn.filter(isTerminalEvent)).toEqual([turn.at(-1)]);
  });
});

describe("RUNTIME_EVENT_SCHEMA", () => {
  it("is a versioned id", () => {
    expect(RUNTIME_EVENT_SCHEMA).toMatch(/^turnkit\.runtime-event\/v\d+$/);
  });
});

describe("action.required", () => {
  const asked = sampleTurn().find((e) => e.type === "action.required")!;

  it("is a valid event that is not terminal", () => {
    expect(validateRuntimeEvent(asked)).toEqual({ ok: true, event: asked });
    expect(isTerminalEvent(asked)).toBe(false);
  });

  it("needs a request id, the call and its arguments", () => {
    const { requestId: _requestId, ...withoutId } = asked.payload as unknown as Record<string, unknown>;
    const result = validateRuntimeEvent({ ...asked, payload: withoutId });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join("\n")).toMatch(/requestId/);
    expect(isRuntimeEvent({ ...asked, payload: { ...asked.payload, kind: "question" } })).toBe(false);
    expect(isRuntimeEvent({ ...asked, payload: { ...asked.payload, arguments: "rm -rf build" } })).toBe(false);
  });

  it("of kind elicitation: a question with the schema of its answer", () => {
    const question = {
      ...asked,
      payload: {
        requestId: "elicitation:call-2:1",
        kind: "elicitation",
        message: "Which branch should I deploy?",
        requestedSchema: { type: "object", properties: { branch: { type: "string" } }, required: ["branch"] },
        serverName: "deploy",
        toolCallId: "call-2",
        timeoutMs: 60_000,
      },
    };
    expect(validateRuntimeEvent(question)).toEqual({ ok: true, event: question });
    const { requestedSchema: _schema, ...withoutSchema } = question.payload;
    const result = validateRuntimeEvent({ ...question, payload: withoutSchema });
    expect(!result.ok && result.errors.join("\n")).toMatch(/requestedSchema/);
    expect(isRuntimeEvent({ ...question, payload: { ...question.payload, serverName: undefined } })).toBe(false);
  });
});

describe("validateActionAnswer", () => {
  it("takes an answer of the request's kind", () => {
    expect(validateActionAnswer("tool_approval", { approved: false, reason: "no" })).toEqual({
      ok: true,
      answer: { approved: false, reason: "no" },
    });
    const accepted = { action: "accept", content: { branch: "main", force: false, count: 2, tags: ["a"] } };
    expect(validateActionAnswer("elicitation", accepted)).toEqual({ ok: true, answer: accepted });
    expect(validateActionAnswer("elicitation", { action: "cancel" }).ok).toBe(true);
  });

  it("names what is wrong with any other value, and never throws", () => {
    const wrongKind = validateActionAnswer("elicitation", { approved: true });
    expect(wrongKind.ok).toBe(false);
    expect(!wrongKind.ok && wrongKind.errors.length).toBeGreaterThan(0);
    expect(validateActionAnswer("elicitation", { action: "accept" }).ok).toBe(false);
    expect(validateActionAnswer("elicitation", { action: "accept", content: { nested: { a: 1 } } }).ok).toBe(false);
    expect(validateActionAnswer("tool_approval", undefined).ok).toBe(false);
    expect(validateActionAnswer("question" as "elicitation", {})).toEqual({
      ok: false,
      errors: ['/: no answer exists for kind "question"'],
    });
  });
});

describe("guards on what is no object", () => {
  it("isTerminalEvent and isProtocolLlmMessage answer false; createRuntimeEvent refuses, naming init", () => {
    for (const value of [undefined, null, 5, "session.status"]) {
      expect(isTerminalEvent(value as never)).toBe(false);
      expect(isProtocolLlmMessage(value as never)).toBe(false);
    }
    expect(() => createRuntimeEvent(undefined as never)).toThrow(
      new TypeError("createRuntimeEvent: init must be an object, got undefined"),
    );
  });
});
