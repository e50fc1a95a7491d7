/**
 * Every public helper of the testing entry refuses an argument it cannot
 * use with a `TypeError` naming the helper and the argument (or the field
 * in it), instead of failing inside with an engine error; an options
 * argument given as `undefined` still means no options.
 */
import { expect, it } from "vitest";
import {
  abortListenerCount,
  assertEventGrammar,
  assistantMessage,
  collectStream,
  createScriptedModel,
  createVirtualClock,
  describeEvent,
  endWithoutDone,
  errorAfter,
  eventsAfterDone,
  hang,
  requestText,
  response,
  revokedProxy,
  throwingGetter,
  sequentialGraces,
  text,
  thinking,
  toolCall,
  toolResultMessage,
  traceOf,
  usageOf,
  userMessage,
  withoutStart,
} from "../../src/testing/index.js";

const bad = undefined as never;

/** An object that refers to itself: structured clone copies it, JSON cannot write it. */
function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
}
const nul = null as never;
const BLOCK = '{ type: "text", "thinking", "toolCall", ... }';

/** A call with a malformed argument, and the message of the `TypeError` it must throw. */
const CASES: [() => unknown, string | RegExp][] = [
  [() => response(bad), "response: content must be a string, a content block or an array of them, got undefined"],
  [() => response([nul]), `response: content[0] must be a content block ${BLOCK}, got null`],
  [() => response({ type: "text", text: 5 } as never), "response: content.text must be a string, got 5"],
  [
    () => response([toolCall("t"), { type: "toolCall" } as never]),
    "response: content[1].name must be a string, got undefined",
  ],
  [() => response("a", nul), "response: options must be an object, got null"],
  [() => text(bad), "text: value must be a string, got undefined"],
  [() => text("a", nul), "text: options must be an object, got null"],
  [() => thinking("a", nul), "thinking: options must be an object, got null"],
  [() => thinking("a", { redacted: "yes" as never }), 'thinking: options.redacted must be a boolean, got "yes"'],
  [() => toolCall(bad), "toolCall: name must be a string, got undefined"],
  [() => toolCall("t", { run: () => 1 }), /^toolCall: args must be plain data: /],
  [() => toolCall("t", {}, nul), "toolCall: options must be an object, got null"],
  [() => toolCall("t", { n: 1n }), "toolCall: args must be JSON data: args.n is a bigint"],
  [() => toolCall("t", cyclic()), "toolCall: args must be JSON data: args.self refers back to args"],
  [
    () => response([{ type: "toolCall", name: "t", arguments: { list: [1, 2n] } } as never]),
    "response: content[0].arguments must be JSON data: arguments.list[1] is a bigint",
  ],
  [
    () => createScriptedModel([revokedProxy() as never]),
    "createScriptedModel: script[0] could not be read: a value that cannot be read (a revoked proxy)",
  ],
  [
    () => createScriptedModel(revokedProxy() as never),
    "createScriptedModel: script could not be read: a value that cannot be read (a revoked proxy)",
  ],
  [() => endWithoutDone(bad), "endWithoutDone: value must be text or response(...), got undefined"],
  [() => endWithoutDone("a", nul), "endWithoutDone: options must be an object, got null"],
  [() => eventsAfterDone("a", nul), "eventsAfterDone: options must be an object, got null"],
  [
    () => eventsAfterDone(hang() as never),
    "eventsAfterDone: value must be text or response(...), got an object of kind hang",
  ],
  [
    () => eventsAfterDone("a", { extraEvents: {} as never }),
    "eventsAfterDone: options.extraEvents must be an array of stream events, got object",
  ],
  [() => withoutStart([] as never), "withoutStart: value must be text or response(...), got an array"],
  [() => errorAfter("2" as never), 'errorAfter: n must be a non-negative integer, got "2"'],
  [() => errorAfter(1, nul), "errorAfter: message must be a string, got null"],
  [
    () => errorAfter(1, "m", { response: 5 as never }),
    "errorAfter: options.response must be text or response(...), got 5",
  ],
  [
    () => hang({ response: { kind: "response" } as never }),
    "hang: options.response.content must be an array of content blocks",
  ],
  [() => createScriptedModel([], nul), "createScriptedModel: options must be an object, got null"],
  [
    () => createScriptedModel([], { clock: {} as never }),
    "createScriptedModel: options.clock must be a clock { now, setTimeout, clearTimeout }, got object",
  ],
  [() => requestText(bad), "requestText: request must be a recorded request { context: { messages } }, got undefined"],
  [
    () => requestText({ context: { messages: [nul] } }),
    "requestText: request.context.messages[0] must be a message object with a role, got null",
  ],
  [
    () => assistantMessage(bad),
    "assistantMessage: content must be a string, a content block or an array of them, got undefined",
  ],
  [() => assistantMessage("a", nul), "assistantMessage: options must be an object, got null"],
  [() => toolResultMessage(bad, "t", "x"), "toolResultMessage: toolCallId must be a string, got undefined"],
  [
    () => toolResultMessage("c", "t", bad),
    "toolResultMessage: content must be a string or an array of content blocks, got undefined",
  ],
  [() => userMessage(bad), "userMessage: content must be a string or an array of content blocks, got undefined"],
  [() => userMessage("a", nul), "userMessage: options must be an object, got null"],
  [() => usageOf("1" as never, 2), 'usageOf: input must be a number, got "1"'],
  [() => describeEvent(bad), "describeEvent: event must be an agent event object with a type, got undefined"],
  [
    () => describeEvent({ type: "turn_end", message: userMessage("a") } as never),
    "describeEvent: event.toolResults must be an array of tool-result messages, got undefined",
  ],
  [() => traceOf(bad), "traceOf: events must be an array of agent events, got undefined"],
  [
    () => traceOf([{ type: "agent_start" }, nul]),
    "traceOf: events[1] must be an agent event object with a type, got null",
  ],
  [
    () => assertEventGrammar([nul]),
    "assertEventGrammar: events[0] must be an agent event object with a type, got null",
  ],
  [() => sequentialGraces(bad, 0, 1), "sequentialGraces: waits must be an array of grace waits, got undefined"],
  [() => sequentialGraces([], "0" as never, 1), 'sequentialGraces: from must be a number, got "0"'],
  [() => abortListenerCount(bad), "abortListenerCount: signal must be an AbortSignal, got undefined"],
  [() => createVirtualClock().setTimeout(bad, 1), "VirtualClock.setTimeout: fn must be a function, got undefined"],
];

it("each helper refuses a malformed argument with a TypeError naming it, and takes undefined options as none", async () => {
  for (const [call, message] of CASES) {
    expect(call, String(message)).toThrow(message);
    expect(call, String(message)).toThrow(TypeError);
  }
  await expect(collectStream(bad)).rejects.toThrow(
    new TypeError(
      "collectStream: stream must be an event stream (or a promise of one) as a stream function returns it, got undefined",
    ),
  );
  expect(text("a", undefined)).toEqual({ type: "text", text: "a" });
  expect(response("a", undefined)).toEqual(response("a"));
  expect(endWithoutDone("a", undefined)).toEqual(endWithoutDone("a"));
  expect(eventsAfterDone("a", undefined).reachConsumer).toBe(false);
  expect(toolCall("t", undefined, undefined)).toEqual({ type: "toolCall", name: "t", arguments: {} });
  expect(createScriptedModel([], undefined).remaining()).toBe(0);
  expect(userMessage("a", undefined).content).toBe("a");
});

/** A value no code can read: every helper refuses it in words, naming the argument, never with the engine's text. */
const REVOKED_CASES: [() => unknown, RegExp][] = [
  [() => response(revokedProxy() as never), /^response: content must be .*, got an unreadable value$/],
  [() => assistantMessage(revokedProxy() as never), /^assistantMessage: content must be .*, got an unreadable value$/],
  [
    () => traceOf(revokedProxy() as never),
    /^traceOf: events must be an array of agent events, got an unreadable value$/,
  ],
  [() => assertEventGrammar(revokedProxy() as never), /^assertEventGrammar: expected an array of events, got /],
  [
    () => sequentialGraces(revokedProxy() as never, 0, 1),
    /^sequentialGraces: waits must be an array of grace waits, got an unreadable value$/,
  ],
  [
    () => abortListenerCount(revokedProxy() as never),
    /^abortListenerCount: signal must be an AbortSignal, got an unreadable value$/,
  ],
  [() => hang(revokedProxy() as never), /^hang: options must be an object, got an unreadable value$/],
  [
    () => createVirtualClock(revokedProxy() as never),
    /^createVirtualClock: options must be an object, got an unreadable value$/,
  ],
];

it("each helper refuses a value that cannot be read (a revoked proxy) with a TypeError naming the argument", async () => {
  for (const [call, message] of REVOKED_CASES) {
    expect(call, String(message)).toThrow(message);
    expect(call, String(message)).toThrow(TypeError);
  }
  await expect(collectStream(revokedProxy() as never)).rejects.toThrow(
    /^collectStream: stream must be an event stream .*, got an unreadable value$/,
  );
  expect(() => hang(throwingGetter("afterEvents") as never)).toThrow(
    new TypeError("hang: options.afterEvents could not be read: afterEvents getter failed"),
  );
});
