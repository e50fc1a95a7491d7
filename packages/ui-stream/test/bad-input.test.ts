import { describe, expect, it } from "vitest";
import {
  readSseEvents,
  readTurnUIMessage,
  toUIMessageChunks,
  toUIMessageStreamResponse,
  toUIMessageStreamSse,
  TurnkitChatTransport,
  UIMessageChunkMapper,
  UIStreamError,
  withApprovalAnswers,
  withoutSupersededParts,
} from "../src/index.js";

/** Bad input to each entry point is refused with an error naming the argument, not a TypeError from inside. */
describe("bad input", () => {
  it("toUIMessageChunks and readTurnUIMessage refuse events that are not iterable (invalid_events)", async () => {
    for (const events of [null, undefined, 5, {}] as const) {
      const refused = (error: unknown) =>
        UIStreamError.isInstance(error) &&
        error.code === "invalid_events" &&
        error.message.startsWith("toUIMessageChunks: events must be an iterable or async iterable of RuntimeEvents");
      await expect(toUIMessageChunks(events as never).next()).rejects.toSatisfy(refused);
      await expect(readTurnUIMessage(events as never)).rejects.toSatisfy(refused);
    }
  });

  it("an event that is no RuntimeEvent (an origin that is not one a turn passes on from a sub-agent, a payload missing, one that cannot be read) is refused (invalid_events), naming the field", () => {
    const running = {
      schema: "turnkit.runtime-event/v1",
      ts: 1,
      sessionId: "s",
      turnId: "t",
      eventId: "e0",
      seq: 0,
      type: "session.status",
      payload: { status: "running" },
    };
    const step = { toolCallId: "call-1", agent: "explore" };
    const origin = { toolCallId: "call-1", path: [step], turnId: "child", seq: 0 };
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const next = { ...running, eventId: "e1", seq: 1 };
    for (const [bad, field] of [
      [{ ...next, origin: { ...origin, path: [] } }, "/origin/path"],
      [{ ...next, origin: { ...origin, path: "explore" } }, "/origin/path"],
      [{ ...next, origin: { ...origin, path: [step, { agent: "deep" }] } }, "/origin/path/1/toolCallId"],
      [{ ...next, origin: { ...origin, toolCallId: 7 } }, "/origin/toolCallId"],
      [{ ...next, origin: { ...origin, turnId: undefined } }, "/origin/turnId"],
      [{ ...next, type: "stream.resp", payload: null }, "/payload"],
      [{ ...next, type: "stream.resp", payload: { messageId: "m", chunk: { kind: "text" } } }, "/payload"],
      [proxy, "/"],
    ] as const) {
      const mapper = new UIMessageChunkMapper();
      mapper.map(running as never);
      expect(() => mapper.map(bad as never)).toThrow(
        expect.objectContaining({
          code: "invalid_events",
          message: expect.stringContaining(`an event must be a RuntimeEvent: ${field}`),
        }),
      );
    }
  });

  it("toUIMessageStreamSse and toUIMessageStreamResponse refuse chunks that are not async iterable", () => {
    for (const [chunks, got] of [
      [null, "null"],
      [[], "an array"],
      [5, "number"],
    ] as const) {
      const message = `toUIMessageStreamSse: chunks must be an async iterable of chunks, got ${got}`;
      expect(() => toUIMessageStreamSse(chunks as never)).toThrow(new TypeError(message));
      expect(() => toUIMessageStreamResponse(chunks as never)).toThrow(new TypeError(message));
    }
  });

  it("withApprovalAnswers refuses what is no UI message", () => {
    expect(() => withApprovalAnswers(null as never)).toThrow(
      new TypeError("withApprovalAnswers: message must be a UIMessage with a parts array, got null"),
    );
    expect(() => withApprovalAnswers("m" as never)).toThrow(
      new TypeError("withApprovalAnswers: message must be a UIMessage with a parts array, got string"),
    );
  });

  it("withoutSupersededParts refuses what is no UI message", () => {
    expect(() => withoutSupersededParts(null as never)).toThrow(
      new TypeError("withoutSupersededParts: message must be a UIMessage with a parts array, got null"),
    );
    expect(() => withoutSupersededParts({ id: "m", role: "assistant" } as never)).toThrow(
      new TypeError(
        "withoutSupersededParts: message must be a UIMessage with a parts array, got an object without parts",
      ),
    );
  });

  it("readSseEvents refuses a body that is no stream", async () => {
    await expect(readSseEvents(null as never).next()).rejects.toThrow(
      new TypeError("readSseEvents: body must be a ReadableStream (a fetch Response's body), got null"),
    );
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    await expect(readSseEvents(proxy as never).next()).rejects.toThrow(
      new TypeError("readSseEvents: body must be a ReadableStream (a fetch Response's body), got an unreadable value"),
    );
  });

  it("options that are no object, and constructor options of the wrong type, are refused naming them", () => {
    const chunks = (async function* () {})();
    for (const [call, message] of [
      [() => toUIMessageStreamSse(chunks, null as never), "toUIMessageStreamSse: options must be an object, got null"],
      [
        () => toUIMessageStreamResponse(chunks, null as never),
        "toUIMessageStreamResponse: init must be an object, got null",
      ],
      [() => new UIMessageChunkMapper(null as never), "UIMessageChunkMapper: options must be an object, got null"],

      [() => new TurnkitChatTransport(null as never), "TurnkitChatTransport: options must be an object, got null"],
      [
        () => new TurnkitChatTransport({ api: 5 as never }),
        "TurnkitChatTransport: options.api must be a string, got number",
      ],
      [
        () => new TurnkitChatTransport({ fetch: "x" as never }),
        "TurnkitChatTransport: options.fetch must be a function, got string",
      ],
      [
        () => new TurnkitChatTransport({ onTurn: "x" as never }),
        "TurnkitChatTransport: options.onTurn must be a function, got string",
      ],
    ] as const) {
      expect(call).toThrow(new TypeError(message));
    }
  });
});

it("UIStreamError.isInstance is false, never a throw, for a value that cannot be read (a revoked proxy)", () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  expect(UIStreamError.isInstance(proxy)).toBe(false);
});

it("TurnkitChatTransport refuses send and reconnect options that are no object, and messages that are no list, naming them", async () => {
  const transport = new TurnkitChatTransport({ fetch: () => Promise.reject(new Error("not to be called")) });
  await expect(transport.sendMessages(undefined as never)).rejects.toThrow(
    new TypeError("TurnkitChatTransport.sendMessages: options must be an object, got undefined"),
  );
  await expect(transport.sendMessages({ chatId: "c", messages: null } as never)).rejects.toThrow(
    new TypeError("TurnkitChatTransport.sendMessages: options.messages must be an array of UI messages, got null"),
  );
  await expect(transport.reconnectToStream(null as never)).rejects.toThrow(
    new TypeError("TurnkitChatTransport.reconnectToStream: options must be an object, got null"),
  );
});

it("toUIMessageChunks and readTurnUIMessage refuse options that are no object and an afterSeq that is no number, naming them", async () => {
  await expect(toUIMessageChunks([], null as never).next()).rejects.toThrow(
    new TypeError("toUIMessageChunks: options must be an object, got null"),
  );
  await expect(readTurnUIMessage([], null as never)).rejects.toThrow(
    new TypeError("toUIMessageChunks: options must be an object, got null"),
  );
  await expect(toUIMessageChunks([], { afterSeq: "3" } as never).next()).rejects.toThrow(
    new TypeError("toUIMessageChunks: options.afterSeq must be a number, got string"),
  );
});

it("toUIMessageStreamSse fails the stream naming an item that is no { chunk, seq } a client can read, and stops reading the chunks", async () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  for (const [item, got] of [
    [null, "null"],
    [{ chunk: undefined, seq: 1, lastOfEvent: true }, "object"],
    [{ chunk: { type: "text-delta", id: "a", delta: 10n }, seq: 1, lastOfEvent: true }, "object"],
    [{ chunk: { type: "finish" }, seq: "2", lastOfEvent: true }, "object"],
    [proxy, "an unreadable value"],
  ] as const) {
    let returned = false;
    const chunks: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ value: item, done: false }),
        return: async () => {
          returned = true;
          return { value: undefined, done: true };
        },
      }),
    };
    const reader = toUIMessageStreamSse(chunks as never).getReader();
    await expect(reader.read()).rejects.toThrow(
      new TypeError(
        `toUIMessageStreamSse: chunks item 0 must be { chunk, seq } with a chunk object JSON can write, got ${got}`,
      ),
    );
    expect(returned).toBe(true);
  }
});

it("TurnkitChatTransport refuses headers that are no set of headers, its own and a call's, naming them", async () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  expect(() => new TurnkitChatTransport({ headers: proxy as never })).toThrow(
    new TypeError(
      "TurnkitChatTransport: options.headers must be an object of header values or a function answering one, got an unreadable value",
    ),
  );
  const send = (transport: TurnkitChatTransport, headers?: unknown) =>
    transport.sendMessages({
      trigger: "submit-message",
      chatId: "c",
      messageId: undefined,
      messages: [],
      abortSignal: undefined,
      headers: headers as never,
    });
  const noServer = () => Promise.reject(new Error("not to be called"));
  await expect(send(new TurnkitChatTransport({ fetch: noServer, headers: () => 5 as never }))).rejects.toThrow(
    new TypeError("TurnkitChatTransport: options.headers() must answer an object of header values, got number"),
  );
  await expect(send(new TurnkitChatTransport({ fetch: noServer }), [null])).rejects.toThrow(
    new TypeError(
      "TurnkitChatTransport: the call's headers must be an object, a list of [name, value] pairs or a Headers, got an array",
    ),
  );
});

describe("UIStreamError's constructor given odd options", () => {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  const throwingField = (field: string) =>
    Object.defineProperty({ code: "http_status", message: "m" }, field, {
      get: () => {
        throw new Error(`${field} getter failed`);
      },
    });
  const cases: [string, () => unknown, RegExp][] = [
    ["no options", () => new (UIStreamError as any)(), /^UIStreamError: options must be an object, got undefined$/],
    ["null", () => new UIStreamError(null as any), /^UIStreamError: options must be an object, got null$/],
    ["a string", () => new UIStreamError("boom" as any), /^UIStreamError: options must be an object, got string$/],
    [
      "a revoked proxy",
      () => new UIStreamError(revoked() as any),
      /^UIStreamError: options must be an object, got an unreadable value$/,
    ],
    [
      "an unknown code",
      () => new UIStreamError({ code: "x" as any, message: "m" }),
      /^UIStreamError: options\.code must be one of/,
    ],
    [
      "a symbol message",
      () => new UIStreamError({ code: "http_status", message: Symbol() as any }),
      /^UIStreamError: options\.message must be a string/,
    ],
    [
      "a status that is no number",
      () => new UIStreamError({ code: "http_status", message: "m", status: "404" as any }),
      /^UIStreamError: options\.status must be a number/,
    ],
    ...["code", "message", "status", "cause"].map((field): [string, () => unknown, RegExp] => [
      `a ${field} getter that throws`,
      () => new UIStreamError(throwingField(field) as any),
      new RegExp(`^UIStreamError: options\\.${field} could not be read: ${field} getter failed$`),
    ]),
  ];
  it.each(cases)("%s is refused with a TypeError naming the argument", (_name, construct, message) => {
    let thrown: unknown;
    try {
      construct();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
  });

  it("what the signature allows is accepted", () => {
    const cause = new Error("root");
    expect(new UIStreamError({ code: "http_status", message: "refused", status: 401, cause })).toMatchObject({
      code: "http_status",
      message: "refused",
      status: 401,
      cause,
    });
  });
});
