/*
 * The README's examples, compiled and run. README.md must contain
 * readme-extensions.ts and readme-host.ts verbatim (with the package name in
 * place of "../src/index.js"); the first test checks that.
 */
import { readFileSync } from "node:fs";
import type { AgentMessage } from "@turnkit/agent-loop";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "../src/index.js";
import {
  auditLog,
  auditTrail,
  gitTools,
  houseRules,
  openTodos,
  permissions,
  projectContext,
  todoReminder,
} from "./readme-extensions.js";
import { createHost, type SessionStore } from "./readme-host.js";

const read = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8");

describe("README examples", () => {
  it("README.md shows the example files verbatim", () => {
    const readme = read("../README.md");
    for (const file of ["./readme-extensions.ts", "./readme-host.ts"]) {
      const shown = read(file).replaceAll('"../src/index.js"', '"@turnkit/agent-runtime"').trimEnd();
      expect(readme, `README.md must contain ${file}`).toContain(shown);
    }
    expect(read("./readme-host.ts").trimEnd().split("\n").length).toBeLessThan(40);
  });

  it("the host runs two turns of a session with every example extension", async () => {
    const model = createScriptedModel([
      response([toolCall("git_status"), toolCall("git_push")]),
      response("Status is clean; pushing is not allowed here."),
      response("Still clean."),
    ]);
    const sessions = new Map<string, AgentMessage[]>();
    const store: SessionStore = {
      load: async (id) => [...(sessions.get(id) ?? [])],
      append: async (id, messages) => void sessions.set(id, [...(sessions.get(id) ?? []), ...messages]),
      replace: async (id, messages) => void sessions.set(id, [...messages]),
    };
    const runtime = await createAgentRuntime({
      base: [gitTools, permissions, houseRules, todoReminder, projectContext],
      additions: [auditLog],
      profile: { enable: ["audit-log"], params: { "audit-log": { verbose: true } } },
    });
    expect(runtime.extensions).toEqual([
      "git-tools",
      "permissions",
      "house-rules",
      "todo-reminder",
      "project-context",
      "audit-log",
    ]);
    const send = createHost(runtime, store, { model: model.model, streamFn: model.streamFn }, { push() {} });
    openTodos.set("s1", 2);

    const first = await send("s1", "t1", "Push my work", { readOnly: true, allowPush: true, planMode: true });
    expect(first).toEqual({ kind: "completed" });
    const request = model.requests[0]!.context;
    expect(request.systemPrompt).toBe(
      "Answer briefly. Cite file paths.\n\nProject conventions: Tests live next to the code.\n\nYou are a coding assistant.",
    );
    // The extensions' tools, then the runner's built-in fallbacks (the host did not disable them).
    expect(request.tools!.map((tool) => tool.name)).toEqual([
      "git_status",
      "git_push",
      "read",
      "write",
      "edit",
      "bash",
    ]);
    expect(request.messages.map((m) => m.content)).toEqual([
      "<system-reminder>\n2 todo items are still open.\n</system-reminder>",
      [{ type: "text", text: "[plan mode: do not edit files]\n\nPush my work" }],
    ]);
    // A blocked call never executes, so after_tool_call sees only git_status; its result is an error.
    expect(auditTrail).toEqual(["git_status error=false", "t1: completed"]);
    const pushResult = sessions.get("s1")!.find((m) => m.role === "toolResult" && m.toolName === "git_push");
    expect(pushResult).toMatchObject({ isError: true, content: [{ type: "text", text: "This session is read-only" }] });

    openTodos.set("s1", 0);
    const second = await send("s1", "t2", "And now?");
    expect(second).toEqual({ kind: "completed" });
    const next = model.requests[2]!.context;
    expect(next.tools!.map((tool) => tool.name)).toEqual(["git_status", "read", "write", "edit", "bash"]);
    // History came back from the store: the first turn's six messages, then the new user message.
    expect(next.messages.map((m) => m.role)).toEqual([
      "user",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
      "user",
    ]);
    expect(sessions.get("s1")!.map((m) => m.role)).toEqual([
      "hidden",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});
