import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { agentLoop, type AgentMessage, type AgentTool } from "@turnkit/agent-loop";
import {
  createScriptedModel,
  response,
  revokedProxy,
  throwingGetter,
  toolCall,
  userMessage,
} from "@turnkit/agent-loop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineRuntimeTool } from "../../src/tools/define-runtime-tool.js";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/errors.js";
import { newTools, type NewToolsOptions } from "../../src/tools/new-tools.js";
import type { ToolExecutionContext } from "../../src/tools/runtime-tool.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "turnkit-newtools-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const baseOptions = (): NewToolsOptions => ({
  sessionId: "session-1",
  turnId: "turn-1",
  resolveAssistantMessageId: (toolCallId) => `msg-for-${toolCallId}`,
  workspaceDir: workspace,
});

const empty = Type.Object({});
function tool(name: string, extra: Partial<Parameters<typeof defineRuntimeTool>[0]> = {}) {
  return defineRuntimeTool({
    name,
    description: `${name} tool`,
    parameters: empty,
    execute: () => ({ content: [{ type: "text", text: name }] }),
    ...extra,
  });
}

function byName(tools: AgentTool<any>[], name: string): AgentTool<any> {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe("newTools: the tool table", () => {
  it("throws duplicate_tool naming the tool", () => {
    let caught: unknown;
    try {
      newTools([tool("lookup"), tool("other"), tool("lookup")], baseOptions());
    } catch (error) {
      caught = error;
    }
    expect(TurnkitConfigError.isInstance(caught)).toBe(true);
    expect((caught as TurnkitConfigError).code).toBe(ConfigErrorCode.DuplicateTool);
    expect((caught as Error).message).toContain('"lookup"');
  });

  it("throws invalid_tool for a hand-made tool without execute", () => {
    const broken = { def: { name: "x", description: "d", parameters: empty }, impl: {} };
    expect(() => newTools([broken as never], baseOptions())).toThrow(/tools\[0\].*"x".*missing execute/);
  });

  it("defaults executionMode to sequential and keeps a declared one", () => {
    const tools = newTools([tool("plain"), tool("reader", { executionMode: "parallel" })], {
      ...baseOptions(),
      disableBuiltinToolFallback: true,
    });
    expect(byName(tools, "plain").executionMode).toBe("sequential");
    expect(byName(tools, "reader").executionMode).toBe("parallel");
    expect(byName(tools, "plain").label).toBe("plain");
  });

  it("appends the read/write/edit/bash fallbacks the host did not bind, after the host's tools", () => {
    const mine = tool("read");
    const tools = newTools([tool("search"), mine], baseOptions());
    expect(tools.map((t) => t.name)).toEqual(["search", "read", "write", "edit", "bash"]);
    expect(byName(tools, "read").description).toBe("read tool");
    expect(byName(tools, "bash").executionMode).toBe("sequential");
  });

  it("adds no built-in with disableBuiltinToolFallback", () => {
    expect(
      newTools([tool("search")], { ...baseOptions(), disableBuiltinToolFallback: true }).map((t) => t.name),
    ).toEqual(["search"]);
    expect(newTools([], { ...baseOptions(), disableBuiltinToolFallback: true })).toEqual([]);
  });

  it("the fallback tools work on workspaceDir", async () => {
    const tools = newTools([], baseOptions());
    await byName(tools, "write").execute("call-1", { path: "notes/a.txt", content: "hello" });
    expect(await readFile(path.join(workspace, "notes/a.txt"), "utf8")).toBe("hello");
  });
});

describe("newTools: one call", () => {
  it("builds the context per call and adapts updates", async () => {
    const seen: ToolExecutionContext[] = [];
    const updates: unknown[] = [];
    const [agentTool] = newTools(
      [
        tool("probe", {
          execute: (ctx, _input, signal, onUpdate) => {
            seen.push(ctx);
            expect(signal).toBeInstanceOf(AbortSignal);
            onUpdate({ content: [{ type: "text", text: "half" }] });
            return { content: [{ type: "text", text: "done" }], details: { n: 1 } };
          },
        }),
      ],
      { ...baseOptions(), disableBuiltinToolFallback: true },
    );
    const result = await agentTool!.execute("call-7", {}, undefined, (partial) => updates.push(partial));
    expect(result).toEqual({ content: [{ type: "text", text: "done" }], details: { n: 1 } });
    expect(seen).toEqual([
      {
        sessionId: "session-1",
        turnId: "turn-1",
        toolCallId: "call-7",
        callKey: "call-7",
        assistantMessageId: "msg-for-call-7",
        askHost: expect.any(Function),
      },
    ]);
    // Without the turn's wait (newTools used on its own) every request is refused at once.
    await expect(
      seen[0]!.askHost!({ kind: "elicitation", message: "?", requestedSchema: {}, serverName: "s" }),
    ).resolves.toEqual({ kind: "refused", requestId: "elicitation:call-7:1", reason: "this tool runs outside a turn" });
    expect(updates).toEqual([{ content: [{ type: "text", text: "half" }], details: {} }]);
  });

  it("drops a progress update that is no object or cannot be read, instead of throwing it back into the tool", async () => {
    const updates: unknown[] = [];
    const [agentTool] = newTools(
      [
        tool("probe", {
          execute: (_ctx, _input, _signal, onUpdate) => {
            for (const odd of [null, 5, "half", revokedProxy(), throwingGetter("content")]) onUpdate(odd as never);
            onUpdate({ content: [{ type: "text", text: "half" }] });
            return { content: [{ type: "text", text: "done" }] };
          },
        }),
      ],
      { ...baseOptions(), disableBuiltinToolFallback: true },
    );
    const result = await agentTool!.execute("call-8", {}, undefined, (partial) => updates.push(partial));
    expect(result).toEqual({ content: [{ type: "text", text: "done" }], details: {} });
    expect(updates).toEqual([{ content: [{ type: "text", text: "half" }], details: {} }]);
  });

  it("returns an isError result with its own content and details, for the loop to record as an error", async () => {
    const errorResult = {
      content: [{ type: "text" as const, text: "quota used up" }],
      details: { code: 42 },
      isError: true,
    };
    const [agentTool] = newTools([tool("failing", { execute: () => errorResult })], {
      ...baseOptions(),
      disableBuiltinToolFallback: true,
    });
    await expect(agentTool!.execute("c", {})).resolves.toEqual({
      content: [{ type: "text", text: "quota used up" }],
      details: { code: 42 },
      isError: true,
    });
  });

  it("gives the model text without half characters: a lone surrogate becomes U+FFFD, whole characters stay", async () => {
    const [agentTool] = newTools(
      [
        tool("lister", {
          execute: () => ({
            content: [
              { type: "text", text: "cut at \uD83D" },
              { type: "text", text: "\uDCFFfile name" },
              { type: "text", text: "whole 😀" },
            ],
          }),
        }),
      ],
      { ...baseOptions(), disableBuiltinToolFallback: true },
    );
    const result = await agentTool!.execute("c", {});
    expect(result.content).toEqual([
      { type: "text", text: "cut at \uFFFD" },
      { type: "text", text: "\uFFFDfile name" },
      { type: "text", text: "whole 😀" },
    ]);
  });

  it("rejects a malformed result with an error naming the tool", async () => {
    const [agentTool] = newTools([tool("sloppy", { execute: () => ({ text: "oops" }) as never })], {
      ...baseOptions(),
      disableBuiltinToolFallback: true,
    });
    await expect(agentTool!.execute("c", {})).rejects.toThrow(/Tool "sloppy" returned an invalid result/);
  });

  it('rejects a result whose isError or terminate is no boolean, naming the flag (a truthy "yes" would otherwise count as false)', async () => {
    const text = [{ type: "text" as const, text: "done?" }];
    const [flagged, stopping] = newTools(
      [
        tool("flagged", { execute: () => ({ content: text, isError: "yes" }) as never }),
        tool("stopping", { execute: () => ({ content: text, terminate: 1 }) as never }),
      ],
      { ...baseOptions(), disableBuiltinToolFallback: true },
    );
    await expect(flagged!.execute("c", {})).rejects.toThrow(
      'Tool "flagged" returned an invalid result: isError must be a boolean, got "yes"',
    );
    await expect(stopping!.execute("c", {})).rejects.toThrow(
      'Tool "stopping" returned an invalid result: terminate must be a boolean, got 1',
    );
  });
});

describe("newTools in the loop: what reaches the transcript", () => {
  it("records isError results, thrown errors, workspace escapes and successes as the model should see them", async () => {
    const scripted = createScriptedModel();
    scripted.append(
      response([
        toolCall("refuse", {}, { id: "call-refuse" }),
        toolCall("crash", {}, { id: "call-crash" }),
        toolCall("read", { path: "../outside.txt" }, { id: "call-escape" }),
        toolCall("fine", {}, { id: "call-fine" }),
      ]),
      response("all done"),
    );
    const tools = newTools(
      [
        tool("refuse", {
          execute: () => ({ content: [{ type: "text", text: "permission denied by policy" }], isError: true }),
        }),
        tool("crash", {
          execute: () => {
            throw new Error("disk on fire");
          },
        }),
        tool("fine", {
          execute: (ctx) => ({
            content: [{ type: "text", text: `ok from ${ctx.assistantMessageId}` }],
            details: { fine: true },
          }),
        }),
      ],
      baseOptions(),
    );
    const stream = agentLoop(
      [userMessage("go")],
      { systemPrompt: "", messages: [], tools },
      { model: scripted.model, convertToLlm: (messages: AgentMessage[]) => messages as never },
      undefined,
      scripted.streamFn,
    );
    for await (const _event of stream) {
      // drain
    }
    const messages = await stream.result();
    const results = messages.filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
    const summary = Object.fromEntries(
      results.map((r) => [
        r.toolCallId,
        { isError: r.isError, text: r.content.map((c) => (c.type === "text" ? c.text : "")).join("") },
      ]),
    );
    expect(summary["call-refuse"]).toEqual({ isError: true, text: "permission denied by policy" });
    expect(summary["call-crash"]).toEqual({ isError: true, text: "disk on fire" });
    expect(summary["call-escape"]!.isError).toBe(true);
    expect(summary["call-escape"]!.text).toMatch(/outside the workspace/);
    expect(summary["call-fine"]).toEqual({ isError: false, text: "ok from msg-for-call-fine" });
    expect(results.find((r) => r.toolCallId === "call-fine")!.details).toEqual({ fine: true });
  });
});
