import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assistantMessage,
  response,
  text,
  thinking,
  toolCall,
  toolResultMessage,
  userMessage,
} from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/errors.js";
import { PiTurnRunner } from "../../src/pi-turn-runner/pi-turn-runner.js";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";
import {
  createRecordingEventWriter,
  createRecordingTool,
  createScriptedModel,
  deferred,
  runCheckedTurn,
} from "@turnkit/agent-core/testing";
import { requestRoles, resolvedToolChunks, userTexts } from "../support/turn-queries.js";

describe("a turn with text only", () => {
  it("streams the answer under one message id, persists user and answer, and completes", async () => {
    const turn = await runCheckedTurn({
      script: [response([thinking("let me see"), text("Hello there")])],
      input: { userMessage: { text: "hi" } },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.writer.statuses()).toEqual(["running", "completed"]);
    expect(turn.writer.messageIds()).toEqual(["msg_1"]);
    const chunks = turn.writer.chunksOf("msg_1");
    expect(
      chunks
        .filter((chunk) => chunk.kind === "thinking")
        .map((chunk) => (chunk as { delta: string }).delta)
        .join(""),
    ).toBe("let me see");
    expect(turn.writer.text("msg_1")).toBe("Hello there");
    expect(chunks[chunks.length - 1]).toMatchObject({ kind: "finish", reason: "stop" });

    expect(turn.requests).toHaveLength(1);
    expect(turn.requests[0]!.context.systemPrompt).toBe("You are a scripted test assistant.");
    expect(userTexts(turn.requests[0]!)).toEqual(["hi"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(
      turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages.map((message) => message.role)),
    ).toEqual(["user", "assistant"]);
  });

  it("places beforeUserMessages before the user message; the model sees them as user input", async () => {
    const turn = await runCheckedTurn({
      script: ["ok"],
      input: {
        userMessage: { text: "question" },
        beforeUserMessages: [{ role: "hidden", content: "<reminder>be brief</reminder>", timestamp: 1 }],
      },
    });
    expect(userTexts(turn.requests[0]!)).toEqual(["<reminder>be brief</reminder>", "question"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["hidden", "user", "assistant"]);
  });

  it("continues a history with startMode continue and never re-delivers that history", async () => {
    const history: RunTurnInput["history"] = [
      { role: "user", content: "earlier question", timestamp: 1 },
      {
        role: "assistant",
        content: [{ type: "text", text: "earlier answer" }],
        api: "scripted",
        provider: "scripted",
        model: "scripted-model",
        usage: {
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 0,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "stop",
        timestamp: 2,
      },
      { role: "user", content: "follow-up", timestamp: 3 },
    ];
    const turn = await runCheckedTurn({ script: ["continued"], input: { startMode: "continue", history } });
    expect(turn.outcome.kind).toBe("completed");
    expect(userTexts(turn.requests[0]!)).toEqual(["earlier question", "follow-up"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["assistant"]);
    expect(turn.transcript).toHaveLength(4);
  });
});

describe("a turn with tools", () => {
  it("runs tools declared parallel concurrently; results and chunks keep the model's call order", async () => {
    const gate = deferred();
    const entered: string[] = [];
    const slow = createRecordingTool("slow", {
      executionMode: "parallel",
      answer: async (input) => {
        entered.push(`slow:${input.value}`);
        await gate.promise;
        return { content: [{ type: "text", text: "slow done" }] };
      },
    });
    const fast = createRecordingTool("fast", {
      executionMode: "parallel",
      answer: (input) => {
        entered.push(`fast:${input.value}`);
        // Both calls are running before either finished: only then is the slow one released.
        if (entered.length === 2) gate.resolve();
        return { content: [{ type: "text", text: "fast done" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("slow", { value: "a" }), toolCall("fast", { value: "b" })]), "both done"],
      input: { tools: [slow, fast] },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(entered).toEqual(["slow:a", "fast:b"]);
    // Transcript and next request: results in call order, though fast finished first.
    expect(turn.delivered.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    expect(
      turn.requests[1]!.context.messages.slice(2).map((message) => (message as { toolName: string }).toolName),
    ).toEqual(["slow", "fast"]);
    // The held message is released once, calls in call order, each resolved with result and duration.
    const resolved = resolvedToolChunks(turn.events);
    expect(resolved.map((chunk) => [chunk.toolName, chunk.status])).toEqual([
      ["slow", "finished"],
      ["fast", "finished"],
    ]);
    for (const chunk of resolved) expect(chunk.durationMs).toBeGreaterThanOrEqual(0);
    expect(resolved[0]!.result).toMatchObject({ content: [{ type: "text", text: "slow done" }], isError: false });
    // The tool's ctx names the host id of the assistant message that asked for it.
    expect(slow.calls[0]!.ctx).toMatchObject({
      sessionId: "session-1",
      turnId: "turn-1",
      toolCallId: "call_1",
      assistantMessageId: "msg_1",
    });
    expect(turn.requests[0]!.context.tools?.map((tool) => tool.name)).toEqual(["slow", "fast"]);
  });

  it("runs a batch one call at a time when a called tool is sequential", async () => {
    let running = 0;
    let overlap = false;
    const answer = async () => {
      running++;
      if (running > 1) overlap = true;
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return { content: [{ type: "text" as const, text: "written" }] };
    };
    const write = createRecordingTool("write_note", { answer }); // no executionMode: sequential
    const read = createRecordingTool("read_note", { executionMode: "parallel", answer });
    const turn = await runCheckedTurn({
      script: [
        response([
          toolCall("read_note", { value: "1" }),
          toolCall("write_note", { value: "2" }),
          toolCall("read_note", { value: "3" }),
        ]),
        "done",
      ],
      input: { tools: [write, read] },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(overlap).toBe(false);
    expect([...read.calls, ...write.calls].map((call) => call.input.value).sort()).toEqual(["1", "2", "3"]);
    const started = turn.writer
      .ofType("stream.resp")
      .map((event) => event.payload.chunk)
      .filter((chunk) => chunk.kind === "tool_call" && chunk.status === "started")
      .map((chunk) => (chunk as { toolCallId: string }).toolCallId);
    expect(started).toEqual(["call_1", "call_2", "call_3"]);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.toolCallId)).toEqual(["call_1", "call_2", "call_3"]);
  });

  it("records a tool that throws or reports isError as a failed call, and the turn goes on", async () => {
    const broken = createRecordingTool("broken", {
      executionMode: "parallel",
      answer: () => {
        throw new Error("disk on fire");
      },
    });
    const refusing = createRecordingTool("refusing", {
      executionMode: "parallel",
      answer: () => ({ content: [{ type: "text", text: "not allowed here" }], isError: true }),
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("broken"), toolCall("refusing"), toolCall("missing")]), "recovered"],
      input: { tools: [broken, refusing] },
    });
    expect(turn.outcome.kind).toBe("completed");
    const results = turn.delivered.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.isError)).toEqual([true, true, true]);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.status)).toEqual(["failed", "failed", "failed"]);
    expect(JSON.stringify(results)).toContain("disk on fire");
    expect(JSON.stringify(results)).toContain("not allowed here");
    expect(JSON.stringify(results)).toContain("Tool missing not found");
  });
});

describe("seq", () => {
  it("strictly increases over every event of a turn, across every event type", async () => {
    const tool = createRecordingTool("t", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([text("calling"), toolCall("t")]), "done"],
      input: { tools: [tool] },
    });
    const seqs = turn.events.map((event) => event.seq);
    expect(seqs.length).toBeGreaterThan(10);
    for (let index = 1; index < seqs.length; index++) expect(seqs[index]).toBeGreaterThan(seqs[index - 1]!);
    expect(new Set(turn.events.map((event) => event.type))).toEqual(
      new Set(["session.status", "debug.trace", "stream.resp", "message.persisted"]),
    );
  });
});

describe("invalid input", () => {
  const scripted = createScriptedModel(["never"]);
  const valid = (): RunTurnInput => ({
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: scripted.model, streamFn: scripted.streamFn },
    eventWriter: createRecordingEventWriter(),
  });
  const cases: [string, (input: RunTurnInput) => unknown, string][] = [
    [
      "a missing model",
      (input) => ({ ...input, llm: { streamFn: scripted.streamFn } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    ["a missing userMessage", (input) => ({ ...input, userMessage: undefined }), ConfigErrorCode.InvalidTurnInput],
    [
      "a userMessage without text",
      (input) => ({ ...input, userMessage: { images: [] } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      "continue without history",
      (input) => ({ ...input, userMessage: undefined, startMode: "continue" }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    ["a missing turnId", (input) => ({ ...input, turnId: "" }), ConfigErrorCode.InvalidTurnInput],
    [
      "a writer without push",
      (input) => ({ ...input, eventWriter: { write() {} } }),
      ConfigErrorCode.InvalidEventWriter,
    ],
    ["no writer", (input) => ({ ...input, eventWriter: undefined }), ConfigErrorCode.InvalidEventWriter],
  ];
  for (const [name, mutate, code] of cases) {
    it(`rejects ${name} with ${code}, before any event or request`, async () => {
      const writer = createRecordingEventWriter();
      const input = mutate({ ...valid(), eventWriter: writer }) as RunTurnInput;
      const error = await new PiTurnRunner().runTurn(input).catch((caught: unknown) => caught);
      expect(TurnkitConfigError.isInstance(error)).toBe(true);
      expect((error as TurnkitConfigError).code).toBe(code);
      expect(writer.events).toHaveLength(0);
      expect(scripted.requests).toHaveLength(0);
    });
  }

  // A value of the wrong type anywhere in the input: the error names the field and what it must be.
  const wrongTypes: [string, (input: RunTurnInput) => unknown, string][] = [
    [
      "RunTurnInput.hooks.beforeToolCallHook must be a function or an array of functions, got 42",
      (input) => ({ ...input, hooks: { beforeToolCallHook: 42 } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      "RunTurnInput.signal must be an AbortSignal, got object",
      (input) => ({ ...input, signal: { aborted: false } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      'RunTurnInput.llm.thinkingLevel must be one of "off", "minimal", "low", "medium", "high", "xhigh", got "max"',
      (input) => ({ ...input, llm: { ...input.llm, thinkingLevel: "max" } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      'RunTurnInput.answerActionRequest must be a function, got "yes"',
      (input) => ({ ...input, answerActionRequest: "yes" }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      'RunTurnInput.disableBuiltinToolFallback must be a boolean, got "no"',
      (input) => ({ ...input, disableBuiltinToolFallback: "no" }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      "RunTurnInput.history[1] must be a message object with a role",
      (input) => ({ ...input, history: [{ role: "user", content: "q", timestamp: 1 }, "hello"] }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      'RunTurnInput.userMessage.images[0] must be an image { type: "image", data, mimeType }',
      (input) => ({ ...input, userMessage: { text: "see", images: ["cat.png"] } }),
      ConfigErrorCode.InvalidTurnInput,
    ],
    [
      "unknown key 'maxTokens' in RunTurnInput.budget",
      (input) => ({ ...input, budget: { maxTokens: 100 } }),
      ConfigErrorCode.UnknownKey,
    ],
  ];
  for (const [message, mutate, code] of wrongTypes) {
    it(`rejects with ${code}: ${message}`, async () => {
      const writer = createRecordingEventWriter();
      const input = mutate({ ...valid(), eventWriter: writer }) as RunTurnInput;
      const error = await new PiTurnRunner().runTurn(input).catch((caught: unknown) => caught);
      expect(TurnkitConfigError.isInstance(error)).toBe(true);
      expect((error as TurnkitConfigError).code).toBe(code);
      expect((error as TurnkitConfigError).message).toContain(message);
      expect(writer.events).toHaveLength(0);
    });
  }

  it("rejects runner options of the wrong type or with an unknown key, naming the field", () => {
    const attempt = (options: unknown) => {
      try {
        new PiTurnRunner(options as never);
        return "accepted";
      } catch (error) {
        return `${(error as TurnkitConfigError).code}: ${(error as Error).message}`;
      }
    };
    expect(attempt({ clock: 5 })).toBe(
      "invalid_runner_options: PiTurnRunnerOptions.clock must be a Clock { now, setTimeout, clearTimeout }, got 5",
    );
    expect(attempt({ allocateMessageId: "msg" })).toBe(
      'invalid_runner_options: PiTurnRunnerOptions.allocateMessageId must be a function, got "msg"',
    );
    expect(attempt({ allocateMesageId: () => "m" })).toMatch(
      /^unknown_key: unknown key 'allocateMesageId' in PiTurnRunnerOptions; did you mean 'allocateMessageId'\?/,
    );
    expect(attempt("fast")).toBe('invalid_runner_options: PiTurnRunnerOptions must be an object, got "fast"');
    for (const [now, shown] of [
      [Number.NaN, "NaN"],
      ["12:00", '"12:00"'],
      [undefined, "undefined"],
    ] as const) {
      expect(attempt({ clock: { now: () => now, setTimeout, clearTimeout } })).toBe(
        `invalid_runner_options: PiTurnRunnerOptions.clock.now() must return a finite number of milliseconds, got ${shown}`,
      );
    }
    expect(
      attempt({ clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} }, workspaceDir: "/tmp" }),
    ).toBe("accepted");
  });

  it("rejects continue from a history that ends with an assistant message", async () => {
    const input: RunTurnInput = {
      ...valid(),
      userMessage: undefined,
      startMode: "continue",
      history: [
        { role: "user", content: "q", timestamp: 1 },
        {
          role: "assistant",
          content: [{ type: "text", text: "a" }],
          api: "x",
          provider: "x",
          model: "x",
          usage: {
            input: 0,
            output: 0,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 0,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: "stop",
          timestamp: 2,
        },
      ],
    };
    const writer = input.eventWriter as ReturnType<typeof createRecordingEventWriter>;
    const error = await new PiTurnRunner().runTurn(input).catch((caught: unknown) => caught);
    expect((error as TurnkitConfigError).code).toBe(ConfigErrorCode.InvalidTurnInput);
    expect(writer.events).toHaveLength(0);
  });

  it("continue judges the history as the model sees it: nothing to send, or an assistant last once what is never sent is left out, is refused before any event and request", async () => {
    const question = userMessage("q", { timestamp: 1 });
    const answer = assistantMessage("a", { timestamp: 2 });
    const note = { role: "host", kind: "note", timestamp: 3 } as AgentMessage;
    const failed = assistantMessage("", { stopReason: "error", errorMessage: "503", timestamp: 3 });
    const stray = toolResultMessage("never-called", "t", "r", { timestamp: 4 });
    const blank = userMessage(" \n", { timestamp: 4 });
    const blankHidden = { role: "hidden", content: "", timestamp: 4 } as AgentMessage;
    for (const [history, problem] of [
      [[note], "holds no message a model is sent"],
      [[blank, blankHidden], "holds no message a model is sent"],
      // A message that says nothing is never sent (a provider drops it): the answer is last.
      [[question, answer, blank], "an assistant message"],
      [[question, answer, blankHidden], "an assistant message"],
      [[question, answer, note], "an assistant message"],
      [[question, answer, stray], "an assistant message"],
      [[question, answer, failed, note], "an assistant message"],
      // The model would see the answer last; the loop continues from no response, a failed one included.
      [[question, failed], "an assistant message"],
    ] as const) {
      const model = createScriptedModel(["never sent"]);
      const writer = createRecordingEventWriter();
      const error = await new PiTurnRunner()
        .runTurn({
          ...valid(),
          userMessage: undefined,
          startMode: "continue",
          history: [...history],
          eventWriter: writer,
          llm: { model: model.model, streamFn: model.streamFn },
        })
        .catch((caught: unknown) => caught);
      expect(TurnkitConfigError.isInstance(error) && error.code).toBe(ConfigErrorCode.InvalidTurnInput);
      expect((error as Error).message).toContain(problem);
      expect(writer.events).toHaveLength(0);
      expect(model.requests).toHaveLength(0);
    }
    // A hidden message the turn adds after such a history is what the model answers.
    const model = createScriptedModel(["answered"]);
    const outcome = await new PiTurnRunner().runTurn({
      ...valid(),
      userMessage: undefined,
      startMode: "continue",
      history: [question, answer, note],
      beforeUserMessages: [{ role: "hidden", content: "go on", timestamp: 5 } as AgentMessage],
      llm: { model: model.model, streamFn: model.streamFn },
    });
    expect(outcome).toEqual({ kind: "completed" });
    expect(model.requests[0]!.context.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });

  it("never sends a message that says nothing from history or beforeUserMessages (a provider drops it or refuses the request)", async () => {
    const model = createScriptedModel(["answered"]);
    const history = [
      userMessage("q", { timestamp: 1 }),
      assistantMessage("a", { timestamp: 2 }),
      userMessage([text("  ")], { timestamp: 3 }),
    ];
    const writer = createRecordingEventWriter();
    const outcome = await new PiTurnRunner().runTurn({
      ...valid(),
      userMessage: { text: "next" },
      history,
      beforeUserMessages: [{ role: "hidden", content: "\n", timestamp: 4 } as AgentMessage],
      eventWriter: writer,
      llm: { model: model.model, streamFn: model.streamFn },
    });
    expect(outcome).toEqual({ kind: "completed" });
    const sent = model.requests[0]!.context.messages;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(sent[2])).toContain("next");
  });

  it("rejects duplicate tools with duplicate_tool before any event", async () => {
    const writer = createRecordingEventWriter();
    const error = await new PiTurnRunner()
      .runTurn({ ...valid(), eventWriter: writer, tools: [createRecordingTool("same"), createRecordingTool("same")] })
      .catch((caught: unknown) => caught);
    expect((error as TurnkitConfigError).code).toBe(ConfigErrorCode.DuplicateTool);
    expect(writer.events).toHaveLength(0);
  });

  it("a stream function that returns no stream fails the turn as internal, naming llm.streamFn, without a retry", async () => {
    const scripted = createScriptedModel(["never sent"]);
    for (const [returned, got] of [
      [() => 1, "number"],
      [() => Promise.resolve({ events: [] }), "an object"],
      [() => null, "null"],
    ] as const) {
      let calls = 0;
      const writer = createRecordingEventWriter();
      const outcome = await new PiTurnRunner().runTurn({
        sessionId: "s",
        turnId: "t",
        systemPrompt: "",
        userMessage: { text: "hi" },
        llm: {
          model: scripted.model,
          streamFn: (() => {
            calls++;
            return returned();
          }) as never,
        },
        eventWriter: writer,
      });
      expect(outcome).toMatchObject({
        kind: "failed",
        error: {
          code: ErrorCode.Internal,
          message: `llm.streamFn returned ${got}, not a stream of assistant message events (an async iterable)`,
        },
      });
      expect(calls).toBe(1);
    }
  });

  it("a failed turn carries a stable code; a provider error is classified", async () => {
    const turn = await runCheckedTurn({
      script: [response("", { stopReason: "error", errorMessage: "429 Rate limit reached" })],
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.RateLimited } });
    expect(turn.writer.chunksOf("msg_1").at(-1)).toMatchObject({
      kind: "finish",
      reason: "error",
      error: { code: ErrorCode.RateLimited },
    });
  });
});
