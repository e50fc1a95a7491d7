/*
 * The turns the crash tests run, in worker processes. The model is a pure
 * function of the request (a fresh scripted response per request), so a
 * restarted worker answers a re-sent request the same way. Everything that
 * must be counted from outside a worker (model requests, tool starts and
 * ends, session overlap) is appended to a shared file.
 */
import { appendFileSync, existsSync } from "node:fs";
import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { type BeforeLlmCallHook, createHiddenMessage, defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall, type ScriptEntry } from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import { durableTool, idempotencyKeyOf, type BuildDurableTurn, type DurableTurnRequest } from "../../src/index.js";
import { type CountRecord, readCountFile } from "./count-file.js";

export type { CountRecord } from "./count-file.js";

function record(file: string, entry: Omit<CountRecord, "at">): void {
  appendFileSync(file, `${JSON.stringify({ ...entry, worker: process.env.WORKER_ID, at: Date.now() })}\n`);
}

/**
 * True when the count file already holds a record like `entry` (same turn,
 * kind, and detail or position): this request is sent again, or this call
 * runs again, after a crash. Only timing depends on it (see `resendDelayMs`
 * and `rerunToolMs`): a test gives the first attempt a slow stream or a long
 * call, so its kill surely lands in the middle however loaded the machine
 * is, and the attempt after the crash a fast one.
 */
function recordedBefore(
  file: string,
  entry: Pick<CountRecord, "kind" | "turnId" | "sessionId" | "detail" | "position">,
): boolean {
  return readCountFile(file).some(
    (r) =>
      r.kind === entry.kind &&
      r.turnId === entry.turnId &&
      r.sessionId === entry.sessionId &&
      (entry.detail === undefined || r.detail === entry.detail) &&
      (entry.position === undefined || r.position === entry.position),
  );
}

/** Resolves once `file` exists (looked for every 20 ms) or `signal` aborts; rejects after 30 s. */
async function untilFileExists(file: string, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) && signal?.aborted !== true) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function lastMessage(context: Context) {
  return context.messages[context.messages.length - 1];
}

function lastUserText(context: Context): string {
  const last = lastMessage(context);
  if (last?.role !== "user") return "";
  return typeof last.content === "string"
    ? last.content
    : last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** The scripted answer of each scenario to the conversation so far. */
function answer(request: DurableTurnRequest, context: Context, requestIndex: number, resent: boolean): ScriptEntry {
  const scenario = String(request.metadata?.scenario ?? "quick");
  // A request sent again after a crash streams at `resendDelayMs` when the turn gives one, and one sent by another
  // worker than `slowOn` (when the turn names one) at `fastDelayMs`.
  const elsewhere = request.metadata?.slowOn !== undefined && request.metadata.slowOn !== process.env.WORKER_ID;
  const delayMs = (fallback: number) =>
    Number(
      (resent ? request.metadata?.resendDelayMs : undefined) ??
        (elsewhere ? request.metadata?.fastDelayMs : undefined) ??
        request.metadata?.delayMs ??
        fallback,
    );
  const last = lastMessage(context);
  const callId = `${request.turnId}-call-${requestIndex}`;
  switch (scenario) {
    case "stream": {
      const deltas = Number(request.metadata?.deltas ?? 60);
      const words = Array.from({ length: deltas }, (_, i) => `w${i} `).join("");
      return response(words, { eventDelayMs: delayMs(25) });
    }
    case "parallel": {
      if (last?.role === "toolResult") return response("after the parallel calls");
      // One quick call and two that run until the worker is killed (far longer than any test), so the
      // crash finds them running however slowly a loaded machine gets there.
      const ms = [50, 600_000, 600_000];
      return response(
        ms.map((wait, i) =>
          toolCall("parallel_read", { path: `${request.turnId}-${i}.txt`, ms: wait }, { id: `${callId}-${i}` }),
        ),
      );
    }
    case "tool":
    case "safe-tool":
    case "approval":
    case "ask":
    case "steer": {
      if (last?.role === "toolResult") {
        const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
        const tail = Array.from({ length: Number(request.metadata?.afterToolDeltas ?? 0) }, (_, i) => ` a${i}`).join(
          "",
        );
        return response(`after tool: ${text.slice(0, 40)}${tail}`, {
          eventDelayMs: delayMs(0),
        });
      }
      if (lastUserText(context).startsWith("steer:")) return response(`heard ${lastUserText(context)}`);
      const tools: Record<string, string> = { approval: "guarded_write", "safe-tool": "safe_read", ask: "ask_branch" };
      const tool = tools[scenario] ?? "slow_write";
      return response([toolCall(tool, { path: `${request.turnId}.txt` }, { id: callId })]);
    }
    case "answer-then-tool": {
      // The first attempt of the first request answers in words, slowly (time to steer it); sent again after a
      // crash it asks for a tool call instead, as a real model may answer a request sent twice differently.
      if (last?.role === "toolResult") return response("after tool");
      if (lastUserText(context).startsWith("steer:")) return response(`heard ${lastUserText(context)}`);
      if (resent) return response([toolCall("slow_write", { path: `${request.turnId}.txt` }, { id: callId })]);
      const words = Array.from({ length: Number(request.metadata?.deltas ?? 20) }, (_, i) => `w${i} `).join("");
      return response(words, { eventDelayMs: delayMs(100) });
    }
    case "sub-agent": {
      // The parent asks its `explore` sub-agent, then answers with what it found.
      if (last?.role === "toolResult") {
        const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
        return response(`after explore: ${text.slice(0, 60)}`);
      }
      return response([toolCall("explore", { task: "look around" }, { id: callId })]);
    }
    case "parallel-sub-agents": {
      // Three calls of the parallel `scout` sub-agent in one response, then an answer with what each found.
      if (last?.role === "toolResult") {
        const texts = context.messages.flatMap((m) =>
          m.role === "toolResult"
            ? [
                m.content
                  .map((b) => (b.type === "text" ? b.text : ""))
                  .join("")
                  .slice(0, 30),
              ]
            : [],
        );
        // `afterDeltas` more words at `afterDelayMs` each (fast when sent again), for a kill after the calls.
        const tail = Array.from({ length: Number(request.metadata?.afterDeltas ?? 0) }, (_, i) => ` a${i}`).join("");
        const afterDelayMs = resent ? request.metadata?.resendDelayMs : request.metadata?.afterDelayMs;
        return response(`after scouts: ${texts.join(" | ")}${tail}`, { eventDelayMs: Number(afterDelayMs ?? 0) });
      }
      return response(
        SCOUT_TASKS.map((task) => toolCall("scout", { task }, { id: `${request.turnId}-scout-${task}` })),
      );
    }
    case "compaction": {
      // The summary request of the test's compaction hook; then a tool call, then a slow answer (fast when sent again).
      if (context.systemPrompt === SUMMARY_PROMPT) return response("Summary: the user wants a file written.");
      if (last?.role !== "toolResult")
        return response([toolCall("slow_write", { path: `${request.turnId}.txt` }, { id: callId })]);
      const words = Array.from({ length: Number(request.metadata?.deltas ?? 40) }, (_, i) => `w${i} `).join("");
      return response(words, { eventDelayMs: delayMs(25) });
    }
    case "chaos":
      return chaosAnswer(request, context);
    default:
      return response("ok", { eventDelayMs: 0 });
  }
}

/**
 * The chaos test's turns (`metadata.plan`): `stream` a long answer, `tool` one
 * `never` call, `safe` one `safe` call, `parallel` three parallel calls,
 * `approval` a call that needs a person, `sub-agent` a call of `explore`,
 * `sub-agents` three parallel calls of `scout`. After the calls, or after steering,
 * a streamed answer. Call ids follow the request's place in the turn, so a
 * re-sent request asks for the same calls.
 */
function chaosAnswer(request: DurableTurnRequest, context: Context): ScriptEntry {
  const last = lastMessage(context);
  const timing = { eventDelayMs: 15 };
  const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i} `).join("");
  if (last?.role === "toolResult") return response(`after the calls: ${words(20, "a")}`, timing);
  if (lastUserText(context).startsWith("steer:")) return response(`heard ${lastUserText(context)}`, timing);
  const id = (i: number) => `${request.turnId}-m${context.messages.length}-${i}`;
  const path = `${request.turnId}.txt`;
  switch (String(request.metadata?.plan)) {
    case "tool":
      return response([toolCall("slow_write", { path }, { id: id(0) })]);
    case "safe":
      return response([toolCall("safe_read", { path }, { id: id(0) })]);
    case "approval":
      return response([toolCall("guarded_write", { path }, { id: id(0) })]);
    case "sub-agent":
      // The `explore` sub-agent, whose own call needs a person's approval.
      return response([toolCall("explore", { task: "look around" }, { id: id(0) })]);
    case "sub-agents":
      // Three parallel calls of the `scout` sub-agent: one streams, one runs a tool, one needs a person's approval.
      return response(SCOUT_TASKS.map((task, i) => toolCall("scout", { task }, { id: id(i) })));
    case "parallel":
      return response(
        [150, 400, 900].map((ms, i) =>
          toolCall("parallel_read", { path: `${request.turnId}-${i}.txt`, ms }, { id: id(i) }),
        ),
      );
    default:
      return response(words(60, "w"), timing);
  }
}

/**
 * The stream function of a scenario turn: records each request, then answers from a fresh scripted model; with
 * `streamAfter`, only once the test wrote the file of that name beside the count file.
 */
function scenarioStreamFn(request: DurableTurnRequest, countFile: string): StreamFn {
  let requests = 0;
  return async (model, context, options) => {
    const index = requests++;
    const ids = { turnId: request.turnId, sessionId: request.sessionId };
    const resent = recordedBefore(countFile, { kind: "model", ...ids, position: context.messages.length });
    const detail = context.systemPrompt === SUMMARY_PROMPT ? "summary" : String(index);
    record(countFile, { kind: "model", ...ids, detail, position: context.messages.length });
    const after = request.metadata?.streamAfter;
    if (after !== undefined) await untilFileExists(`${countFile}.${String(after)}`, options?.signal);
    const scripted = createScriptedModel([answer(request, context, index, resent)]);
    return scripted.streamFn(model, context, options);
  };
}

/**
 * The stream function of the `explore` sub-agent: one call of `child_read`
 * (or two parallel calls of `parallel_read` with `childParallel`), then a streamed answer (`childDeltas` words at `delayMs` each, fast when
 * sent again after a crash). Each request is recorded as a `model` count
 * with detail `child`.
 */
function childStreamFn(request: DurableTurnRequest, countFile: string): StreamFn {
  return (model, context, options) => {
    const ids = { turnId: request.turnId, sessionId: request.sessionId };
    const position = context.messages.length;
    const resent = recordedBefore(countFile, { kind: "model", ...ids, detail: "child", position });
    record(countFile, { kind: "model", ...ids, detail: "child", position });
    const delayMs = Number((resent ? request.metadata?.resendDelayMs : undefined) ?? request.metadata?.delayMs ?? 0);
    const words = Array.from({ length: Number(request.metadata?.childDeltas ?? 20) }, (_, i) => ` c${i}`).join("");
    // With `childParallel`: two `parallel_read` calls at once, a quick one and one that runs until the kill.
    const calls = request.metadata?.childParallel
      ? [50, 600_000].map((ms, i) =>
          toolCall(
            "parallel_read",
            { path: `${request.turnId}-${i}.txt`, ms },
            { id: `${request.turnId}-child-p${i}` },
          ),
        )
      : [toolCall("child_read", { path: `${request.turnId}.txt` }, { id: `${request.turnId}-child-call` })];
    const entry =
      lastMessage(context)?.role === "toolResult"
        ? response(`found it:${words}`, { eventDelayMs: delayMs })
        : response(calls);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
}

/** The tasks of the `scout` sub-agent's calls: what its child does (see {@link scoutStreamFn}). */
const SCOUT_TASKS = ["stream", "tool", "approval"] as const;

/**
 * The stream function of the `scout` sub-agent, whose calls run in
 * parallel; by its task (the child's first message): `stream` calls the
 * quick `parallel_read`, then streams its answer (`childDeltas` words at
 * `delayMs` each, fast when sent again after a crash); `tool` calls
 * `child_read` (`never`, running `toolMs`); `approval` calls `guarded_read`
 * (a person's approval first); each then answers with what it got. Each
 * request is recorded as a `model` count with detail `scout:<task>`.
 */
function scoutStreamFn(request: DurableTurnRequest, countFile: string): StreamFn {
  return (model, context, options) => {
    const first = context.messages[0];
    const task =
      first?.role === "user" && typeof first.content !== "string"
        ? first.content.map((block) => (block.type === "text" ? block.text : "")).join("")
        : String(first?.content ?? "");
    const ids = { turnId: request.turnId, sessionId: request.sessionId };
    const position = context.messages.length;
    const detail = `scout:${task}`;
    const resent = recordedBefore(countFile, { kind: "model", ...ids, detail, position });
    record(countFile, { kind: "model", ...ids, detail, position });
    const last = lastMessage(context);
    let entry: ScriptEntry;
    if (last?.role === "toolResult") {
      const got = last.content
        .map((block) => (block.type === "text" ? block.text : ""))
        .join("")
        .slice(0, 20);
      const slow = task === "stream";
      const delayMs = slow
        ? Number((resent ? request.metadata?.resendDelayMs : undefined) ?? request.metadata?.delayMs ?? 0)
        : 0;
      const words = Array.from({ length: slow ? Number(request.metadata?.childDeltas ?? 20) : 3 }, (_, i) => ` s${i}`);
      entry = response(`${task} got ${got}:${words.join("")}`, { eventDelayMs: delayMs });
    } else {
      const id = `${request.turnId}-${task}-call`;
      const path = `${request.turnId}-${task}.txt`;
      entry = response([
        task === "stream"
          ? toolCall("parallel_read", { path, ms: 50 }, { id })
          : toolCall(task === "tool" ? "child_read" : "guarded_read", { path }, { id }),
      ]);
    }
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
}

/** The system prompt of the compaction hook's summary request. */
const SUMMARY_PROMPT = "Summarise the conversation.";

/**
 * A compaction as a host hook makes one: before the turn's first request it
 * asks the model for a summary through `auxiliaryStreamFn` and replaces the
 * history with the summary followed by every message. Each call is counted
 * (kind `hook`), so a test sees a hook called twice.
 */
const summariseFirst =
  (countFile: string, request: DurableTurnRequest): BeforeLlmCallHook =>
  async (event) => {
    if (event.reason !== "request" || event.requestIndex !== 0) return undefined;
    record(countFile, { kind: "hook", turnId: request.turnId, sessionId: request.sessionId, detail: "compaction" });
    const stream = await event.auxiliaryStreamFn(
      event.model,
      { systemPrompt: SUMMARY_PROMPT, messages: [] },
      { signal: event.signal },
    );
    const summary = await stream.result();
    const text = summary.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return {
      type: "replaceMessages",
      messages: [createHiddenMessage(text, "compaction"), ...event.messages],
      description: "the test's compaction",
    };
  };

/** `buildTurn` of the test workers. */
export function scenarioBuildTurn(countFile: string): BuildDurableTurn {
  return (request) => {
    if (request.metadata?.scenario === "broken") throw new Error("no model is configured for this turn");
    const toolMs = Number(request.metadata?.toolMs ?? 1500);
    const slow = (name: string, fixedMs?: number) =>
      defineRuntimeTool({
        name,
        description: `Writes a file slowly (${name})`,
        parameters: Type.Object({ path: Type.String() }),
        execute: async (ctx, { path }, signal) => {
          // A call run again after a crash takes `rerunToolMs` when the turn gives one.
          const ids = { turnId: request.turnId, sessionId: request.sessionId, detail: ctx.toolCallId };
          const rerun = recordedBefore(countFile, { kind: "tool-start", ...ids });
          const ms = fixedMs ?? Number((rerun ? request.metadata?.rerunToolMs : undefined) ?? toolMs);
          record(countFile, {
            kind: "tool-start",
            turnId: request.turnId,
            sessionId: request.sessionId,
            detail: ctx.toolCallId,
            key: idempotencyKeyOf(ctx),
          });
          // With `toolUntil`, the call runs until the test writes the file of that name beside the count file.
          const until = request.metadata?.toolUntil;
          if (until !== undefined) await untilFileExists(`${countFile}.${String(until)}`, signal);
          else
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, ms);
              signal.addEventListener("abort", () => {
                clearTimeout(timer);
                resolve();
              });
            });
          if (signal.aborted) return { content: [{ type: "text", text: "stopped" }], isError: true };
          record(countFile, {
            kind: "tool-end",
            turnId: request.turnId,
            sessionId: request.sessionId,
            detail: ctx.toolCallId,
          });
          return { content: [{ type: "text", text: `wrote ${path}` }] };
        },
      });
    const parallelRead = defineRuntimeTool({
      name: "parallel_read",
      description: "Reads a file, taking ms milliseconds; calls run in parallel",
      parameters: Type.Object({ path: Type.String(), ms: Type.Number() }),
      executionMode: "parallel",
      execute: async (ctx, { path, ms }) => {
        record(countFile, {
          kind: "tool-start",
          turnId: request.turnId,
          sessionId: request.sessionId,
          detail: ctx.toolCallId,
        });
        await new Promise((resolve) => setTimeout(resolve, ms));
        record(countFile, {
          kind: "tool-end",
          turnId: request.turnId,
          sessionId: request.sessionId,
          detail: ctx.toolCallId,
        });
        return { content: [{ type: "text", text: `read ${path}` }] };
      },
    });
    // Asks the person which branch to use (an elicitation, as an MCP server's); run again after a crash
    // (`replay: "safe"`), or given up with `askReplay: "never"`.
    const askBranch = defineRuntimeTool({
      name: "ask_branch",
      description: "Asks the person which branch to use",
      parameters: Type.Object({ path: Type.String() }),
      execute: async (ctx) => {
        const ids = { turnId: request.turnId, sessionId: request.sessionId, detail: ctx.toolCallId };
        record(countFile, { kind: "tool-start", ...ids });
        const outcome = await ctx.askHost!({
          kind: "elicitation",
          message: "Which branch?",
          requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
          serverName: "git",
        });
        record(countFile, { kind: "tool-end", ...ids });
        const answer = outcome.kind === "answered" ? outcome.answer : undefined;
        const text = answer?.action === "accept" ? `branch ${answer.content.branch}` : outcome.kind;
        return { content: [{ type: "text", text }] };
      },
    });
    const model = createScriptedModel([]).model;
    // A sub-agent with a `never` tool of its own (`child_read`, slow like `slow_write`; needing approval with `childApproval`).
    const explore = defineSubAgent({
      name: "explore",
      description: "Explores the workspace",
      systemPrompt: "You explore.",
      llm: { model, streamFn: childStreamFn(request, countFile) },
      tools: [
        durableTool(slow("child_read"), {
          requiresApproval: request.metadata?.childApproval === true || request.metadata?.plan === "sub-agent",
        }),
        parallelRead,
      ],
      llmRetry: false,
    });
    // A sub-agent whose calls run in parallel, with a `never` tool, a quick parallel one and one needing approval.
    const scout = defineSubAgent({
      name: "scout",
      description: "Scouts one thing",
      systemPrompt: "You scout.",
      llm: { model, streamFn: scoutStreamFn(request, countFile) },
      tools: [slow("child_read"), parallelRead, durableTool(slow("guarded_read", 20), { requiresApproval: true })],
      llmRetry: false,
      executionMode: "parallel",
    });
    return {
      systemPrompt: "You are a test assistant.",
      llm: { model, streamFn: scenarioStreamFn(request, countFile) },
      llmRetry: false,
      approvalTimeoutMs:
        request.metadata?.approvalTimeoutMs === undefined ? undefined : Number(request.metadata.approvalTimeoutMs),
      tools: [
        parallelRead,
        slow("slow_write"),
        durableTool(slow("safe_read"), { replay: "safe" }),
        durableTool(slow("guarded_write"), { requiresApproval: true }),
        durableTool(askBranch, { replay: request.metadata?.askReplay === "never" ? "never" : "safe" }),
        explore,
        scout,
      ],
      hooks: {
        ...(request.metadata?.scenario === "compaction" && { beforeLlmCallHook: summariseFirst(countFile, request) }),
        // Counted outside the worker: a hook that finished is not called again on replay.
        onHistoryChangedHook: (change) => {
          for (const message of change.messages)
            record(countFile, {
              kind: "history",
              turnId: request.turnId,
              sessionId: request.sessionId,
              detail: message.role,
            });
        },
      },
    };
  };
}

/** A `buildTurn` whose turns record when each session's turn starts and ends (for the overlap test). */
export function sessionTrackingBuildTurn(countFile: string): BuildDurableTurn {
  const base = scenarioBuildTurn(countFile);
  return async (request) => {
    const setup = await base(request);
    return {
      ...setup,
      hooks: {
        beforeLlmCallHook: () => {
          record(countFile, { kind: "session-start", turnId: request.turnId, sessionId: request.sessionId });
          return undefined;
        },
        onStepEndHook: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          record(countFile, { kind: "session-end", turnId: request.turnId, sessionId: request.sessionId });
        },
      },
    };
  };
}
