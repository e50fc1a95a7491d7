import { PiTurnRunner } from "@turnkit/agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { createScriptedModel, response, text, toolCall } from "@turnkit/agent-loop/testing";
import {
  createAgentRuntime,
  toRunTurnInput,
  type AssemblyDiagnostic,
  type ExtensionContributionSummary,
} from "@turnkit/agent-runtime";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { baseExtensions } from "./base-extensions.js";
import { docsSearch } from "./docs-search-extension.js";
import { offlineProfile } from "./offline-profile.js";
import { createToolBudget } from "./tool-budget-extension.js";

/** Where the example prints; a test passes its own collector. */
export type Print = (line: string) => void;

const QUESTION = "How do profiles change which extensions run?";

/** The model's side: three docs searches in one response (the budget allows two), then the answer. */
function scriptedSession() {
  return createScriptedModel([
    response([
      text("Let me search the docs."),
      toolCall("docs_search", { keyword: "replace" }),
      toolCall("docs_search", { keyword: "disable" }),
      toolCall("docs_search", { keyword: "enable" }),
    ]),
    response(
      "A profile disables base extensions, replaces one with an addition in its place, and enables additions after the base ones.",
    ),
  ]);
}

function describeContribution(summary: ExtensionContributionSummary): string {
  const parts: string[] = [];
  if (summary.tools.length > 0) parts.push(`tools ${summary.tools.join(", ")}`);
  if (summary.systemPromptParts > 0) parts.push(`system prompt ×${summary.systemPromptParts}`);
  if (summary.userPromptPrefixParts > 0) parts.push(`user prompt prefix ×${summary.userPromptPrefixParts}`);
  if (summary.reminders.length > 0) parts.push(`reminders ${summary.reminders.join(", ")}`);
  const hooks = Object.entries(summary.hooks).map(([event, count]) => `${event}×${count}`);
  if (hooks.length > 0) parts.push(`hooks ${hooks.join(", ")}`);
  return `  ${summary.extensionId.padEnd(14)} ${parts.length > 0 ? parts.join("; ") : "nothing"}`;
}

function printDiagnostic(diagnostic: AssemblyDiagnostic, print: Print): void {
  print(`contributions to this turn (${diagnostic.enabled.length} on, ${diagnostic.disabled.length} off):`);
  for (const summary of diagnostic.contributions) print(describeContribution(summary));
}

function messageText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
}

/** Prints text as an indented block, one `| ` line per line. */
function printBlock(body: string, print: Print): void {
  for (const line of body.split("\n")) print(`  | ${line}`.trimEnd());
}

/**
 * Builds a runtime from the host's base extensions and two additions with
 * the offline profile, assembles one turn and prints what each extension
 * contributed; runs the turn (with its `turn_start`/`turn_end` handlers)
 * and prints the first request the model received, then what happened.
 * Finally shows a per-session switch: the same runtime with one extension
 * off for another session.
 */
export async function runExtensionDemo(print: Print): Promise<TurnOutcome> {
  // What happens during the run is printed after the request, so collect it.
  const runLog: string[] = [];
  const log = (line: string) => void runLog.push(line);

  const runtime = await createAgentRuntime({
    base: baseExtensions,
    additions: [docsSearch, createToolBudget(log)],
    profile: offlineProfile,
  });
  print(`base:     ${baseExtensions.map((extension) => extension.id).join(", ")}`);
  print(`profile:  ${JSON.stringify(offlineProfile)}`);
  print(`resolved: ${runtime.extensions.join(", ")}`);

  // The host's code for one turn: assemble, turn_start, run, turn_end.
  const assembled = await runtime.assembleTurn({
    sessionId: "session-1",
    turnId: "turn-1",
    data: { today: "2025-06-02", docsVersion: "0.1" },
  });
  printDiagnostic(assembled.diagnostic, print);

  const model = scriptedSession();
  let messages = 0;
  const runner = new PiTurnRunner({ allocateMessageId: () => `msg-${++messages}` });
  const streamedText = { pending: "" };
  const input = toRunTurnInput(assembled, {
    systemPrompt: "Cite the docs you used.",
    userMessage: { text: QUESTION },
    llm: { model: model.model, streamFn: model.streamFn },
    disableBuiltinToolFallback: true,
    eventWriter: { push: (event) => recordRun(event, streamedText, log) },
  });
  for (const handler of assembled.turnStartHandlers) await handler();
  const outcome = await runner.runTurn(input);
  for (const handler of assembled.turnEndHandlers) await handler({ outcome });

  const request = model.requests[0]!;
  print("the first request the model received:");
  print(" system prompt:");
  printBlock(request.context.systemPrompt ?? "", print);
  print(` tools: ${(request.context.tools ?? []).map((tool) => tool.name).join(", ")}`);
  for (const message of request.context.messages) {
    print(` ${message.role} message:`);
    printBlock(messageText(message), print);
  }
  print("the run:");
  for (const line of runLog) print(line);
  print(`outcome: ${outcome.kind}`);

  // Switches are per runtime, per session: session-2 runs without the date reminder.
  runtime.setEnabled("date-reminder", false, { sessionId: "session-2" });
  const other = await runtime.assembleTurn({ sessionId: "session-2", turnId: "turn-1" });
  print(
    `session-2 after setEnabled("date-reminder", false): on ${other.diagnostic.enabled.join(", ")}; off ${other.diagnostic.disabled.join(", ")}`,
  );
  return outcome;
}

/**
 * Logs the assistant's text (once its first non-text chunk arrives: text
 * streams in deltas) and each tool call once it has a result.
 */
function recordRun(event: RuntimeEvent, streamedText: { pending: string }, log: Print): void {
  if (event.type !== "stream.resp") return;
  const { chunk } = event.payload;
  if (chunk.kind === "text") {
    streamedText.pending += chunk.delta;
    return;
  }
  if (streamedText.pending) log(`  assistant: ${streamedText.pending}`);
  streamedText.pending = "";
  if (chunk.kind !== "tool_call" || (chunk.status !== "finished" && chunk.status !== "failed")) return;
  const result = (chunk.result?.content ?? [])
    .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
    .join(" ");
  log(
    `  ${chunk.status === "finished" ? "✓" : "✗"} ${chunk.toolName}(${JSON.stringify(chunk.arguments ?? {})}) → ${result}`,
  );
}
