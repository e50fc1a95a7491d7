/**
 * Sub-agents: an agent declared once and offered to a turn as a tool. The
 * parent's model calls it with a task and gets the child's final answer as
 * the result; the child's events reach the parent's stream marked with
 * their origin; its cost joins the parent's report; failures become error
 * results of the call; depth is limited.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Type } from "@sinclair/typebox";
import type { ActionRequiredPayload, RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool, defineSubAgent, TurnkitConfigError } from "../../src/index.js";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  createRecordingTool,
  createScriptedModel,
  errorAfter,
  hang,
  response,
  runCheckedTurn,
  text,
  toolCall,
  usageOf,
} from "../../src/testing/index.js";

/** The sub-agent "explore", on its own scripted model. */
function explore(
  script: Parameters<typeof createScriptedModel>[0],
  extra: Partial<Parameters<typeof defineSubAgent>[0]> = {},
) {
  const model = createScriptedModel(script);
  const tool = defineSubAgent({
    name: "explore",
    description: "Searches the workspace and reports what it found",
    systemPrompt: "You explore the workspace.",
    llm: { model: model.model, streamFn: model.streamFn },
    llmRetry: false,
    ...extra,
  });
  return { model, tool };
}

/** A compact line per event (a message's text deltas joined): the origin path (agent names), the type and what matters of the payload. */
/** A `deploy` tool that asks the host to approve it and says whether it deployed. */
function deployWithApproval() {
  return defineRuntimeTool({
    name: "deploy",
    description: "Deploys, with a person's approval",
    parameters: Type.Object({}),
    execute: async (ctx) => {
      const asked = await ctx.askHost!({
        kind: "tool_approval",
        toolCallId: ctx.toolCallId,
        toolName: "deploy",
        arguments: {},
        reason: "deploys to production",
      });
      const approved = asked.kind === "answered" && asked.answer.approved;
      return { content: [{ type: "text", text: approved ? "deployed" : `not deployed (${asked.kind})` }] };
    },
  });
}

function lines(events: readonly RuntimeEvent[]): string[] {
  const joined: string[] = [];
  for (const line of eventLines(events)) {
    const previous = joined.at(-1);
    if (previous?.includes("text ") && line.includes("text ") && previous.split("text ")[0] === line.split("text ")[0])
      joined[joined.length - 1] = previous + line.slice(line.indexOf("text ") + 5);
    else joined.push(line);
  }
  return joined;
}

function eventLines(events: readonly RuntimeEvent[]): string[] {
  return events.flatMap((event) => {
    const where = event.origin ? `${event.origin.path.map((step) => step.agent).join(">")} ` : "";
    switch (event.type) {
      case "session.status":
        return [`${where}status ${event.payload.status}`];
      case "stream.resp": {
        const { chunk } = event.payload;
        if (chunk.kind === "text") return [`${where}text ${chunk.delta}`];
        if (chunk.kind === "tool_call") return [`${where}${chunk.toolName} ${chunk.status}`];
        return chunk.kind === "finish" ? [`${where}finish ${chunk.reason}`] : [];
      }
      default:
        return [];
    }
  });
}

function toolResultText(transcript: readonly { role: string }[], toolName: string): string {
  const result = transcript.find(
    (message) => message.role === "toolResult" && (message as { toolName?: string }).toolName === toolName,
  ) as { content: { type: string; text?: string }[]; isError: boolean } | undefined;
  return result
    ? `${result.isError ? "error: " : ""}${result.content.map((block) => block.text ?? "").join("")}`
    : "(none)";
}

describe("sub-agents", () => {
  it("the model calls a sub-agent with a task and gets its final answer; its events reach the parent's stream, marked, in order", async () => {
    const grep = createRecordingTool("grep", {
      executionMode: "parallel",
      answer: () => ({ content: [{ type: "text", text: "src/a.ts\nsrc/b.ts" }] }),
    });
    const child = explore([response(toolCall("grep", { value: "TODO" })), "Two files: src/a.ts, src/b.ts"], {
      tools: [grep],
    });
    const turn = await runCheckedTurn({
      script: [response(toolCall("explore", { task: "find the TODOs" }, { id: "call_explore" })), "There are two."],
      input: { tools: [child.tool] },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(child.model.requests[0]!.context.messages.at(-1)).toMatchObject({ role: "user" });
    expect(toolResultText(turn.transcript, "explore")).toBe("Two files: src/a.ts, src/b.ts");
    expect(grep.calls).toHaveLength(1);
    expect(lines(turn.events)).toEqual([
      "status running",
      "explore preparing",
      "explore started",
      "explore status running",
      "explore grep preparing",
      "explore grep started",
      "explore grep finished",
      "explore finish toolUse",
      "explore text Two files: src/a.ts, src/b.ts",
      "explore finish stop",
      "explore status completed",
      "explore finished",
      "finish toolUse",
      "text There are two.",
      "finish stop",
      "status completed",
    ]);
    const marked = turn.events.filter((event) => event.origin);
    for (const event of marked) {
      expect(event.turnId).toBe("turn-1");
      expect(event.origin).toMatchObject({
        toolCallId: "call_explore",
        path: [{ toolCallId: "call_explore", agent: "explore" }],
        turnId: "turn-1/call_explore",
      });
    }
    // The parent's seq is one gap-free sequence; the child's own seq is kept in origin.
    expect(turn.events.map((event) => event.seq)).toEqual(turn.events.map((_, index) => index + 1));
    expect(marked.map((event) => event.origin!.seq)).toEqual(marked.map((_, index) => index + 1));
    // The child's messages are not the parent's history.
    expect(turn.delivered.filter((message) => message.role === "assistant")).toHaveLength(2);
  });

  it("the child's usage and timing roll up into the parent's report, per call, and count for the parent's total", async () => {
    const child = explore([response("found it", { usage: usageOf(100, 10, 0.5) })]);
    const turn = await runCheckedTurn({
      script: [
        response(toolCall("explore", { task: "look" }, { id: "call_1" }), { usage: usageOf(50, 5, 0.1) }),
        response("ok", { usage: usageOf(60, 6, 0.2) }),
      ],
      input: { tools: [child.tool] },
    });

    const { usage, subAgentCalls } = turn.outcome;
    expect(usage!.main.cost.total).toBeCloseTo(0.3);
    expect(usage!.subAgents!.cost.total).toBeCloseTo(0.5);
    expect(usage!.subAgents!.output).toBe(10);
    expect(usage!.total.cost.total).toBeCloseTo(0.8);
    expect(usage!.total.output).toBe(21);
    expect(subAgentCalls).toHaveLength(1);
    expect(subAgentCalls![0]).toMatchObject({
      toolCallId: "call_1",
      agent: "explore",
      turnId: "turn-1/call_1",
      outcome: "completed",
      usage: { main: { output: 10 }, total: { output: 10 } },
    });
    expect(subAgentCalls![0]!.timing!.requests).toHaveLength(1);
    const terminal = turn.events.at(-1)!;
    expect(terminal.type === "session.status" && terminal.payload.subAgentCalls).toEqual(subAgentCalls);
  });

  it("a parent budget counts its children: the parent stops after the step whose child spent it", async () => {
    const child = explore([response("expensive answer", { usage: usageOf(100, 10, 0.9) })]);
    const turn = await runCheckedTurn({
      script: [
        response(toolCall("explore", { task: "look" }), { usage: usageOf(10, 1, 0.05) }),
        response("never sent"),
      ],
      input: { tools: [child.tool], budget: { maxCost: 0.5 } },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxCost", max: 0.5 } },
    });
    expect(turn.requests).toHaveLength(1);
    assertToolCallsAnswered(turn.transcript);
  });

  it("a child budget stops the child alone: an error result, and the parent goes on", async () => {
    const work = createRecordingTool("work");
    const child = explore([response(toolCall("work"), { usage: usageOf(1, 1) }), response(toolCall("work")), "never"], {
      tools: [work],
      budget: { maxSteps: 1 },
    });
    const turn = await runCheckedTurn({
      script: [response(toolCall("explore", { task: "go" })), "I will do it myself."],
      input: { tools: [child.tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(toolResultText(turn.transcript, "explore")).toMatch(
      /^error: Sub-agent "explore" failed \(budget_exceeded\): The turn reached its step limit \(maxSteps 1\)/,
    );
    expect(turn.outcome.subAgentCalls![0]).toMatchObject({ outcome: "failed", error: { code: "budget_exceeded" } });
  });

  it("a child that fails becomes an error result of its call; the parent goes on", async () => {
    const child = explore([errorAfter(0, "400 invalid request: bad things")]);
    const turn = await runCheckedTurn({
      script: [response(toolCall("explore", { task: "go" })), "Recovered."],
      input: { tools: [child.tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(toolResultText(turn.transcript, "explore")).toMatch(
      /^error: Sub-agent "explore" failed \(invalid_request\)/,
    );
    expect(lines(turn.events)).toContain("explore status failed");
  });

  it("depth limit: a sub-agent may call one below it, and a call deeper than the limit is refused with a clear result", async () => {
    const innermostModel = createScriptedModel([]);
    const deepest = defineSubAgent({
      name: "deepest",
      description: "Never runs",
      systemPrompt: "-",
      llm: { model: innermostModel.model, streamFn: innermostModel.streamFn },
    });
    const middleModel = createScriptedModel([response(toolCall("deepest", { task: "deeper" })), "middle done"]);
    const middle = defineSubAgent({
      name: "middle",
      description: "Calls deepest",
      systemPrompt: "-",
      llm: { model: middleModel.model, streamFn: middleModel.streamFn },
      tools: [deepest],
    });
    const outerModel = createScriptedModel([response(toolCall("middle", { task: "go on" })), "outer done"]);
    const outer = defineSubAgent({
      name: "outer",
      description: "Calls middle",
      systemPrompt: "-",
      llm: { model: outerModel.model, streamFn: outerModel.streamFn },
      tools: [middle],
    });
    const turn = await runCheckedTurn({
      script: [response(toolCall("outer", { task: "start" })), "done"],
      input: { tools: [outer] },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(innermostModel.requests).toHaveLength(0);
    const refusal = middleModel.requests[1]!.context.messages.find((message) => message.role === "toolResult");
    expect(refusal).toMatchObject({
      isError: true,
      content: [
        {
          text: 'Sub-agent "deepest" was not run: it would run 3 levels deep (under outer > middle), and its limit is 2. Do the task without it.',
        },
      ],
    });
    // Events of the grandchild's parent carry the whole path.
    const fromMiddle = turn.events.filter((event) => event.origin?.path.length === 2);
    expect(fromMiddle.length).toBeGreaterThan(0);
    expect(fromMiddle[0]!.origin).toMatchObject({
      toolCallId: turn.events.find((event) => event.origin)!.origin!.toolCallId,
      path: [{ agent: "outer" }, { agent: "middle" }],
    });
    expect(turn.outcome.subAgentCalls![0]!.subAgentCalls![0]).toMatchObject({ agent: "middle", outcome: "completed" });
  });

  it("several sub-agent calls of one response run at once when declared parallel", async () => {
    let running = 0;
    let most = 0;
    const slow = createRecordingTool("slow", {
      executionMode: "parallel",
      answer: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const child = explore([response(toolCall("slow")), response(toolCall("slow")), "a", "b"], {
      tools: [slow],
      executionMode: "parallel",
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("explore", { task: "one" }), toolCall("explore", { task: "two" })]), "both"],
      input: { tools: [child.tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(most).toBe(2);
    expect(turn.outcome.subAgentCalls).toHaveLength(2);
    assertRuntimeEventSequence(turn.events);
  });

  it("aborting the parent aborts every running child, and the parent settles within the abort bound", async () => {
    const controller = new AbortController();
    const childSignals: AbortSignal[] = [];
    let started = 0;
    const stuck = createRecordingTool("stuck", {
      executionMode: "parallel",
      // Ignores its signal: only the graces end the wait.
      answer: (_input, signal) => {
        childSignals.push(signal);
        if (++started === 2) controller.abort();
        return new Promise(() => {});
      },
    });
    const child = explore([response(toolCall("stuck")), response(toolCall("stuck"))], {
      tools: [stuck],
      executionMode: "parallel",
    });
    const startedAt = Date.now();
    const turn = await runCheckedTurn({
      script: [response([toolCall("explore", { task: "one" }), toolCall("explore", { task: "two" })]), "never"],
      input: { tools: [child.tool], signal: controller.signal },
    });
    const elapsed = Date.now() - startedAt;

    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(childSignals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(elapsed).toBeLessThan(1000);
    assertToolCallsAnswered(turn.transcript);
    // Children stuck past the grace are cut short by the parent's end: whatever of them arrived is in order.
    expect(lines(turn.events).filter((line) => line.startsWith("explore status running"))).toHaveLength(2);
    expect(lines(turn.events).filter((line) => /^explore status (completed|failed)/.test(line))).toEqual([]);
  });

  it("children that honour the abort end as aborted in the parent's stream, before the parent's end", async () => {
    const controller = new AbortController();
    let requests = 0;
    // The children's requests hang until their signal fires; the parent is aborted once both were sent.
    const onLlmCallPreparedHook = () => {
      if (++requests === 2) controller.abort();
    };
    const child = explore([hang(), hang()], { executionMode: "parallel", hooks: { onLlmCallPreparedHook } });
    const startedAt = Date.now();
    const turn = await runCheckedTurn({
      script: [response([toolCall("explore", { task: "one" }), toolCall("explore", { task: "two" })]), "never"],
      input: { tools: [child.tool], signal: controller.signal },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(lines(turn.events).filter((line) => line.startsWith("explore status"))).toEqual([
      "explore status running",
      "explore status running",
      "explore status aborted",
      "explore status aborted",
    ]);
    expect(turn.outcome.subAgentCalls?.map((call) => call.outcome)).toEqual(["aborted", "aborted"]);
  });

  it("a tool inside a child asks the host for approval: the request reaches the parent's stream marked with its path, the answer reaches the child", async () => {
    const child = explore([response(toolCall("deploy", {}, { id: "call_deploy" })), "Deployed it."], {
      tools: [deployWithApproval()],
    });
    const asked: ActionRequiredPayload[] = [];
    const turn = await runCheckedTurn({
      script: [response(toolCall("explore", { task: "deploy" }, { id: "call_explore" })), "Done."],
      input: {
        tools: [child.tool],
        answerActionRequest: (request) => {
          asked.push(request);
          return { approved: true };
        },
      },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(toolResultText(turn.transcript, "explore")).toBe("Deployed it.");
    expect(child.model.requests[1]!.context.messages.at(-1)).toMatchObject({
      role: "toolResult",
      content: [{ text: "deployed" }],
    });
    const request = turn.events.find((event) => event.type === "action.required")!;
    expect(request.origin).toMatchObject({
      toolCallId: "call_explore",
      path: [{ toolCallId: "call_explore", agent: "explore" }],
      turnId: "turn-1/call_explore",
    });
    expect(request.payload).toMatchObject({ kind: "tool_approval", toolCallId: "call_deploy", toolName: "deploy" });
    expect(asked).toEqual([request.payload]);
  });

  it("two sub-agent calls whose own calls share an id ask under request ids scoped by the parent's call", async () => {
    const child = explore(
      // The calls run one after the other, each child a request with the call and one after it.
      [
        response(toolCall("deploy", {}, { id: "call_deploy" })),
        "Deployed.",
        response(toolCall("deploy", {}, { id: "call_deploy" })),
        "Deployed.",
      ],
      { tools: [deployWithApproval()] },
    );
    const turn = await runCheckedTurn({
      script: [
        response([
          toolCall("explore", { task: "one" }, { id: "call_one" }),
          toolCall("explore", { task: "two" }, { id: "call_two" }),
        ]),
        "Done.",
      ],
      input: { tools: [child.tool], answerActionRequest: () => ({ approved: true }) },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    const requests = turn.events.flatMap((event) =>
      event.type === "action.required" ? [[event.origin?.toolCallId, event.payload.requestId]] : [],
    );
    expect(requests.sort()).toEqual([
      ["call_one", "tool_approval:call_one/call_deploy:1"],
      ["call_two", "tool_approval:call_two/call_deploy:1"],
    ]);
  });

  it("a parent model that names every response's call call_0: each sub-agent call gets its own child turn and request ids", async () => {
    const child = explore(
      [
        response(toolCall("deploy", {}, { id: "call_0" })),
        "Deployed once.",
        response(toolCall("deploy", {}, { id: "call_0" })),
        "Deployed twice.",
      ],
      { tools: [deployWithApproval()] },
    );
    const turn = await runCheckedTurn({
      script: [
        response(toolCall("explore", { task: "one" }, { id: "call_0" })),
        response(toolCall("explore", { task: "two" }, { id: "call_0" })),
        "Done.",
      ],
      input: { tools: [child.tool], answerActionRequest: () => ({ approved: true }) },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    const children = turn.events.flatMap((event) =>
      event.origin && event.type === "session.status" && event.payload.status === "running"
        ? [[event.origin.toolCallId, event.origin.turnId]]
        : [],
    );
    expect(children).toEqual([
      ["call_0", "turn-1/call_0"],
      ["call_0", "turn-1/call_0#2"],
    ]);
    const requests = turn.events.flatMap((event) =>
      event.type === "action.required" ? [event.payload.requestId] : [],
    );
    expect(requests).toEqual(["tool_approval:call_0/call_0:1", "tool_approval:call_0#2/call_0:1"]);
    expect(turn.outcome.subAgentCalls?.map((call) => call.turnId)).toEqual(["turn-1/call_0", "turn-1/call_0#2"]);
  });

  it("the child's turn span goes under its call's execute_tool span, in the parent's trace", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const child = explore(["found it"]);
    await runCheckedTurn({
      script: [response(toolCall("explore", { task: "look" })), "ok"],
      input: { tools: [child.tool] },
      runnerOptions: { telemetry: { tracer: provider.getTracer("test") } },
    });
    const spans = exporter.getFinishedSpans();
    const names = (list: typeof spans) => list.map((span) => span.name);
    const roots = spans.filter((span) => !span.parentSpanContext);
    expect(names(roots)).toEqual(["invoke_agent"]);
    const call = spans.find((span) => span.name === "execute_tool explore")!;
    const under = (parent: (typeof spans)[number]) =>
      spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
    const childTurn = under(call);
    expect(names(childTurn)).toEqual(["invoke_agent"]);
    expect(childTurn[0]!.attributes["turnkit.turn.id"]).toBe("turn-1/call_1");
    expect(names(under(childTurn[0]!))).toEqual(["chat scripted-model"]);
    expect(childTurn[0]!.spanContext().traceId).toBe(roots[0]!.spanContext().traceId);
  });

  it("a definition is checked at once", () => {
    const model = createScriptedModel([]);
    const llm = { model: model.model, streamFn: model.streamFn };
    expect(() => defineSubAgent({ name: "x", description: "d", systemPrompt: "p", llm, maxDepth: 0 })).toThrow(
      /maxDepth must be a positive integer/,
    );
    // A definition that cannot be read is refused as such, never with the engine's TypeError.
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const llmGetter = Object.defineProperty({ name: "x", description: "d", systemPrompt: "p" }, "llm", {
      get: () => {
        throw new Error("llm getter failed");
      },
      enumerable: true,
    });
    for (const unreadable of [proxy, llmGetter])
      expect(() => defineSubAgent(unreadable as never)).toThrow(
        "defineSubAgent: the definition could not be read (a revoked proxy or a getter that throws)",
      );
    expect(() => defineSubAgent({ name: 1n, description: "d", systemPrompt: 5, llm } as never)).toThrow(
      "defineSubAgent: sub-agent bigint is invalid: systemPrompt must be a string",
    );
    // The value as given: NaN and Infinity are no JSON, and must not read as "null".
    for (const [maxDepth, shown] of [
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
    ] as const)
      expect(() => defineSubAgent({ name: "x", description: "d", systemPrompt: "p", llm, maxDepth })).toThrow(
        `maxDepth must be a positive integer, got ${shown}`,
      );
    expect(() => defineSubAgent({ name: "bad name", description: "d", systemPrompt: "p", llm })).toThrow(
      TurnkitConfigError,
    );
    expect(() =>
      defineSubAgent({ name: "x", description: "d", systemPrompt: "p", llm, sytemPrompt: "typo" } as never),
    ).toThrow(/unknown key 'sytemPrompt'/);
  });

  it("a definition is checked at once as its turns would be: llm, hooks, llmRetry, budget, workspaceDir, tool names", async () => {
    const model = createScriptedModel([]);
    const llm = { model: model.model, streamFn: model.streamFn };
    const base = { name: "explore", description: "d", systemPrompt: "p", llm };
    const refusal = (extra: Record<string, unknown>) => {
      try {
        defineSubAgent({ ...base, ...extra } as never);
      } catch (error) {
        if (!TurnkitConfigError.isInstance(error)) throw error;
        return `${error.code}: ${error.message}`;
      }
      return "accepted";
    };
    const named = 'defineSubAgent: sub-agent "explore": ';
    expect(refusal({ hooks: { onHistoryChangedHook: "log" } })).toBe(
      `invalid_tool: ${named}hooks.onHistoryChangedHook must be a function or an array of functions, got "log"`,
    );
    expect(refusal({ hooks: { beforeLLMCallHook: () => {} } })).toBe(
      `unknown_key: ${named}unknown key 'beforeLLMCallHook' in hooks; did you mean 'beforeLlmCallHook'?`,
    );
    expect(refusal({ llm: { ...llm, maxToken: 10 } })).toMatch(/^unknown_key: .*unknown key 'maxToken' in llm/);
    expect(refusal({ llm: { ...llm, maxTokens: -1 } })).toBe(
      `invalid_tool: ${named}llm.maxTokens must be a positive integer, got -1`,
    );
    expect(refusal({ llm: { ...llm, cacheRetention: "forever" } })).toMatch(/^invalid_tool: .*llm\.cacheRetention/);
    expect(refusal({ llm: { ...llm, firstEventTimeoutMs: -5 } })).toMatch(/^invalid_tool: .*llm\.firstEventTimeoutMs/);
    expect(refusal({ llm: { ...llm, fallback: { models: [{}] } } })).toMatch(
      /^invalid_tool: .*llm\.fallback\.models\[0\]\.model must be/,
    );
    expect(refusal({ llmRetry: { maxRetries: -1 } })).toMatch(/^invalid_tool: .*llmRetry\.maxRetries/);
    expect(refusal({ llmRetry: 3 })).toBe(`invalid_tool: ${named}llmRetry must be false or an object, got 3`);
    expect(refusal({ budget: { maxStep: 2 } })).toMatch(/^unknown_key: .*unknown key 'maxStep' in budget/);
    expect(refusal({ budget: { maxSteps: 0 } })).toMatch(
      /^invalid_tool: .*budget\.maxSteps must be a positive integer/,
    );
    expect(refusal({ workspaceDir: 5 })).toBe(`invalid_tool: ${named}workspaceDir must be a string, got 5`);
    const grep = createRecordingTool("grep");
    expect(refusal({ tools: [grep, createRecordingTool("grep")] })).toBe(
      `duplicate_tool: ${named}tools[1]: two tools are named "grep"; tool names must be unique`,
    );
    expect(refusal({ tools: [grep], llmRetry: false, budget: { maxSteps: 2 }, hooks: {} })).toBe("accepted");
  });

  it("the answer is the child's final response: a preamble of an earlier step is never taken for it", async () => {
    const grep = createRecordingTool("grep");
    const child = explore(
      [
        response([text("Let me search first."), toolCall("grep", { value: "TODO" })]),
        response([], { stopReason: "stop" }),
      ],
      { tools: [grep] },
    );
    const turn = await runCheckedTurn({
      script: [response(toolCall("explore", { task: "find the TODOs" })), "It found nothing."],
      input: { tools: [child.tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(toolResultText(turn.transcript, "explore")).toBe(
      'error: Sub-agent "explore" gave no answer: its last response had no text.',
    );
    expect(turn.outcome.subAgentCalls![0]).toMatchObject({ outcome: "completed" });
  });

  it("a call that comes once the parent's cost or output-token limit is reached is refused, and the child's model is never asked", async () => {
    const child = explore([response("first answer", { usage: usageOf(100, 10, 0.4) }), "second answer"]);
    const turn = await runCheckedTurn({
      script: [
        response([toolCall("explore", { task: "one" }), toolCall("explore", { task: "two" })], {
          usage: usageOf(10, 1, 0.2),
        }),
        "never sent",
      ],
      input: { tools: [child.tool], budget: { maxCost: 0.5 } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "budget_exceeded" } });
    // The first child spent what was left; the second call runs nothing.
    expect(child.model.requests).toHaveLength(1);
    const results = turn.transcript.flatMap((message) =>
      message.role === "toolResult"
        ? [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")]
        : [],
    );
    expect(results).toEqual([
      "first answer",
      'Sub-agent "explore" was not run: the turn\'s cost limit (maxCost 0.5) is spent. Do the task without it.',
    ]);
    expect(turn.outcome.subAgentCalls?.map((call) => call.outcome)).toEqual(["completed"]);
    assertToolCallsAnswered(turn.transcript);
  });

  it("children running side by side see each other's spending: once together they reach the parent's limit, neither sends another request", async () => {
    // Each child's first request returns a call of `wait`, which ends once both children are in it: both first requests are spent by then.
    let arrived = 0;
    let bothIn!: () => void;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const wait = defineRuntimeTool({
      name: "wait",
      description: "Waits for the other child",
      parameters: Type.Object({}),
      executionMode: "parallel",
      execute: async () => {
        if (++arrived === 2) bothIn();
        await together;
        return { content: [{ type: "text", text: "done waiting" }] };
      },
    });
    const child = explore(
      [
        response(toolCall("wait"), { usage: usageOf(100, 10, 0.3) }),
        response(toolCall("wait"), { usage: usageOf(100, 10, 0.3) }),
        "never sent",
        "never sent",
      ],
      { tools: [wait], executionMode: "parallel" },
    );
    const turn = await runCheckedTurn({
      script: [
        response([toolCall("explore", { task: "one" }), toolCall("explore", { task: "two" })], {
          usage: usageOf(10, 1, 0.05),
        }),
        "never sent",
      ],
      input: { tools: [child.tool], budget: { maxCost: 0.5 } },
    });
    // Before, each child was lowered to 0.45 and saw only its own 0.3: both asked again, and the turn spent 1.25.
    expect(child.model.requests).toHaveLength(2);
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxCost", max: 0.5 } },
    });
    expect(turn.outcome.usage!.total.cost.total).toBeCloseTo(0.65);
    for (const call of turn.outcome.subAgentCalls!) {
      expect(call).toMatchObject({ outcome: "failed", error: { code: "budget_exceeded", budget: { max: 0.5 } } });
      expect(call.error!.message).toMatch(
        /^A turn above this sub-agent reached its cost limit \(maxCost 0\.5\) at 0\.6\d*, counting the sub-agents running beside this one/,
      );
    }
    assertToolCallsAnswered(turn.transcript);
  });

  it("a host layer's runCall that hands over an invalid budget: the call is refused naming the field, even when the parent's budget would lower it, and nothing runs", async () => {
    for (const [budget, field] of [
      [{ maxSteps: 0 }, "budget.maxSteps must be a positive integer, got 0"],
      // Lowered to the parent's limit with Math.min, "5" would pass as 5.
      [{ maxOutputTokens: "5" }, 'budget.maxOutputTokens must be a positive number, got "5"'],
    ] as const) {
      const child = explore(["never sent"]);
      const perCall = {
        ...child.tool,
        runCall: (_call: unknown, run: (definition: never) => unknown) =>
          run({ ...child.tool.subAgent, budget } as never),
      };
      const turn = await runCheckedTurn({
        script: [response(toolCall("explore", { task: "go" })), "Done myself."],
        input: { tools: [perCall as typeof child.tool], budget: { maxOutputTokens: 1000 } },
      });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expect(child.model.requests).toHaveLength(0);
      const result = turn.transcript.find((message) => message.role === "toolResult");
      expect(result).toMatchObject({ isError: true, details: { agent: "explore", outcome: "refused" } });
      expect(toolResultText(turn.transcript, "explore")).toBe(
        `error: Sub-agent "explore" was not run: its definition for this call is invalid: ${field}. Do the task without it.`,
      );
      expect(turn.outcome.subAgentCalls).toBeUndefined();
    }
  });

  it("a call with an empty task is refused without asking the child's model", async () => {
    const child = explore(["never sent"]);
    const turn = await runCheckedTurn({
      script: [response([toolCall("explore", { task: "" }), toolCall("explore", { task: " \n" })]), "Done."],
      input: { tools: [child.tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(child.model.requests).toHaveLength(0);
    const results = turn.transcript.flatMap((message) => (message.role === "toolResult" ? [message] : []));
    expect(results.map((result) => [result.isError, result.details])).toEqual([
      [true, { agent: "explore", outcome: "refused" }],
      [true, { agent: "explore", outcome: "refused" }],
    ]);
    expect(toolResultText(turn.transcript, "explore")).toBe(
      'error: Sub-agent "explore" was not run: its task is empty. Call it again with the task in words.',
    );
  });
});
