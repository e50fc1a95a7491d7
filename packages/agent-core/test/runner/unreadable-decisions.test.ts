/**
 * A decision (or a steering answer) whose reading throws: a getter that
 * throws, a Proxy whose traps throw. It is the host code's failure, by its
 * kind's rule and naming it: a before- or after-LLM hook fails the turn
 * with code `hook`, a steering poll with code `internal`. Before, the
 * decision was read after the hook's call had returned, outside its
 * failure rule: the turn failed with code `upstream` and the getter's bare
 * text, as if the provider had failed.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createRecordingTool, runScriptedTurn } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import type { RunTurnInput } from "../../src/index.js";

const throwingType = () => ({
  get type(): string {
    throw new Error("the decision service is down");
  },
});
const trap = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error("unreadable");
      },
      getPrototypeOf() {
        throw new Error("unreadable");
      },
    },
  );

async function turnWith(input: Partial<RunTurnInput>) {
  const shell = createRecordingTool("shell", { executionMode: "parallel" });
  const turn = await runScriptedTurn({
    script: [response([toolCall("shell", { value: "a" })]), "done"],
    input: { tools: [shell], ...input },
  });
  return { turn, calls: shell.calls.length };
}

describe("a decision that cannot be read", () => {
  it("from a before-LLM hook (a getter that throws): the turn fails with code hook before any request", async () => {
    const { turn } = await turnWith({ hooks: { beforeLlmCallHook: throwingType as never } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect((turn.outcome as { message: string }).message).toMatch(/^beforeLlmCallHook /);
    expect(turn.requests).toHaveLength(0);
  });

  it("from a before-LLM hook (replacement messages behind a Proxy): the turn fails with code hook, naming the hook", async () => {
    const { turn } = await turnWith({
      hooks: { beforeLlmCallHook: () => ({ type: "replaceRequestMessages", messages: [trap() as never] }) },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: "hook",
        message:
          "beforeLlmCallHook returned a decision that could not be read: messages[0] could not be read: unreadable",
      },
    });
    expect(turn.requests).toHaveLength(0);
  });

  it("from an after-LLM hook: the turn fails with code hook and the response's calls never run", async () => {
    const { turn, calls } = await turnWith({ hooks: { afterLlmCallHook: throwingType as never } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect((turn.outcome as { message: string }).message).toMatch(/^afterLlmCallHook /);
    expect(calls).toBe(0);
  });

  it("from a steering poll: the turn fails with code internal, naming the callback", async () => {
    let polls = 0;
    const { turn } = await turnWith({ getSteeringMessages: () => (polls++ === 0 ? [trap() as never] : []) });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: "internal",
        message:
          "The host callback getSteeringMessages returned an answer that could not be read: [0] could not be read: unreadable",
      },
    });
  });
});

/** `fields` behind a Proxy whose `get` trap throws for `unreadable` only. */
const trapOn = (unreadable: string, fields: Record<string, unknown>) =>
  new Proxy(fields, {
    get(target, key) {
      if (key === unreadable) throw new Error(`the ${unreadable} service is down`);
      return Reflect.get(target, key);
    },
  });

/** `fields` with `unreadable` replaced by a getter that throws. */
const getterOn = (unreadable: string, fields: Record<string, unknown>) =>
  Object.defineProperty({ ...fields }, unreadable, {
    enumerable: true,
    get: () => {
      throw new Error(`the ${unreadable} service is down`);
    },
  });

describe("a decision with one field that cannot be read names that field", () => {
  for (const [how, unreadableOn] of [
    ["a get trap", trapOn],
    ["a getter", getterOn],
  ] as const) {
    it(`before-LLM respond whose text throws (${how}): a hook failure naming text, not "respond without text"`, async () => {
      const { turn } = await turnWith({
        hooks: { beforeLlmCallHook: () => unreadableOn("text", { type: "respond", text: "hi" }) as never },
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: "hook",
          message:
            "beforeLlmCallHook returned a decision that could not be read: text could not be read: the text service is down",
        },
      });
      expect(turn.requests).toHaveLength(0);
    });

    it(`before-LLM appendMessage whose message.content throws (${how}): names message.content`, async () => {
      const message = unreadableOn("content", { content: "note" });
      const { turn } = await turnWith({
        hooks: { beforeLlmCallHook: () => ({ type: "appendMessage", message }) as never },
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: "hook",
          message: expect.stringMatching(
            /^beforeLlmCallHook .*message\.content could not be read: the content service/,
          ),
        },
      });
    });

    it(`after-LLM replaceText whose text throws (${how}): a hook failure naming text, the calls never run`, async () => {
      const { turn, calls } = await turnWith({
        hooks: { afterLlmCallHook: () => unreadableOn("text", { type: "replaceText", text: "x" }) as never },
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: "hook",
          message:
            "afterLlmCallHook returned a decision that could not be read: text could not be read: the text service is down",
        },
      });
      expect(calls).toBe(0);
    });

    it(`before-tool block whose reason throws (${how}): the call is blocked, its result naming reason`, async () => {
      const { turn, calls } = await turnWith({
        hooks: { beforeToolCallHook: () => unreadableOn("reason", { block: true, reason: "no" }) as never },
      });
      expect(calls).toBe(0);
      const result = turn.delivered.find((message) => message.role === "toolResult");
      expect(JSON.stringify(result)).toContain(
        "beforeToolCallHook returned a decision that could not be read: reason could not be read: the reason service is down",
      );
    });

    it(`after-tool patch whose content throws (${how}): an error result naming content`, async () => {
      const { turn, calls } = await turnWith({
        hooks: { afterToolCallHook: () => unreadableOn("content", { content: [] }) as never },
      });
      expect(calls).toBe(1);
      const result = turn.delivered.find((message) => message.role === "toolResult");
      expect(result).toMatchObject({ isError: true });
      expect(JSON.stringify(result)).toContain(
        "afterToolCallHook returned a patch that could not be read: content could not be read: the content service is down",
      );
    });
  }
});

describe("a decision's fields are read once, wherever they live", () => {
  it("a class instance whose text getter throws: a hook failure naming text (before, it escaped the hook's rule)", async () => {
    class Respond {
      readonly type = "respond";
      get text(): string {
        throw new Error("the text service is down");
      }
    }
    const { turn } = await turnWith({ hooks: { beforeLlmCallHook: () => new Respond() as never } });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: "hook",
        message:
          "beforeLlmCallHook returned a decision that could not be read: text could not be read: the text service is down",
      },
    });
  });

  it("a proxy answering its fields from its get trap alone is taken, each field read once", async () => {
    const reads: string[] = [];
    const fields: Record<string, string> = { type: "respond", text: "from the trap" };
    const decision = new Proxy(
      {},
      {
        has: (_target, key) => typeof key === "string" && key in fields,
        get: (_target, key) => {
          if (typeof key === "string") reads.push(key);
          return typeof key === "string" ? fields[key] : undefined;
        },
      },
    );
    const { turn } = await turnWith({ hooks: { beforeLlmCallHook: () => decision as never } });
    expect(turn.outcome).toMatchObject({ kind: "completed" });
    expect(turn.delivered.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "from the trap" }],
    });
    expect(reads.filter((key) => key === "text")).toEqual(["text"]);
    expect(reads.filter((key) => key === "type")).toEqual(["type"]);
  });
});
