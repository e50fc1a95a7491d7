/**
 * The `PiTurnHooks` of a generated turn: each hook takes the scenario's
 * decisions in call order (continue, skip, respond, replace, abort, throw,
 * an invalid decision, one whose messages or content are malformed, an
 * edit of what the hook was handed, ...),
 * as `TurnHookSpec` lists them.
 */
import {
  type AfterToolCallHook,
  type BeforeLlmCallHook,
  type PiTurnHooks,
  createUserMessage,
} from "@turnkit/agent-core";
import { revokedProxy } from "@turnkit/agent-loop/testing";
import { afterToolPatch, decisionSequence } from "./decision-sequence.js";
import type { TurnHookSpec } from "./scenario.js";
import { markedText } from "./scripted-entries.js";
import { unreadableDecisions } from "./unreadable-decisions.js";

export { UNREADABLE_DECISION_TEXT } from "./unreadable-decisions.js";

/** What the hooks may do to the run: abort it, and note the texts `respond` and `replaceText` decisions answered with. */
export interface HookContext {
  abort: () => void;
  respondTexts: Map<string, string>;
  /** The decisions the before- and after-LLM hooks handed out, in order (for invariant 27). */
  llmDecisions?: LlmDecisionNote[];
  /** Told of each message that says nothing the step-end hook queued (`enqueue` took it). */
  blankEnqueued?: () => void;
}

/** One decision an LLM hook handed out. */
export interface LlmDecisionNote {
  hook: "beforeLlmCallHook" | "afterLlmCallHook";
  decision: string;
}

/** The eight `PiTurnHooks` of a scenario: each takes its decisions in call order. */
/** Texts that say nothing, as a host may hand them over (an empty input box, a stray newline). */
export const BLANK_TEXTS = ["", " ", "\n\t  "] as const;

export function turnHooks(spec: TurnHookSpec, context: HookContext): PiTurnHooks {
  const hooks: PiTurnHooks = {};
  const unreadable = unreadableDecisions();
  if (spec.beforeLlmCall) {
    const next = decisionSequence(spec.beforeLlmCall, "continue");
    let responds = 0;
    const hook: BeforeLlmCallHook = (event) => {
      const decision = next();
      context.llmDecisions?.push({ hook: "beforeLlmCallHook", decision });
      switch (decision) {
        case "continue":
          return { type: "continue" };
        case "skip":
          return { type: "skip" };
        case "respond": {
          responds++;
          const token = `respond${responds}`;
          const text = markedText(token, "answered by beforeLlmCallHook");
          context.respondTexts.set(token, text);
          return { type: "respond", text };
        }
        case "replaceRequestMessages":
          return { type: "replaceRequestMessages", messages: [...event.messages] };
        case "replaceMessages":
          return {
            type: "replaceMessages",
            messages: [createUserMessage(markedText(`compacted${event.requestIndex}`, "summary of everything so far"))],
            metadata: { reason: "scenario compaction" },
          };
        case "appendMessage":
          return { type: "appendMessage", message: { content: "hidden context from the scenario", source: "fuzz" } };
        case "abort":
          return { type: "abort", reason: "the scenario aborted the call" };
        case "throw":
          throw new Error("beforeLlmCallHook failed");
        case "invalid":
          return { type: "no-such-decision" } as never;
        case "edit":
          wreck(event.messages);
          return undefined;
        case "unreadable":
          return unreadable("beforeLlmCallHook");
        case "revoked":
          return revokedProxy() as never;
        case "malformed":
          return {
            type: "replaceRequestMessages",
            messages: [
              ...event.messages,
              { role: "user", content: [{ type: "text", text: 7 }], timestamp: 0 } as never,
            ],
          };
      }
    };
    hooks.beforeLlmCallHook = hook;
  }
  if (spec.onLlmCallPrepared) {
    const next = decisionSequence(spec.onLlmCallPrepared, "observe");
    hooks.onLlmCallPreparedHook = (event) => {
      const decision = next();
      if (decision === "edit") wreck(event.context);
      if (decision === "throw") throw new Error("onLlmCallPreparedHook failed");
      if (decision === "reject") return Promise.reject(new Error("onLlmCallPreparedHook rejected"));
      if (decision === "revoked") return revokedProxy() as never;
    };
  }
  if (spec.afterLlmCall) {
    const next = decisionSequence(spec.afterLlmCall, "continue");
    let replacements = 0;
    hooks.afterLlmCallHook = (event) => {
      const decision = next();
      context.llmDecisions?.push({ hook: "afterLlmCallHook", decision });
      switch (decision) {
        case "edit":
          wreck(event.message);
          return undefined;
        case "unreadable":
          return unreadable("afterLlmCallHook");
        case "revoked":
          return revokedProxy() as never;
        case "continue":
          return { type: "continue" };
        case "replaceText": {
          replacements++;
          const text = markedText(`replaced${replacements}`, "text replaced by afterLlmCallHook");
          // A response that streamed no text shows its final text at its end: the replacement.
          context.respondTexts.set(`replaced${replacements}`, text);
          return { type: "replaceText", text };
        }
        case "retry":
          return { type: "retry", reason: "the scenario wants another answer", prompt: "please answer again" };
        case "fail":
          return { type: "fail", reason: "the scenario rejected the answer" };
        case "throw":
          throw new Error("afterLlmCallHook failed");
        case "invalid":
          return { type: "no-such-decision" } as never;
        case "malformed":
          return { type: "replaceText", text: 7 } as never;
      }
    };
  }
  if (spec.beforeToolCall) {
    const next = decisionSequence(spec.beforeToolCall, "allow");
    hooks.beforeToolCallHook = (event) => {
      const decision = next();
      switch (decision) {
        case "edit":
          wreck(event);
          return undefined;
        case "allow":
          return undefined;
        case "block":
          return { block: true, reason: "blocked by the scenario" };
        case "blockPermission":
          return { block: true, reason: "the user refused", blockedBy: "permission" };
        case "throw":
          throw new Error("beforeToolCallHook failed");
        case "abort":
          context.abort();
          return undefined;
        case "malformed":
          return { block: "yes", reason: "a block that is no boolean" } as never;
        case "unreadable":
          return unreadable("beforeToolCallHook");
        case "revoked":
          return revokedProxy() as never;
      }
    };
  }
  if (spec.onToolExecutionStart) {
    const next = decisionSequence(spec.onToolExecutionStart, "observe");
    hooks.onToolExecutionStartHook = (event) => {
      const decision = next();
      if (decision === "edit") wreck(event);
      if (decision === "throw") throw new Error("onToolExecutionStartHook failed");
      if (decision === "abort") context.abort();
      if (decision === "revoked") return revokedProxy() as never;
    };
  }
  if (spec.afterToolCall) {
    const next = decisionSequence(spec.afterToolCall, "none");
    const hook: AfterToolCallHook = (event) => {
      const decision = next();
      if (decision === "edit") {
        wreck(event);
        return undefined;
      }
      if (decision === "malformed") return { content: "a patch whose content is no list" } as never;
      if (decision === "unreadable") return unreadable("afterToolCallHook");
      if (decision === "revoked") return revokedProxy() as never;
      return afterToolPatch(decision, "afterToolCallHook");
    };
    hooks.afterToolCallHook = hook;
  }
  if (spec.onHistoryChanged) {
    const next = decisionSequence(spec.onHistoryChanged, "accept");
    hooks.onHistoryChangedHook = (change) => {
      const decision = next();
      if (decision === "edit") wreck(change);
      if (decision === "throw") throw new Error("onHistoryChangedHook failed");
      if (decision === "revoked") return revokedProxy() as never;
    };
  }
  if (spec.onStepEnd) {
    const next = decisionSequence(spec.onStepEnd, "none");
    let enqueued = 0;
    hooks.onStepEndHook = (event) => {
      const decision = next();
      if (decision === "edit") wreck({ message: event.message, toolResults: event.toolResults });
      if (decision === "throw") throw new Error("onStepEndHook failed");
      if (decision === "revoked") return revokedProxy() as never;
      if (decision === "enqueue") {
        enqueued++;
        event.enqueue(markedText(`stepEnd${enqueued}`, "queued by onStepEndHook"));
      }
      if (decision === "enqueueBlank") {
        event.enqueue(BLANK_TEXTS[enqueued % BLANK_TEXTS.length]!);
        context.blankEnqueued?.();
      }
      if (decision === "enqueueMalformed") {
        try {
          event.enqueue({ role: "user", content: 7, timestamp: 0 } as never);
        } catch {
          // Refused at the call, as it must be: nothing is queued and the hook goes on.
        }
      }
    };
  }
  return hooks;
}

/**
 * What an `edit` decision does to what a hook was handed: every message,
 * content block, call, argument list and result it can reach is wrecked
 * (content that is no list, a role of no kind, a call with no id or
 * arguments, usage gone) and every list emptied. The turn must not notice.
 */
function wreck(value: unknown, seen = new Set<unknown>(), depth = 0): void {
  if (typeof value !== "object" || value === null || seen.has(value) || depth > WRECK_DEPTH) return;
  seen.add(value);
  try {
    wreckObject(value, seen, depth);
  } catch {
    // What the hook cannot even look at (the odd details' revoked proxy) it leaves alone.
  }
}

/** How deep {@link wreck} goes: the odd details nest far deeper than any stack. */
const WRECK_DEPTH = 64;

function wreckObject(value: object, seen: Set<unknown>, depth: number): void {
  if (Array.isArray(value)) {
    // By the entries there are: a tool's huge sparse list (length 2^32 - 1) would keep a for...of busy for hours.
    for (const key of Object.keys(value)) wreck(value[Number(key)], seen, depth + 1);
    value.length = 0;
    return;
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (typeof fields[key] === "function" || key === "signal") continue;
    wreck(fields[key], seen, depth + 1);
    if (key === "content") fields[key] = 7;
    else if (key === "role" || key === "type" || key === "id" || key === "stopReason") fields[key] = "wrecked";
    else if (key === "arguments" || key === "usage" || key === "value") fields[key] = null;
  }
}

/** What a hook's thenable answers after its first answer: a decision that would fail or stop the turn if it counted. */
const SECOND_ANSWER = { type: "abort", reason: "a second answer", block: true, content: "a second answer" };

/**
 * `hooks`, each answering through a thenable (no promise) that answers
 * twice, as careless JavaScript does: its decision (or its failure), then
 * {@link SECOND_ANSWER} and a rejection. Only the first answer may count.
 */
export function answeringTwice(hooks: PiTurnHooks): PiTurnHooks {
  const wrapped: Record<string, unknown> = {};
  for (const [name, hook] of Object.entries(hooks)) {
    wrapped[name] = (...args: unknown[]) => {
      let answer: unknown;
      let thrown: { error: unknown } | undefined;
      try {
        answer = (hook as (...given: unknown[]) => unknown)(...args);
      } catch (error) {
        thrown = { error };
      }
      return {
        // biome-ignore lint/suspicious/noThenProperty: a thenable is what this hook answers
        then(resolve?: (value: unknown) => void, reject?: (error: unknown) => void) {
          // Either callback may be absent (a caller that only waits for a failure, or ignores it).
          (thrown ? Promise.reject(thrown.error) : Promise.resolve(answer)).then(
            (value) => {
              resolve?.(value);
              resolve?.(SECOND_ANSWER);
              reject?.(new Error(`${name} rejected after answering`));
            },
            (error: unknown) => {
              reject?.(error);
              resolve?.(SECOND_ANSWER);
            },
          );
        },
      };
    };
  }
  return wrapped as PiTurnHooks;
}
