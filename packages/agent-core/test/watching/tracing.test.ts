/**
 * OpenTelemetry spans of a turn, exported with the SDK's in-memory exporter:
 * one `invoke_agent` span per turn, a `chat` span per model request (its
 * attempts and retry waits as events) and an `execute_tool` span per tool
 * call, with the GenAI semantic conventions' attribute names; failures set
 * the span status; no prompt or completion text unless asked for.
 */
import { ProxyTracer, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, vi } from "vitest";
import {
  createRecordingTool,
  createScriptedModel,
  createVirtualClock,
  response,
  runCheckedTurn,
  runScriptedTurn,
  text,
  toolCall,
  usageOf as usage,
} from "../../src/testing/index.js";
import { spanTree } from "./span-tree.js";

function inMemoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

describe("OpenTelemetry spans", () => {
  it("a turn with a retried request, two parallel tools (one failing) and a failed last request", async () => {
    const { exporter, tracer } = inMemoryTracer();
    const clock = createVirtualClock({ autoAdvance: true });
    const model = createScriptedModel(
      [
        response([], { stopReason: "error", errorMessage: "429 Too Many Requests" }),
        response([toolCall("lookup", { value: "a" }), toolCall("broken", { value: "b" })], {
          usage: usage(100, 20, 0.5),
        }),
        response([], { stopReason: "error", errorMessage: "401 invalid x-api-key", usage: usage(5, 0, 0.25) }),
      ],
      { clock, eventDelayMs: 100 },
    );
    const lookup = createRecordingTool("lookup", {
      executionMode: "parallel",
      answer: () =>
        new Promise((resolve) => clock.setTimeout(() => resolve({ content: [{ type: "text", text: "found" }] }), 300)),
    });
    const broken = createRecordingTool("broken", {
      executionMode: "parallel",
      answer: () => Promise.reject(new Error("disk on fire")),
    });
    const turn = await runCheckedTurn({
      model,
      input: {
        tools: [lookup, broken],
        llmRetry: { baseDelayMs: 1000 },
        llm: { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 },
      },
      runnerOptions: { clock, random: () => 0.5, telemetry: { tracer } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "auth" } });

    // 200 ms for the rate-limited attempt, a 750 ms wait, 1000 ms for the answer with two calls (10 events);
    // the calls run side by side (one fails at once, the other takes 300 ms); the last request fails after 200 ms.
    expect(spanTree(exporter.getFinishedSpans())).toEqual([
      'invoke_agent [INTERNAL] 0-2450ms ERROR(auth: 401 invalid x-api-key) gen_ai.conversation.id="session-1" gen_ai.operation.name="invoke_agent" gen_ai.provider.name="scripted" gen_ai.request.model="scripted-model" gen_ai.usage.input_tokens=105 gen_ai.usage.output_tokens=20 turnkit.turn.id="turn-1" turnkit.turn.outcome="failed" turnkit.usage.cost=0.75',
      '  chat scripted-model [CLIENT] 0-1950ms gen_ai.operation.name="chat" gen_ai.provider.name="scripted" gen_ai.request.model="scripted-model" gen_ai.response.finish_reasons=["toolUse"] gen_ai.response.model="scripted-model" gen_ai.usage.input_tokens=100 gen_ai.usage.output_tokens=20 turnkit.request.family="main"',
      '    @200ms turnkit.attempt turnkit.attempt=1 turnkit.attempt.outcome="error" error.type="rate_limited" gen_ai.usage.input_tokens=0 gen_ai.usage.output_tokens=0',
      '    @200ms turnkit.retry_wait turnkit.attempt=1 turnkit.retry.delay_ms=750 error.type="rate_limited"',
      '    @1950ms turnkit.attempt turnkit.attempt=2 turnkit.attempt.outcome="ok" gen_ai.usage.input_tokens=100 gen_ai.usage.output_tokens=20',
      '  execute_tool broken [INTERNAL] 1950-1950ms ERROR(tool_error: disk on fire) gen_ai.operation.name="execute_tool" gen_ai.tool.call.id="call_2" gen_ai.tool.name="broken" gen_ai.tool.type="function" turnkit.tool.queued_ms=0 turnkit.tool.run_ms=0',
      '  execute_tool lookup [INTERNAL] 1950-2250ms gen_ai.operation.name="execute_tool" gen_ai.tool.call.id="call_1" gen_ai.tool.name="lookup" gen_ai.tool.type="function" turnkit.tool.queued_ms=0 turnkit.tool.run_ms=300',
      '  chat scripted-model [CLIENT] 2250-2450ms ERROR(auth: 401 invalid x-api-key) gen_ai.operation.name="chat" gen_ai.provider.name="scripted" gen_ai.request.model="scripted-model" gen_ai.response.finish_reasons=["error"] gen_ai.response.model="scripted-model" gen_ai.usage.input_tokens=5 gen_ai.usage.output_tokens=0 turnkit.request.family="main"',
      '    @2450ms turnkit.attempt turnkit.attempt=1 turnkit.attempt.outcome="error" error.type="auth" gen_ai.usage.input_tokens=5 gen_ai.usage.output_tokens=0',
    ]);
  });

  it("records prompt and completion text only when the host opts in", async () => {
    const quiet = inMemoryTracer();
    await runScriptedTurn({
      script: [response([text("The secret is 42.")])],
      runnerOptions: { telemetry: { tracer: quiet.tracer } },
    });
    expect(JSON.stringify(quiet.exporter.getFinishedSpans().map((span) => span.attributes))).not.toContain("secret");

    const verbose = inMemoryTracer();
    await runScriptedTurn({
      script: [response([text("The secret is 42.")])],
      input: { userMessage: { text: "What is the secret?" } },
      runnerOptions: { telemetry: { tracer: verbose.tracer, recordContent: true } },
    });
    const chat = verbose.exporter.getFinishedSpans().find((span) => span.name.startsWith("chat"))!;
    expect(chat.attributes["gen_ai.input.messages"]).toContain("What is the secret?");
    expect(chat.attributes["gen_ai.output.messages"]).toContain("The secret is 42.");
  });

  it("without a tracer and without a registered SDK, a turn runs as before and creates no span, not even a no-op one", async () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, "startSpan");
    try {
      const turn = await runScriptedTurn({ script: ["Hi."] });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expect(startSpan).not.toHaveBeenCalled();
    } finally {
      startSpan.mockRestore();
    }
  });

  it("without a tracer, a turn records to the SDK registered globally when it starts, and nothing once it is unregistered", async () => {
    const exporter = new InMemorySpanExporter();
    await runScriptedTurn({ script: ["Before."] });
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    try {
      await runScriptedTurn({ script: ["Traced."] });
    } finally {
      trace.disable();
    }
    await runScriptedTurn({ script: ["After."] });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => `${span.name} ${span.instrumentationScope.name}`).sort()).toEqual([
      "chat scripted-model @turnkit/agent-core",
      "invoke_agent @turnkit/agent-core",
    ]);
    expect(spans.find((span) => span.name === "invoke_agent")?.attributes["gen_ai.operation.name"]).toBe(
      "invoke_agent",
    );
  });
});
