/**
 * Model fallback through a real turn: pi-ai's openai-completions provider
 * against two fake servers on 127.0.0.1, the turn's model on one and its
 * fallback model (another key, other prices) on the other. A request moves
 * on only after the named failures, once the first model's retries are
 * spent, never after output; the switch is a warning, the request's timing
 * lists both models, and the cost is the fallback model's.
 */
import { type AssistantMessage, streamSimple } from "@mariozechner/pi-ai";
import { createScriptedModel, errorAfter, runCheckedTurn } from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { LlmFallbackOptions } from "../../src/call-stack/model-fallback.js";
import { TurnkitConfigError } from "../../src/errors.js";
import { PiTurnRunner } from "../../src/index.js";
import { fakeModel, reply, type ScriptStep } from "../support/fake-openai-server.js";
import { serve } from "../support/http-call-stack.js";

const PRIMARY_COST = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
const BACKUP_COST = { input: 10, output: 20, cacheRead: 0, cacheWrite: 0 };

async function turnWithFallback(primaryScript: ScriptStep[], options: Partial<LlmFallbackOptions> = {}) {
  const primary = await serve(...primaryScript);
  const backup = await serve(reply.text(["answer ", "from backup"]));
  const backupModel = fakeModel(backup.baseUrl, { id: "backup-model", provider: "backup", cost: BACKUP_COST });
  const turn = await runCheckedTurn({
    input: {
      llm: {
        model: fakeModel(primary.baseUrl, { id: "primary-model", cost: PRIMARY_COST }),
        apiKey: "sk-primary",
        streamFn: streamSimple,
        fallback: { models: [{ model: backupModel, apiKey: "sk-backup" }], ...options },
      },
      llmRetry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    },
  });
  const status = turn.writer.ofType("session.status").at(-1)!.payload as Extract<
    RuntimeEvent,
    { type: "session.status" }
  >["payload"] & { usage?: any; timing?: any };
  const warnings = turn.writer.ofType("runtime.warning").map((event) => event.payload);
  return { turn, primary, backup, status, warnings };
}

describe("model fallback", () => {
  it.each([
    ["overloaded", 529, "Overloaded", 2],
    ["unavailable", 503, "Service Unavailable", 2],
    ["quota", 429, "You exceeded your current quota, please check your plan and billing details.", 1],
  ] as const)(
    "after %s (HTTP %i), once the retries are spent, the backup model answers",
    async (trigger, status, text, sent) => {
      const failure = reply.status(status, text);
      const {
        turn,
        primary,
        backup,
        status: final,
        warnings,
      } = await turnWithFallback([failure, failure], {
        on: [trigger],
      });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expect(primary.requests).toHaveLength(sent);
      expect(backup.requests).toHaveLength(1);
      expect(primary.requests[0]!.headers.authorization).toBe("Bearer sk-primary");
      expect(backup.requests[0]!.headers.authorization).toBe("Bearer sk-backup");
      expect(backup.requests[0]!.body.model).toBe("backup-model");
      const texts = turn.writer
        .ofType("stream.resp")
        .map((event) => event.payload.chunk)
        .filter((chunk) => chunk.kind === "text")
        .map((chunk) => (chunk as { delta: string }).delta);
      expect(texts.join("")).toBe("answer from backup");
      const fallback = warnings.filter((warning) => warning.code === "model_fallback");
      expect(fallback).toEqual([
        {
          code: "model_fallback",
          message: expect.stringContaining("openai/primary-model failed"),
          family: "main",
          from: "openai/primary-model",
          to: "backup/backup-model",
          trigger,
          error: expect.objectContaining({ message: expect.any(String) }),
        },
      ]);
      expect(final.timing.requests).toEqual([
        expect.objectContaining({ attempts: sent + 1, models: ["openai/primary-model", "backup/backup-model"] }),
      ]);
    },
  );

  it("costs are the fallback model's: the answer is priced at its rates", async () => {
    const { status } = await turnWithFallback([reply.status(503), reply.status(503)]);
    // The backup answered 11 input and 2 output tokens (textChunks' usage); the failed attempts reported none.
    const expected = (11 * BACKUP_COST.input + 2 * BACKUP_COST.output) / 1_000_000;
    expect(status.usage.total.input).toBe(11);
    expect(status.usage.total.output).toBe(2);
    expect(status.usage.total.cost.total).toBeCloseTo(expected, 12);
    expect(status.usage.attempts.main).toBe(3);
  });

  it("a failure not named in `on` ends the request on the turn's model", async () => {
    const limited = reply.status(429, "Rate limit reached");
    const { turn, primary, backup, warnings } = await turnWithFallback([limited, limited], { on: ["overloaded"] });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "rate_limited" } });
    expect(primary.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(0);
    expect(warnings.some((warning) => warning.code === "model_fallback")).toBe(false);
  });

  it("never after output: a stream cut after text ends the turn on the turn's model", async () => {
    const cut: ScriptStep = { ...reply.text(["partial ", "answer ", "more"]), resetAfter: 2 } as ScriptStep;
    const { turn, primary, backup, warnings } = await turnWithFallback([cut], { on: ["network", "unavailable"] });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "network" } });
    expect(primary.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
    expect(warnings.some((warning) => warning.code === "model_fallback")).toBe(false);
  });

  it("rejects a malformed list before any event, naming the field", async () => {
    const model = fakeModel("http://127.0.0.1:9");
    const run = (fallback: unknown) =>
      new PiTurnRunner().runTurn({
        sessionId: "s",
        turnId: "t",
        systemPrompt: "",
        userMessage: { text: "hi" },
        llm: { model, fallback: fallback as LlmFallbackOptions },
        eventWriter: { push: () => {} },
      });
    await expect(run({ models: [{ apiKey: "k" }] })).rejects.toThrow(/^llm\.fallback\.models\[0\]\.model must be/);
    await expect(run({ models: [{ model }], on: ["overloaded", "busy"] })).rejects.toThrow(/^llm\.fallback\.on\[1\]/);
    await expect(run({ models: [{ model, maxTokens: 0 }] })).rejects.toThrow(/llm\.fallback\.models\[0\]\.maxTokens/);
    await expect(run({ models: [{ model, apikey: "k" }] })).rejects.toThrow(/did you mean 'apiKey'/);
    await expect(run({ models: [{ apiKey: "k" }] })).rejects.toSatisfy(TurnkitConfigError.isInstance);
  });

  it("rejects a fallback model's malformed options before any event, naming the field and never a header's value", async () => {
    const model = fakeModel("http://127.0.0.1:9");
    const events: unknown[] = [];
    const run = (entry: Record<string, unknown>) =>
      new PiTurnRunner().runTurn({
        sessionId: "s",
        turnId: "t",
        systemPrompt: "",
        userMessage: { text: "hi" },
        llm: { model, fallback: { models: [{ model, ...entry } as never] } },
        eventWriter: { push: (event) => void events.push(event) },
      });
    await expect(run({ thinkingLevel: "maximum" })).rejects.toThrow(
      /^llm\.fallback\.models\[0\]\.thinkingLevel must be one of off, minimal, low, medium, high, xhigh, got "maximum"/,
    );
    await expect(run({ cacheRetention: "forever" })).rejects.toThrow(
      /^llm\.fallback\.models\[0\]\.cacheRetention must be one of none, short, long/,
    );
    await expect(run({ headers: "x-key: 1" })).rejects.toThrow(
      /^llm\.fallback\.models\[0\]\.headers must be an object/,
    );
    const secret = run({ headers: { "x-api-key": 12345678 } });
    await expect(secret).rejects.toThrow(
      /^llm\.fallback\.models\[0\]\.headers\.x-api-key must be a string, got a number$/,
    );
    await expect(run({ model: { ...model, provider: undefined } })).rejects.toThrow(
      /^llm\.fallback\.models\[0\]\.model must be a pi-ai Model/,
    );
    await expect(run({ thinkingLevel: "maximum" })).rejects.toSatisfy(TurnkitConfigError.isInstance);
    expect(events).toEqual([]);
  });

  it("the turn's headers (its credentials among them) go only to a model of the turn's provider; another gets its own", async () => {
    const primary = await serve(reply.status(503), reply.status(503));
    const sameProvider = await serve(reply.status(503));
    const backup = await serve(reply.text(["answer ", "from backup"]));
    const turn = await runCheckedTurn({
      input: {
        llm: {
          model: fakeModel(primary.baseUrl, { id: "primary-model" }),
          apiKey: "sk-primary",
          streamFn: streamSimple,
          headers: { authorization: "Bearer sk-primary-header", "x-team": "a" },
          fallback: {
            models: [
              { model: fakeModel(sameProvider.baseUrl, { id: "primary-mini" }) },
              {
                model: fakeModel(backup.baseUrl, { id: "backup-model", provider: "backup" }),
                apiKey: "sk-backup",
                headers: { "x-backup": "1" },
              },
            ],
          },
        },
        llmRetry: false,
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(sameProvider.requests[0]!.headers).toMatchObject({
      authorization: "Bearer sk-primary-header",
      "x-team": "a",
    });
    const sent = backup.requests[0]!.headers;
    expect(sent.authorization).toBe("Bearer sk-backup");
    expect(sent["x-team"]).toBeUndefined();
    expect(sent["x-backup"]).toBe("1");
  });

  it("a fallback model's own header wins over the turn's of the same name in another case, and is sent once", async () => {
    const primary = createScriptedModel([errorAfter(0, "503 Service Unavailable")], { model: { id: "primary-model" } });
    const mini = createScriptedModel(["answer"], { model: { id: "primary-mini" } });
    const turn = await runCheckedTurn({
      input: {
        llm: {
          model: primary.model,
          streamFn: primary.streamFn,
          headers: { "x-team": "a", "X-Region": "eu" },
          fallback: { models: [{ model: mini.model, streamFn: mini.streamFn, headers: { "X-Team": "b" } }] },
        },
        llmRetry: false,
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(primary.requests[0]!.options.headers).toEqual({ "x-team": "a", "X-Region": "eu" });
    // A stream function of the host's own reads the headers as given: one name, one value.
    expect(mini.requests[0]!.options.headers).toEqual({ "X-Region": "eu", "X-Team": "b" });
  });
});

describe("model fallback, every request a host sees or a hook sends", () => {
  /** A turn's model that answers 529 twice (one retry), and a backup of another provider that answers. */
  function overloadedWithBackup(backupScript: Parameters<typeof createScriptedModel>[0]) {
    const primary = createScriptedModel(
      [errorAfter(0, "529 Overloaded"), errorAfter(0, "529 Overloaded"), "answer from the turn's model"],
      { model: { id: "primary-model" } },
    );
    const backup = createScriptedModel(backupScript, { model: { id: "backup-model", provider: "backup" } });
    const llm = {
      model: primary.model,
      streamFn: primary.streamFn,
      maxTokens: 4_000,
      fallback: { models: [{ model: backup.model, streamFn: backup.streamFn, maxTokens: 1_000 }] },
    };
    return { primary, backup, llm, llmRetry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } };
  }

  it("onLlmCallPreparedHook sees the fallback model's request too: once per model, with the options sent to it", async () => {
    const { primary, backup, llm, llmRetry } = overloadedWithBackup(["answer from backup"]);
    const prepared: { requestIndex: number; model: string; maxTokens: unknown }[] = [];
    const turn = await runCheckedTurn({
      input: {
        llm,
        llmRetry,
        hooks: {
          onLlmCallPreparedHook: (event) => {
            prepared.push({
              requestIndex: event.requestIndex,
              model: `${event.model.provider}/${event.model.id}`,
              maxTokens: event.options.maxTokens,
            });
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(primary.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
    // The retry of the turn's model is not shown again; the request to the backup is, with its own maxTokens.
    expect(prepared).toEqual([
      { requestIndex: 0, model: "scripted/primary-model", maxTokens: 4_000 },
      { requestIndex: 0, model: "backup/backup-model", maxTokens: 1_000 },
    ]);
  });

  it("a hook's own request (auxiliaryStreamFn) falls back as a main request does, reported with family auxiliary", async () => {
    const { primary, backup, llm, llmRetry } = overloadedWithBackup(["summary from backup"]);
    let summary: AssistantMessage | undefined;
    const turn = await runCheckedTurn({
      input: {
        llm: { ...llm, fallback: { ...llm.fallback, on: ["overloaded" as const] } },
        llmRetry,
        hooks: {
          beforeLlmCallHook: async (event) => {
            if (summary) return undefined;
            const stream = await event.auxiliaryStreamFn(
              event.model,
              { messages: [{ role: "user", content: "Summarise the conversation.", timestamp: 0 }] },
              {},
            );
            summary = await stream.result();
            return undefined;
          },
        },
      },
    });
    expect(summary).toMatchObject({ stopReason: "stop", provider: "backup", model: "backup-model" });
    expect(summary!.content).toEqual([{ type: "text", text: "summary from backup" }]);
    // The main request then went to the turn's model, which answered it.
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(1);
    expect(turn.transcript.at(-1)).toMatchObject({ role: "assistant", model: "primary-model" });
    const warnings = turn.writer.ofType("runtime.warning").map((event) => event.payload);
    expect(warnings.filter((warning) => warning.code === "model_fallback")).toEqual([
      expect.objectContaining({ family: "auxiliary", from: "scripted/primary-model", to: "backup/backup-model" }),
    ]);
    expect(turn.outcome).toEqual({ kind: "completed" });
  });

  it("a hook's request to another provider's model that falls back to one of the turn's provider gets the turn's key and headers", async () => {
    const summariser = createScriptedModel([errorAfter(0, "529 Overloaded"), "main answer"]);
    const backup = createScriptedModel(["summary from backup"], { model: { id: "backup-model" } });
    const turn = await runCheckedTurn({
      input: {
        llm: {
          model: summariser.model,
          streamFn: summariser.streamFn,
          apiKey: "sk-turn",
          headers: { "x-team": "a" },
          fallback: { models: [{ model: backup.model, streamFn: backup.streamFn }] },
        },
        llmRetry: false,
        hooks: {
          beforeLlmCallHook: async (event) => {
            if (backup.requests.length > 0) return undefined;
            const cheap = { ...event.model, provider: "cheap", id: "cheap-summariser" };
            const summary = await event.auxiliaryStreamFn(cheap, { messages: [] }, { apiKey: "sk-cheap" });
            await summary.result();
            return undefined;
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    // The summary model (another provider) got its own key only; the backup, of the turn's provider, the turn's.
    expect(summariser.requests[0]!.options).toMatchObject({ apiKey: "sk-cheap" });
    expect(summariser.requests[0]!.options?.headers).toBeUndefined();
    expect(backup.requests[0]!.options).toMatchObject({ apiKey: "sk-turn", headers: { "x-team": "a" } });
  });
});
