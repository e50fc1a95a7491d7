import {
  createScriptedModel,
  errorAfter,
  response,
  text,
  thinking,
  toolCall,
  usageOf as usage,
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModel,
  type ScriptedResponse,
  type TimerClock,
} from "@turnkit/agent-loop/testing";
import type { CompactionOptions } from "@turnkit/agent-runtime";
import {
  SCRIPTED_COMPACTION_KEEP_TOKENS,
  SCRIPTED_COMPACTION_RESERVE_TOKENS,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_EVENT_DELAY_MS,
  SCRIPTED_RETRY_AFTER_MS,
} from "./defaults.js";
import type { ModelChoice } from "./model-choice.js";
import { createScriptedSummariser, type ScriptedSummariser } from "./scripted-summariser.js";

/** Pace of the scripted model. */
export interface ScriptedModelOptions {
  /** Delay before each streamed event. Default {@link SCRIPTED_EVENT_DELAY_MS}; 0 streams without timers. */
  eventDelayMs?: number;
  /** The wait the scripted provider asks for in its one rate-limit error. Default {@link SCRIPTED_RETRY_AFTER_MS}. */
  retryAfterMs?: number;
  /** Clock of the event delays. Default: real timers. */
  clock?: TimerClock;
}

/** A scripted model plus the handle tests use to inspect its requests. */
export interface ScriptedModelChoice extends ModelChoice {
  scriptedModel: ScriptedModel;
  /** The scripted model that writes compaction summaries (its requests never reach `scriptedModel`). */
  summariser: ScriptedSummariser;
  /** Drops what is left of the script: every later request gets the recap. Call it when the demo turn ended. */
  endScript(): void;
}

/**
 * What the scripted user does during the demo: the task it types, the
 * steering it types when a tool finishes, and how it answers permission
 * prompts when there is no terminal to ask.
 */
export interface ScriptedUser {
  task: string;
  steering?: { text: string; afterTool: string };
  /** `true` allows the call. */
  answerPermission(request: { toolName: string }): boolean;
}

/** The user of the demo: asks for the fix, steers towards a small edit once the explore sub-agent answered, allows everything. */
export const DEMO_USER: ScriptedUser = {
  task: "The slugify test fails. Find out why and fix it.",
  steering: { text: "Keep the change small: fix slugify, don't rewrite the whole file.", afterTool: "explore" },
  answerPermission: () => true,
};

/** The user of a resumed scripted session: asks where things stand. */
export const RECAP_USER: ScriptedUser = {
  task: "Where did we leave off?",
  answerPermission: () => true,
};

const BUGGY_LINE = `  return title.toLowerCase().replace(/ /g, "-");`;
const FIXED_LINES = `  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");`;
const FIXED_FILE = `/**
 * Turns a title into a URL slug: "Hello, World!" becomes "hello-world".
 */
export function slugify(title) {
${FIXED_LINES}
}
`;

/**
 * The embedded demo model: a scripted session in the sample project. It looks
 * up the bug report on the demo's MCP server and reads two files, all in
 * parallel, is rate-limited once, hands the search for callers to the
 * "explore" sub-agent (its own scripted model, which greps), edits (or, without
 * steering, rewrites) one file, runs `node --test` and reports. Its answers
 * after the steering point depend on what the request holds: steering text,
 * a refused or failing test run. Once the script is used up it answers every
 * request with a short recap of the conversation it was sent.
 *
 * Its context window, as the compaction extension is told, is small
 * ({@link SCRIPTED_CONTEXT_WINDOW}): the reported usage of the test run's
 * step crosses the threshold, so the history is compacted once, by the
 * scripted summariser, before the final report. The report's request then
 * fails with an exhausted quota, and the turn falls back to the scripted
 * backup model, which writes it.
 */
export function createDemoModel(options: ScriptedModelOptions = {}): ScriptedModelChoice {
  const retryAfterSeconds = (options.retryAfterMs ?? SCRIPTED_RETRY_AFTER_MS) / 1000;
  return scriptedChoice(
    [
      response(
        [
          thinking("A failing test. I want the implementation and the test side by side before changing anything."),
          text("Let me read the bug report, the module and its test."),
          // A tool of the demo's MCP server (fixtures/issue-tracker-mcp-server.mjs).
          toolCall("get_issue", { number: 12 }),
          toolCall("read", { path: "src/slugify.js" }),
          toolCall("read", { path: "test/slugify.test.js" }),
        ],
        { usage: usage(1_840, 96) },
      ),
      errorAfter(0, `429 Too Many Requests: rate limit exceeded. Please try again in ${retryAfterSeconds}s`),
      response(
        [
          text(
            "The second test expects punctuation and repeated spaces to disappear, but `slugify` only swaps single spaces for dashes. Before changing it, let me have explore find who else calls it.",
          ),
          toolCall("explore", { task: "Who calls slugify, and what do they expect?" }),
        ],
        { usage: usage(2_412, 71) },
      ),
      fixStep,
      response([text("Now the tests."), toolCall("bash", { command: "node --test" })], { usage: usage(3_305, 38) }),
      // The model's plan runs out: the request falls back to the backup model (llm.fallback), which answers.
      errorAfter(0, "429 You exceeded your current quota, please check your plan and billing details."),
      report,
    ],
    options,
    [
      response(toolCall("grep", { pattern: "slugify\\(", path: "src" }), { usage: usage(612, 24) }),
      response(
        "`slugify` has one caller outside its module: `postPath` in src/post.js, which builds `/posts/<slug>` and expects a clean slug.",
        { usage: usage(804, 37) },
      ),
    ],
    {
      contextWindow: SCRIPTED_CONTEXT_WINDOW,
      reserveTokens: SCRIPTED_COMPACTION_RESERVE_TOKENS,
      keepRecentTokens: SCRIPTED_COMPACTION_KEEP_TOKENS,
    },
  );
}

/** A scripted model that only recaps: what a resumed scripted session talks to. */
export function createRecapModel(options: ScriptedModelOptions = {}): ScriptedModelChoice {
  return scriptedChoice([], options, []);
}

/**
 * A scripted model choice: the script, then recaps; requests to the
 * summariser's model (the compaction extension's `summaryModel`) go to the
 * summariser. `exploreEntries` script the explore sub-agent's own model
 * (then it answers that it has nothing more). `compaction` adds to the
 * summary model.
 */
function scriptedChoice(
  entries: ScriptEntry[],
  options: ScriptedModelOptions,
  exploreEntries: ScriptEntry[],
  compaction: CompactionOptions = {},
): ScriptedModelChoice {
  let scriptOver = false;
  // Each entry checks at request time whether the demo was ended early.
  const scriptedModel = createScriptedModel(
    entries.map(
      (entry): ScriptEntry =>
        (request) =>
          scriptOver ? recap(request) : entry,
    ),
    streamingOf(options),
  );
  const summariser = createScriptedSummariser(streamingOf(options));
  const explorer = createScriptedModel(exploreEntries, streamingOf(options));
  const exploreModel = { ...explorer.model, id: "scripted-explorer", name: "Scripted explore model" };
  // The fallback model: another id on the same script, so the script goes on where the first model stopped.
  const backup = { ...scriptedModel.model, id: `${scriptedModel.model.id}-backup`, name: "Scripted backup model" };
  return {
    label: "scripted demo model",
    llm: {
      model: scriptedModel.model,
      fallback: { models: [{ model: backup }], on: ["overloaded", "unavailable", "quota"] },
      streamFn: (model, context, streamOptions) => {
        if (model.id === summariser.model.id) return summariser.streamFn(model, context, streamOptions);
        if (scriptedModel.remaining() === 0) scriptedModel.append(recap);
        return scriptedModel.streamFn(model, context, streamOptions);
      },
    },
    explore: {
      model: exploreModel,
      streamFn: (_model, context, streamOptions) => {
        if (explorer.remaining() === 0) explorer.append(response("(Scripted explore model: nothing more to find.)"));
        return explorer.streamFn(explorer.model, context, streamOptions);
      },
    },
    hasPrices: false,
    scripted: true,
    compaction: { summaryModel: summariser.model, ...compaction },
    scriptedModel,
    summariser,
    endScript: () => {
      scriptOver = true;
    },
  };
}

function streamingOf(options: ScriptedModelOptions) {
  return {
    eventDelayMs: options.eventDelayMs ?? SCRIPTED_EVENT_DELAY_MS,
    ...(options.clock && { clock: options.clock }),
  };
}

/** After the grep: one focused edit when the user steered, a whole-file rewrite otherwise. */
function fixStep(request: RecordedRequest): ScriptedResponse {
  const steering = userTextsAfterFirstAnswer(request).at(-1);
  if (steering !== undefined) {
    return response(
      [
        text(`Understood ("${steering}"). One focused edit of \`slugify\` instead of rewriting the file.`),
        toolCall("edit", { path: "src/slugify.js", oldText: BUGGY_LINE, newText: FIXED_LINES }),
      ],
      { usage: usage(2_871, 142) },
    );
  }
  return response(
    [
      text("I'll rewrite src/slugify.js with a stricter implementation."),
      toolCall("write", { path: "src/slugify.js", content: FIXED_FILE }),
    ],
    { usage: usage(2_871, 160) },
  );
}

/** The final report, true to how the test run went. */
function report(request: RecordedRequest): ScriptedResponse {
  const last = request.context.messages.at(-1);
  const testRun = last?.role === "toolResult" ? last : undefined;
  if (testRun && testRun.isError && /refused|not allowed/i.test(textOf(testRun.content))) {
    return response(
      "I fixed `slugify` in src/slugify.js, but running `node --test` was not allowed, so the fix is untested. Run `node --test` yourself to confirm it.",
      { usage: usage(3_390, 44) },
    );
  }
  if (testRun?.isError) {
    return response(
      "The tests still fail after my change; the output above shows which. I'd look at the failing assertion next.",
      {
        usage: usage(3_390, 29),
      },
    );
  }
  return response(
    'Fixed. `slugify` now turns every run of characters other than letters and digits into one dash and trims dashes at both ends, so "  Hello,   World!  " becomes "hello-world". `postPath` in src/post.js picks the fix up unchanged. Both tests pass (`node --test`).',
    { usage: usage(3_702, 81) },
  );
}

/** What the scripted model says once its script is used up: a recap of the request it was sent. */
function recap(request: RecordedRequest): ScriptedResponse {
  const messages = request.context.messages;
  let toolCalls = 0;
  const changed = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      toolCalls += 1;
      const path = block.arguments.path;
      if ((block.name === "edit" || block.name === "write") && typeof path === "string") changed.add(path);
    }
  }
  const files = changed.size > 0 ? `changed ${[...changed].join(", ")}` : "changed no files";
  return response(
    `(Scripted model: its demo script is over.) So far this conversation has ${messages.length} messages; I made ${toolCalls} tool calls and ${files}. Run with --model provider:id to talk to a real model.`,
    { usage: usage(1_200 + messages.length * 150, 48) },
  );
}

function userTextsAfterFirstAnswer(request: RecordedRequest): string[] {
  const messages = request.context.messages;
  const firstAnswer = messages.findIndex((message) => message.role === "assistant");
  if (firstAnswer < 0) return [];
  return messages
    .slice(firstAnswer + 1)
    .flatMap((message) =>
      message.role === "user" ? [typeof message.content === "string" ? message.content : textOf(message.content)] : [],
    );
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : [])).join("\n");
}
