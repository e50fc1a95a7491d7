/*
 * The turn every worker of the example runs: a scripted model (no key, no
 * network) that streams slowly enough to kill a worker in the middle, a
 * slow `write_note` tool that must not run twice, a `deploy` tool that
 * needs a person's approval, and, in a turn asking for a release, the
 * `release` tool of the worker's MCP server, which asks the person which
 * branch (an MCP elicitation), and a `research` sub-agent that looks a
 * topic up with a tool of its own before it answers. The model answers from the conversation
 * alone, so a worker that recovers a turn answers a re-sent request the
 * same way.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import {
  createScriptedModel,
  errorAfter,
  response,
  text,
  toolCall,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import { durableTool, type BuildDurableTurn } from "@turnkit/agent-durable";
import type { ReleaseDesk } from "./release-desk.js";

/** Milliseconds between streamed words; `DEMO_DELAY_MS` overrides it (the test uses a shorter one). */
const wordDelayMs = Number(process.env.DEMO_DELAY_MS ?? 150);
/**
 * With `DEMO_NOTE_GATE_DIR` (tests), `write_note` runs until a file named after its turn id appears in that
 * folder (at most 30 s) instead of ten word delays, so a test can steer or stop it while it runs however slow
 * the machine.
 */
const noteGateDir = process.env.DEMO_NOTE_GATE_DIR;

function words(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).join(" ");
}

function contentText(content: string | { type: string; text?: string }[]): string {
  return typeof content === "string" ? content : content.map((block) => block.text ?? "").join("");
}

function answer(context: Context): ScriptEntry {
  const last = context.messages[context.messages.length - 1];
  if (last?.role === "toolResult" && last.toolName === "research")
    return response(`The researcher says: ${contentText(last.content)}`);
  if (last?.role === "toolResult")
    return response(`Done: ${contentText(last.content)}. ${words("wrap", 10)}`, { eventDelayMs: wordDelayMs });
  const said = last?.role === "user" ? contentText(last.content) : "";
  if (/^research /i.test(said))
    return response([
      text("Let me ask the researcher. "),
      toolCall("research", { task: said.slice("research ".length) }),
    ]);
  if (/release/i.test(said)) return response([text("Let me ask which branch. "), toolCall("release", {})]);
  // The model's provider fails in the middle of the answer (an overloaded model, say).
  if (/\bfail\b/i.test(said))
    return errorAfter(4, "the model is overloaded (demo)", {
      response: response(`${words("partial", 10)} `, { eventDelayMs: wordDelayMs }),
    });
  // "note: …" goes to the tool at once, without the words before it.
  if (/^note:/i.test(said)) return response([toolCall("write_note", { note: said.slice("note:".length).trim() })]);
  // A very long answer, streamed as fast as a model can.
  if (/\blong\b/i.test(said)) return response(`${words("long", 3000)}.`, { chunkSize: 40 });
  if (/deploy/i.test(said))
    return response([text("I will deploy the web service once you approve. "), toolCall("deploy", { service: "web" })]);
  // A message steered in right after a tool result: acknowledge it.
  if (context.messages[context.messages.length - 2]?.role === "toolResult") return response(`Noted: ${said}`);
  return response([text(`${words("word", 15)} `), toolCall("write_note", { note: said })], {
    eventDelayMs: wordDelayMs,
  });
}

const writeNote = defineRuntimeTool({
  name: "write_note",
  description: "Writes a note (slowly); must not run twice",
  parameters: Type.Object({ note: Type.String() }),
  execute: async ({ turnId }, { note }, signal) => {
    // Stopped by the turn's abort, it ends at once, unsaved (the loop answers the call as interrupted).
    if (noteGateDir !== undefined) await untilFileExists(join(noteGateDir, turnId), signal);
    else
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10 * wordDelayMs);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    if (signal.aborted) return { content: [{ type: "text", text: "note not saved: the turn was stopped" }] };
    return { content: [{ type: "text", text: `note saved (${note.length} characters)` }] };
  },
});

async function untilFileExists(file: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) && !signal.aborted) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The researcher's model: it looks the task up, then answers with what it found. */
function researcherAnswer(context: Context): ScriptEntry {
  const last = context.messages[context.messages.length - 1];
  if (last?.role === "toolResult") return response(`Found: ${contentText(last.content)}.`);
  const task = last?.role === "user" ? contentText(last.content) : "";
  return response([text(`Looking up ${task}. `), toolCall("lookup", { topic: task })]);
}

const lookup = defineRuntimeTool({
  name: "lookup",
  description: "Looks a topic up",
  parameters: Type.Object({ topic: Type.String() }),
  execute: (_ctx, { topic }) => ({ content: [{ type: "text", text: `${topic} is in the encyclopedia` }] }),
});

const research = defineSubAgent({
  name: "research",
  description: "A researcher that looks a topic up",
  systemPrompt: "You look things up.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) =>
      createScriptedModel([researcherAnswer(context)]).streamFn(model, context, options),
  },
  llmRetry: false,
  tools: [lookup],
});

const deploy = durableTool(
  defineRuntimeTool({
    name: "deploy",
    description: "Deploys a service",
    parameters: Type.Object({ service: Type.String() }),
    execute: ({ toolCallId }, { service }) => ({
      content: [{ type: "text", text: `${service} deployed (${toolCallId})` }],
    }),
  }),
  { requiresApproval: true },
);

/**
 * `buildTurn` of the example's workers. A turn whose message mentions
 * "release" also gets the tools of the worker's `release-desk` MCP server
 * (and its warning when the server is down); the others never start it.
 */
export function demoTurnBuilder(releaseDesk: () => Promise<ReleaseDesk>): BuildDurableTurn {
  return async (request) => {
    const release = /release/i.test(request.userMessage?.text ?? "")
      ? await (await releaseDesk()).toolsFor({ sessionId: request.sessionId, turnId: request.turnId })
      : { tools: [], warnings: [] };
    return {
      systemPrompt: "You are a demo assistant.",
      llm: {
        model: createScriptedModel([]).model,
        streamFn: (model, context, options) => createScriptedModel([answer(context)]).streamFn(model, context, options),
      },
      llmRetry: false,
      tools: [writeNote, deploy, research, ...release.tools],
      warnings: [...release.warnings],
    };
  };
}
