/**
 * The building blocks a host composes by hand (the call-stack wrappers, the
 * failure message, the projection, the bash environment) refuse arguments
 * they cannot use with a `TypeError` naming the function and the argument,
 * when called, instead of an engine error from deep inside; the lookups
 * answer `undefined` for what is no object.
 */
import { Agent } from "@turnkit/agent-loop";
import { createScriptedModel, revokedProxy } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import {
  EventBridge,
  LlmTimeoutError,
  PiTurnRunner,
  bindTool,
  composeStreamFn,
  createBashEnvSpawnHook,
  createFailureMessage,
  createHiddenMessage,
  createOverflowRecoveryState,
  defineRuntimeTool,
  getAttachedClassifiedError,
  isDroppedResponse,
  isSubAgentTool,
  projectAgentMessagesForModel,
  sanitizeBashEnv,
  toRuntimeTool,
  withLlmRetry,
  withOverflowRecovery,
  withStreamTimeouts,
} from "../src/index.js";

const { model, streamFn } = createScriptedModel([]);
const recover = () => undefined;

describe("public building blocks refuse arguments they cannot use, naming them", () => {
  it.each([
    [() => withStreamTimeouts(undefined as never), "withStreamTimeouts: streamFn must be a function, got undefined"],
    [() => withStreamTimeouts(streamFn, null as never), "withStreamTimeouts: options must be an object, got null"],
    [() => withLlmRetry({} as never, undefined), "withLlmRetry: streamFn must be a function, got object"],
    [() => withLlmRetry(streamFn, null as never), "withLlmRetry: options must be an object, got null"],
    [() => withLlmRetry(streamFn, {}, 5 as never), "withLlmRetry: dependencies must be an object, got 5"],
    [
      () => withOverflowRecovery(streamFn, undefined as never),
      "withOverflowRecovery: options must be an object, got undefined",
    ],
    [
      () => withOverflowRecovery(streamFn, { recover: "x", state: createOverflowRecoveryState() } as never),
      'withOverflowRecovery: options.recover must be a function, got "x"',
    ],
    [
      () => withOverflowRecovery(streamFn, { recover } as never),
      "withOverflowRecovery: options.state must be an object, got undefined",
    ],
    [
      () => createFailureMessage(undefined as never, "error", "x"),
      "createFailureMessage: model must be an object, got undefined",
    ],
    [
      () => createFailureMessage(model, "failed" as never, "x"),
      'createFailureMessage: stopReason must be "error" or "aborted", got "failed"',
    ],
    [
      () => createFailureMessage(model, "error", 5 as never),
      "createFailureMessage: errorMessage must be a string, got 5",
    ],
    [
      () => projectAgentMessagesForModel(undefined as never),
      "projectAgentMessagesForModel: messages must be an array, got undefined",
    ],
    [
      () => projectAgentMessagesForModel([], null as never),
      "projectAgentMessagesForModel: options must be an object, got null",
    ],
    [
      () => projectAgentMessagesForModel([null] as never),
      "projectAgentMessagesForModel: messages[0] must be a message object with a role, got null",
    ],
    [
      () =>
        projectAgentMessagesForModel([
          { role: "user", content: "a" },
          { role: "user", content: [null] },
        ] as never),
      'projectAgentMessagesForModel: messages[1].content[0] must be a content block { type: "text", "image", ... }, got null',
    ],
    [() => new EventBridge({} as never, () => "m", Date.now), "EventBridge: out must be a function, got object"],
    [
      () =>
        new EventBridge(
          () => {},
          () => "m",
          undefined as never,
        ),
      "EventBridge: now must be a function, got undefined",
    ],
    [() => createBashEnvSpawnHook(null as never), "createBashEnvSpawnHook: options must be an object, got null"],
    [() => sanitizeBashEnv(undefined as never), "sanitizeBashEnv: env must be an object, got undefined"],
  ])("%#: %s", (call, message) => {
    expect(call).toThrow(new TypeError(message));
  });

  it("takes false, undefined and empty options as before", () => {
    expect(typeof withLlmRetry(streamFn, false)).toBe("function");
    expect(typeof withLlmRetry(streamFn, undefined)).toBe("function");
    expect(typeof withStreamTimeouts(streamFn)).toBe("function");
    expect(createFailureMessage(model, "aborted", "stop")).toMatchObject({
      stopReason: "aborted",
      errorMessage: "stop",
    });
    expect(sanitizeBashEnv({ HOME: "/h" }, { mode: "off" }).env).toEqual({ HOME: "/h" });
  });

  it("getAttachedClassifiedError answers undefined for what is no object", () => {
    for (const value of [undefined, null, 5, "x"]) expect(getAttachedClassifiedError(value as never)).toBeUndefined();
  });
});

describe("an argument no code can read (a revoked proxy) is refused in words, never with the engine's text", () => {
  it.each<[string, () => unknown, string]>([
    [
      "new PiTurnRunner",
      () => new PiTurnRunner(revokedProxy() as never),
      "PiTurnRunnerOptions must be an object, got an unreadable value",
    ],
    ["composeStreamFn", () => composeStreamFn(revokedProxy() as never), "must be an object, got an unreadable value"],
    [
      "defineRuntimeTool",
      () => defineRuntimeTool(revokedProxy() as never),
      "defineRuntimeTool: expected an options object, got an unreadable value",
    ],
    [
      "projectAgentMessagesForModel",
      () => projectAgentMessagesForModel(revokedProxy() as never),
      "projectAgentMessagesForModel: messages must be an array, got an unreadable value",
    ],
    [
      "new Agent",
      () => new Agent(revokedProxy() as never),
      "Agent: options must be an object, got an unreadable value",
    ],
    [
      "withLlmRetry",
      () => withLlmRetry(streamFn, revokedProxy() as never),
      "withLlmRetry: options must be an object, got an unreadable value",
    ],
    [
      "new LlmTimeoutError",
      () => new LlmTimeoutError(revokedProxy() as never, 5),
      'LlmTimeoutError: kind must be "first_event", "idle" or "request", got an unreadable value',
    ],
    [
      "bindTool",
      () => bindTool(revokedProxy() as never),
      "bindTool: expected a tool declaration object, got an unreadable value",
    ],
    [
      "toRuntimeTool",
      () => toRuntimeTool(revokedProxy() as never),
      "toRuntimeTool expects an instance of a @bindTool class, got an unreadable value",
    ],
    [
      "createHiddenMessage",
      () => createHiddenMessage(revokedProxy() as never),
      "createHiddenMessage: content must be a string or an array of content blocks, got an unreadable value",
    ],
  ])("%s", (_name, call, message) => {
    expect(call).toThrow(message);
    expect(call).not.toThrow(/proxy that has been revoked/);
  });
});

describe("the lookups answer nothing for a value no code can read, instead of throwing", () => {
  it("getAttachedClassifiedError, isDroppedResponse and isSubAgentTool of a revoked proxy", () => {
    expect(getAttachedClassifiedError(revokedProxy() as never)).toBeUndefined();
    expect(isDroppedResponse(revokedProxy() as never)).toBe(false);
    expect(isSubAgentTool(revokedProxy())).toBe(false);
  });
});
