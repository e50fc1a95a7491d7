/**
 * What extensions hand the assembly is read once, inside the failure rule
 * of the contribution that handed it over: a value the assembly cannot
 * read (a revoked proxy, a getter that throws, a cycle or a bigint where
 * the error shows the value, a hole in a list) fails the assembly with an
 * `ExtensionContributionError` naming the extension and the contribution,
 * the original error as `cause`, never with an engine `TypeError` of the
 * assembly's own reading. A ctx the host cannot let be read is refused as
 * invalid turn input.
 */
import { describe, expect, it } from "vitest";
import { ExtensionContributionError, createAgentRuntime, type ExtensionAPI, type TurnContext } from "../src/index.js";
import { echoTool, extension, rejected, turn } from "./fixtures.js";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";

const cycle: Record<string, unknown> = { message: 5 };
cycle.self = cycle;

/** Engine texts of a failed read: none may reach the error's message. */
const ENGINE_TEXT = /Cannot perform|circular structure|serialize a BigInt|Cannot read properties|is not a function/;

async function assemblyError(init: (api: ExtensionAPI) => void, ctx: TurnContext = turn()) {
  const runtime = await createAgentRuntime({ base: [extension("odd", init)] });
  const error = await rejected(runtime.assembleTurn(ctx));
  expect(error.message).not.toMatch(ENGINE_TEXT);
  return error;
}

describe("assembleTurn: contributions whose values cannot be read", () => {
  it.each([
    ["a warning with a bigint message", () => ({ message: 1n }), "returned object; expected { message, tools? }"],
    ["a warning that holds a cycle", () => cycle, "returned object; expected { message, tools? }"],
    ["a revoked proxy", () => revokedProxy(), "returned a value that could not be read"],
    [
      "a warning whose message getter throws",
      () => throwingGetter("message"),
      "returned a value that could not be read",
    ],
    ["a list holding a revoked proxy", () => [revokedProxy()], "returned a value that could not be read"],
    [
      "a warning whose tools are a revoked proxy",
      () => ({ message: "down", tools: revokedProxy() }),
      "could not be read",
    ],
    ["a list with a hole", () => [, { message: "down" }], "returned undefined at [0]; expected { message, tools? }"],
  ])("a warning provider returning %s fails the assembly, naming it", async (_name, provide, text) => {
    const error = await assemblyError((api) => api.registerWarningProvider(provide as never));
    expect(ExtensionContributionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ extensionId: "odd", contribution: "warning" });
    expect(error.message).toBe(
      `extension "odd": warning provider ${text.startsWith("returned") ? text : `returned a value that ${text}`}`,
    );
  });

  it.each([
    ["a revoked proxy", () => revokedProxy(), "returned a value that could not be read"],
    ["a list holding a revoked proxy", () => [echoTool("a"), revokedProxy()], "returned a tool that could not be read"],
    ["a tool whose def getter throws", () => throwingGetter("def"), "returned a tool that could not be read"],
    [
      "nothing, throwing a revoked proxy",
      () => {
        throw revokedProxy();
      },
      "failed: ",
    ],
  ])("a tool factory returning %s fails the assembly, naming it", async (_name, factory, text) => {
    const error = await assemblyError((api) => api.registerTool(factory as never));
    expect(ExtensionContributionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ extensionId: "odd", contribution: "tool_factory" });
    expect(error.message).toContain(`extension "odd": tool factory ${text}`);
  });

  it("a tool factory's list with a hole is refused as invalid_tool, naming the entry", async () => {
    const error = await assemblyError((api) => api.registerTool(() => [echoTool("a"), , echoTool("b")] as never));
    expect(error.code).toBe("invalid_tool");
    expect(error.message).toContain('extension "odd": tool factory [1]');
  });

  it("a prompt part or reminder resolving to a revoked proxy fails the assembly, naming it", async () => {
    const prompt = await assemblyError((api) => api.contributeSystemPrompt(() => revokedProxy() as never));
    expect(prompt).toMatchObject({ contribution: "system_prompt" });
    expect(prompt.message).toBe('extension "odd": system prompt part returned a value that could not be read');
    const reminder = await assemblyError((api) =>
      api.registerReminderProvider({ id: "r", provide: () => revokedProxy() as never }),
    );
    expect(reminder).toMatchObject({ contribution: "reminder" });
    expect(reminder.message).toBe('extension "odd": reminder provider "r" returned a value that could not be read');
  });

  it("a ctx that cannot be read is refused as invalid turn input, with a rejection", async () => {
    for (const ctx of [
      revokedProxy(),
      Object.assign(throwingGetter("sessionId"), { turnId: "t1" }),
      throwingGetter("sessionId"),
    ]) {
      const error = await assemblyError(() => {}, ctx as TurnContext);
      expect(error).toMatchObject({ code: "invalid_turn_input" });
      expect(error.message).toMatch(/^assembleTurn: ctx (could not be read|\.sessionId must be)/);
    }
  });
});
