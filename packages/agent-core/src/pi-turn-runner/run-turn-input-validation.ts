import { validateRuntimeWarning } from "@turnkit/protocol";
import { jsonSafe } from "../event-bridge/json-safe.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { checkReadable } from "../input-reading.js";
import { modelProblem } from "../call-stack/model-check.js";
import { assertRuntimeTool } from "../tools/runtime-tool.js";
import { errorText } from "@turnkit/agent-loop/internal";
import { inputMessageProblem, messagesProblem, saysNothing } from "../messages/content-checks.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import { assertValidTurnBudget } from "../turn-watch/turn-budget.js";
import { assertRunTurnInputShape, readRunTurnInputOnce } from "./run-turn-input-shape.js";
import type { RunTurnInput } from "./run-turn-input.js";

function invalid(message: string): TurnkitConfigError {
  return new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, message);
}

/**
 * Checks a `RunTurnInput` before anything starts. Throws a
 * `TurnkitConfigError` naming the field: `unknown_key` for a key of the
 * input, its `llm`, `hooks`, `llmRetry`, `userMessage` or `budget` that
 * Turnkit does not know (with the nearest valid key); `invalid_turn_input`
 * for missing ids, model, message, a model pi-ai's providers cannot send
 * to (a field they read missing or of the wrong type, an `api` with no
 * provider registered; with a stream function of the host's, only fields
 * of the wrong type), a value of the wrong type anywhere in
 * those (a hook that is no function, a signal that is no `AbortSignal`), a
 * history or hidden message that is not a well-formed message (a known
 * role with content of the wrong shape, naming the field), an image that
 * is not one, a user message (when not continuing) whose text is empty or
 * only whitespace and that holds no image, and for `startMode: "continue"`
 * without a history or with one that ends in an assistant message (nothing
 * to answer), and for a `budget` whose limits are not positive numbers
 * (`maxSteps` a positive integer), and for `warnings` that are not
 * warning payloads; `invalid_event_writer` for a writer
 * without a callable `push`; and `invalid_turn_input` ("could not be
 * read", the error as `cause`) when reading the input throws (a getter or
 * a proxy of the host's).
 */
export function assertValidRunTurnInput(input: RunTurnInput): void {
  // A getter or a proxy of the host's that throws while the input is read: still the input's fault, typed.
  checkReadable("RunTurnInput", ConfigErrorCode.InvalidTurnInput, () => checkRunTurnInput(input));
}

/**
 * The input a turn runs on: `input` read once (`readRunTurnInputOnce`: a
 * host's getter is called once per field, whatever it answers later),
 * then checked as {@link assertValidRunTurnInput} does, throwing its
 * errors; reading that throws is `invalid_turn_input` ("could not be
 * read").
 */
export function readValidRunTurnInput(input: RunTurnInput): RunTurnInput {
  const read = checkReadable("RunTurnInput", ConfigErrorCode.InvalidTurnInput, () => readRunTurnInputOnce(input));
  assertValidRunTurnInput(read);
  return read;
}

function checkRunTurnInput(input: RunTurnInput): void {
  if (typeof input !== "object" || input === null) throw invalid("RunTurnInput must be an object");
  assertRunTurnInputShape(input);
  const writer = input.eventWriter as unknown;
  if (typeof writer !== "object" || writer === null || typeof (writer as { push?: unknown }).push !== "function") {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidEventWriter,
      "RunTurnInput.eventWriter must be an object with a push(event) function",
    );
  }
  for (const field of ["sessionId", "turnId"] as const) {
    if (typeof input[field] !== "string" || input[field] === "")
      throw invalid(`RunTurnInput.${field} must be a non-empty string`);
  }
  if (typeof input.systemPrompt !== "string") throw invalid("RunTurnInput.systemPrompt must be a string");
  const model = input.llm?.model as unknown;
  if (typeof model !== "object" || model === null || typeof (model as { provider?: unknown }).provider !== "string") {
    throw invalid("RunTurnInput.llm.model is missing: pass a pi-ai Model (getModel(provider, id))");
  }
  const modelFault = modelProblem(model, input.llm.streamFn === undefined);
  if (modelFault) throw invalid(`RunTurnInput.llm.model${modelFault}`);
  const continuing = input.startMode === "continue";
  if (!continuing) {
    if (
      typeof input.userMessage !== "object" ||
      input.userMessage === null ||
      typeof input.userMessage.text !== "string"
    ) {
      throw invalid('RunTurnInput.userMessage.text is missing (or set startMode: "continue" to continue the history)');
    }
  }
  if (input.history !== undefined && !Array.isArray(input.history))
    throw invalid("RunTurnInput.history must be an array");
  assertMessages(input.history, "RunTurnInput.history");
  assertMessages(input.beforeUserMessages, "RunTurnInput.beforeUserMessages");
  if (input.userMessage !== undefined) {
    const problem = inputMessageProblem(input.userMessage);
    if (problem) throw invalid(`RunTurnInput.userMessage${problem}`);
    if (!continuing) assertSaysSomething(input.userMessage);
  }
  if (continuing) assertContinuable(input);
  if (input.tools !== undefined && !Array.isArray(input.tools)) throw invalid("RunTurnInput.tools must be an array");
  // Array.from: a hole is an `undefined` tool, refused as one.
  Array.from(input.tools ?? [], (tool: unknown, index) => {
    const where = `RunTurnInput.tools[${index}]`;
    checkReadable(where, ConfigErrorCode.InvalidTool, () => assertRuntimeTool(tool, where));
  });
  if (input.warnings !== undefined) {
    if (!Array.isArray(input.warnings)) throw invalid("RunTurnInput.warnings must be an array");
    // By index, up to the first bad one: a hole in the list is an `undefined` warning, refused as one.
    const warnings = input.warnings as unknown[];
    for (let index = 0; index < warnings.length; index++) {
      // Checked against the fields its code needs, as the emitted event will be.
      const checked = validateRuntimeWarning(jsonSafe(warnings[index]));
      if (!checked.ok)
        throw invalid(
          `RunTurnInput.warnings[${index}] must be a runtime.warning payload { code, message, ... }: ${checked.errors.slice(0, 3).join("; ")}`,
        );
    }
  }
  assertValidTurnBudget(input.budget);
}

/**
 * A user message whose text is empty or only whitespace, with no image,
 * tells the model nothing: some providers drop it (Anthropic's, leaving a
 * first turn with no message at all, a 400), others send an empty message.
 * Either way the turn could not be what the host meant, so it is refused.
 */
function assertSaysSomething(message: NonNullable<RunTurnInput["userMessage"]>): void {
  if (!saysNothing(message)) return;
  throw invalid(
    'RunTurnInput.userMessage.text is empty (or only whitespace) and there are no images: the model would be sent nothing new (pass text or images, or set startMode: "continue" to continue the history)',
  );
}

/** Each entry of `messages` (when it is an array) must be a well-formed message (see `messageProblem`). */
function assertMessages(messages: unknown, where: string): void {
  if (!Array.isArray(messages)) return;
  const problem = messagesProblem(messages);
  if (problem) throw invalid(`${where}${problem}`);
}

/**
 * A turn that continues its history sends the model what the history (and
 * the turn's `beforeUserMessages` after it) holds for a model: no request
 * can be answered when that is nothing (only host-only messages, failed
 * responses or messages that say nothing), or ends with an assistant
 * message (no steering is queued yet), so the turn could only fail. Judged
 * as the model sees it: a host note, a message that says nothing or a tool
 * result that answers no call after an answer hides nothing.
 * The history's own last message is no assistant's either (the loop
 * continues from no response, a failed one included).
 */
function assertContinuable(input: RunTurnInput): void {
  const history = input.history ?? [];
  if (history.length === 0) throw invalid('RunTurnInput.startMode "continue" needs a non-empty history');
  // The loop continues only from a message that is no assistant's, a failed response included.
  if (history[history.length - 1]!.role === "assistant")
    throw invalid(
      'RunTurnInput.startMode "continue" needs a history that ends with a user, tool-result or hidden message, not an assistant message',
    );
  const after = Array.isArray(input.beforeUserMessages) ? input.beforeUserMessages : [];
  let seen: ReturnType<typeof projectAgentMessagesForModel>;
  try {
    seen = projectAgentMessagesForModel([...history, ...after]);
  } catch (error) {
    throw invalid(`RunTurnInput.history could not be read as messages: ${errorText(error)}`);
  }
  const last = seen[seen.length - 1];
  if (!last)
    throw invalid(
      'RunTurnInput.startMode "continue" has nothing to continue: the history holds no message a model is sent (only host-only messages, failed responses or messages that say nothing)',
    );
  if (last.role === "assistant")
    throw invalid(
      'RunTurnInput.startMode "continue" needs a history that ends with a user, tool-result or hidden message, not an assistant message (host-only messages, failed responses, user and hidden messages that say nothing and tool results that answer no call are never sent, so they do not count)',
    );
}
