/*
 * Every message a `useChat` page holds, mid-stream and at the end, live and
 * after a reload, must pass the AI SDK's own `validateUIMessages` (what a
 * server runs on the messages a page sends back, or on stored ones) and come
 * out of it unchanged: no part it rejects, no field it drops. Real turns
 * (scripted model): text, reasoning, tools with output and errors, a
 * sub-agent, an elicitation, steering, a retried and a failed request,
 * aborts mid-text and mid-tool; and durable logs: approvals answered yes and
 * no, and a crash's superseded attempt.
 */
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import {
  createRecordingEventWriter,
  createScriptedModel,
  errorAfter,
  response,
  runScriptedTurn,
  text,
  thinking,
  toolCall,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { readUIMessageStream, safeValidateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import {
  type TurnkitUIMessage,
  readTurnUIMessage,
  toUIMessageChunks,
  toUIMessageStreamSse,
  withApprovalAnswers,
  withoutSupersededParts,
} from "../src/index.js";
import { parsedChunks, readLiveWithAiSdk } from "./support/ai-sdk-reader.js";
import { durableLog } from "./support/durable-log.js";
import { asking, broken, echo, slow } from "./support/test-tools.js";

/** Asks its own approval while it runs, and answers whatever it was told. */
const wipe = defineRuntimeTool({
  name: "wipe",
  description: "Asks before it wipes",
  parameters: Type.Object({}),
  execute: async (ctx) => {
    const outcome = await ctx.askHost!({
      kind: "tool_approval",
      toolCallId: ctx.toolCallId,
      toolName: "wipe",
      arguments: {},
    });
    return { content: [{ type: "text", text: JSON.stringify(outcome) }] };
  },
});

async function turn(script: ScriptEntry[], input: Record<string, unknown> = {}): Promise<RuntimeEvent[]> {
  return [
    ...(await runScriptedTurn({ script, input: { tools: [echo, broken, slow, asking, wipe], ...input } })).events,
  ];
}

async function abortedWhen(script: ScriptEntry[], when: (event: RuntimeEvent) => boolean): Promise<RuntimeEvent[]> {
  const abort = new AbortController();
  const writer = createRecordingEventWriter({ onEvent: (event) => void (when(event) && abort.abort()) });
  const result = await runScriptedTurn({ script, writer, input: { tools: [echo, slow], signal: abort.signal } });
  return [...result.events];
}

function deployLog(answer: "approved" | "denied" | "timed out" | "waiting"): RuntimeEvent[] {
  const log = durableLog();
  log.running();
  log.text("t1#m1", "I will deploy once you approve. ");
  log.toolCall("t1#m1", "call_1", "deploy", "preparing", { service: "web" });
  log.approvalAsked("call_1", "deploy", { service: "web" });
  if (answer === "waiting") return log.events;
  log.approvalResult("call_1", answer);
  if (answer === "approved") log.toolCall("t1#m1", "call_1", "deploy", "started", { service: "web" });
  const refused = answer === "denied" ? "Denied." : "Nobody approved this call within 60000 ms; it was not run.";
  log.toolResult("t1#m1", "call_1", "deploy", answer === "approved" ? "web deployed" : refused, answer !== "approved");
  log.finish("t1#m1", "toolUse");
  log.text("t1#m2", "Over.");
  log.finish("t1#m2");
  log.completed();
  return log.events;
}

function crashLog(): RuntimeEvent[] {
  const log = durableLog("notes", "t1");
  log.running();
  const from = log.text("t1#m1", "Done: note ");
  log.toolCall("t1#m1", "call_2", "tag", "preparing", { tag: "a" });
  const to = log.text("t1#m1", "saved, and");
  log.resumed(from, to);
  log.text("t1#m1.r1", "Done: note ");
  log.toolCall("t1#m1.r1", "call_2", "tag", "preparing", { tag: "a" });
  log.toolCall("t1#m1.r1", "call_2", "tag", "started", { tag: "a" });
  log.toolResult("t1#m1.r1", "call_2", "tag", "tagged");
  log.text("t1#m1.r1", "saved, and tagged.");
  log.finish("t1#m1.r1");
  log.completed();
  return log.events;
}

/** Every message `readUIMessageStream` makes of the turn's stream as the AI SDK parses it, first to last. */
async function snapshots(events: readonly RuntimeEvent[]): Promise<TurnkitUIMessage[]> {
  const stream = parsedChunks(toUIMessageStreamSse(toUIMessageChunks(events)));
  const seen: TurnkitUIMessage[] = [];
  for await (const message of readUIMessageStream<TurnkitUIMessage>({ stream, onError: () => {} }))
    seen.push(structuredClone(message));
  return seen;
}

/** The AI SDK's verdict on a chat of one question and `answer`: `undefined` when it passes unchanged. */
async function verdict(answer: TurnkitUIMessage): Promise<string | undefined> {
  const messages = [{ id: "q", role: "user" as const, parts: [{ type: "text" as const, text: "Go." }] }, answer];
  const checked = await safeValidateUIMessages({ messages });
  if (!checked.success) return `${checked.error.message} in ${JSON.stringify(answer.parts.map((p) => p.type))}`;
  // Zod drops what its schema does not name: a field it dropped is one a stored chat would lose.
  return firstDifference(checked.data, messages, "messages");
}

/** Where `after` differs from `before` (keys in any order), as a path; `undefined` when they are the same. */
function firstDifference(after: unknown, before: unknown, path: string): string | undefined {
  if (typeof after !== "object" || typeof before !== "object" || after === null || before === null)
    return Object.is(after, before) ? undefined : `${path}: ${JSON.stringify(before)} became ${JSON.stringify(after)}`;
  const keys = new Set([...Object.keys(after), ...Object.keys(before)]);
  for (const key of keys) {
    const found = firstDifference(
      (after as Record<string, unknown>)[key],
      (before as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
    if (found) return found;
  }
  return undefined;
}

const scenarios: Record<string, () => Promise<RuntimeEvent[]>> = {
  "text, reasoning, tool output and a tool error over two steps": () =>
    turn([
      response([
        thinking("Let me look."),
        text("Checking "),
        toolCall("echo", { value: "abc" }),
        toolCall("broken", {}),
      ]),
      response("All done."),
    ]),
  "a sub-agent's call": async () => {
    const child = createScriptedModel(["Found it."]);
    const explore = defineSubAgent({
      name: "explore",
      description: "Searches",
      systemPrompt: "You search.",
      llm: { model: child.model, streamFn: child.streamFn },
      llmRetry: false,
    });
    return turn([response([toolCall("explore", { task: "find it" })]), response("It is there.")], { tools: [explore] });
  },
  "an elicitation": () =>
    turn([response([toolCall("deploy", {})]), response("Deployed.")], {
      answerActionRequest: () => ({ action: "accept", content: { branch: "main" } }),
    }),
  "an approval a running tool asked itself, granted": () =>
    turn([response([toolCall("wipe", {})]), response("Wiped.")], {
      answerActionRequest: () => ({ approved: true }),
    }),
  "an approval a running tool asked itself, refused (the tool answers anyway)": () =>
    turn([response([toolCall("wipe", {})]), response("Not wiped.")], {
      answerActionRequest: () => ({ approved: false, reason: "no" }),
    }),
  "a steered message": () => {
    let steered = false;
    return turn([response([toolCall("echo", { value: "x" })]), response("Tagged too.")], {
      getSteeringMessages: () => (steered ? [] : ((steered = true), [{ text: "also tag it" }])),
    });
  },
  "a retried, then failed request": () =>
    turn([errorAfter(0, "429 rate limit exceeded"), errorAfter(3, "500 upstream broke")], {
      llmRetry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    }),
  "aborted mid-text": () =>
    abortedWhen([response("one two three four five", { eventDelayMs: 1 })], (e) =>
      JSON.stringify(e).includes('"delta":" two"'),
    ),
  "aborted mid-tool, with parallel calls": () =>
    abortedWhen(
      [response([text("Calling "), toolCall("echo", { value: "a" }), toolCall("slow", {})]), response("never")],
      (e) => e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" && e.payload.chunk.status === "started",
    ),
  "an approval waiting": async () => deployLog("waiting"),
  "an approval granted": async () => deployLog("approved"),
  "an approval denied": async () => deployLog("denied"),
  "an approval not answered in time": async () => deployLog("timed out"),
  "a crash's superseded attempt": async () => crashLog(),
};

describe("the AI SDK's validateUIMessages takes every message a page holds", () => {
  it("an approval's answer is on its tool part, in the history and in what a page shows of the live stream", async () => {
    const part = (message: TurnkitUIMessage) => message.parts.find((p) => p.type === "tool-deploy");
    for (const [answer, state, approval] of [
      ["approved", "output-available", { id: "approval:call_1", approved: true }],
      ["denied", "output-denied", { id: "approval:call_1", approved: false, reason: "Denied." }],
      [
        "timed out",
        "output-denied",
        {
          id: "approval:call_1",
          approved: false,
          reason: "Nobody approved this call within 60000 ms; it was not run.",
        },
      ],
    ] as const) {
      const log = deployLog(answer);
      const live = (await readLiveWithAiSdk(log)).message;
      expect(part(live)).toMatchObject({ state, approval: { id: "approval:call_1" } });
      expect(part(withApprovalAnswers(live))).toMatchObject({ state, approval });
      expect(part(await readTurnUIMessage(log))).toMatchObject({ state, approval });
    }
    // Approved while the page was away: the part it shows is answered, waiting for the call to run.
    const log = deployLog("approved");
    const approvedAt = log.findIndex((e) => e.type === "debug.trace" && e.payload.phase === "durable.approval");
    const untilApproved = await snapshots(log.slice(0, approvedAt + 1));
    expect(part(withApprovalAnswers(untilApproved.at(-1)!))).toMatchObject({
      state: "approval-responded",
      approval: { id: "approval:call_1", approved: true },
    });
  });

  for (const [name, events] of Object.entries(scenarios)) {
    it(`${name}: each snapshot while it streams, the live end and the reloaded history`, async () => {
      const log = await events();
      const streamed = await snapshots(log);
      const ended = log.some((event) => event.type === "session.status" && event.payload.status !== "running");
      const checked = [...streamed, ...(ended ? [(await readLiveWithAiSdk(log)).message] : [])];
      // What a page shows: the superseded parts left out, the approvals' answers on their parts.
      const shown = checked.map((message) => withApprovalAnswers(withoutSupersededParts(message)));
      const history = ended ? [await readTurnUIMessage(log)] : [];
      const verdicts = await Promise.all([...shown, ...history].map(verdict));
      expect(verdicts.filter((v) => v !== undefined)).toEqual([]);
      expect(streamed.length).toBeGreaterThan(1);
    });
  }
});
