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
      error: { code: "hook", message: "beforeLlmCallHook failed: unreadable" },
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
        message: "The host callback getSteeringMessages returned an answer that could not be read: unreadable",
      },
    });
  });
});
