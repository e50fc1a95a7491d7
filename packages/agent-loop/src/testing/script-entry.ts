import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describeValue, isList, isUnreadable } from "../message-checks.js";
import { UNREADABLE_VALUE_TEXT, thrownText } from "../synthetic-messages.js";
import type { RecordedRequest } from "./request-recording.js";
import { response, scriptedResponseProblem, type ScriptedResponse } from "./script-blocks.js";
import type { ScriptFault } from "./script-faults.js";

/**
 * Decides the entry for one request at the time it is made. Receives the
 * recorded request (a snapshot). May return another function, which is
 * resolved in turn. If it throws, the stream ends with an `error` event
 * naming the request; the stream function itself never throws for it.
 */
export type ScriptEntryFunction = (request: RecordedRequest) => ScriptEntry;

/**
 * One request's worth of script, consumed in order, one per stream call:
 * a {@link ScriptedResponse}; a string (shorthand for `response(string)`); an
 * `AssistantMessage` (its content, stop reason, usage and error message are
 * streamed, e.g. one built by `assistantMessage()`); a fault; or a function
 * that decides when the request arrives.
 */
export type ScriptEntry = ScriptedResponse | string | AssistantMessage | ScriptFault | ScriptEntryFunction;

/** The `kind`s of the scripted responses and faults a script may hold as objects. */
const ENTRY_KINDS = new Set([
  "response",
  "errorAfter",
  "throwSync",
  "reject",
  "hang",
  "endWithoutDone",
  "withoutStart",
  "eventsAfterDone",
]);

/**
 * What is wrong with one script entry as given (`undefined`: nothing), to
 * follow the entry's name in an error (` must be ...`, `.content must be
 * ...`): an entry is a string, a function, an assistant
 * message with a content list, or a response or fault built by this
 * module's helpers (an object with a known `kind`; a response with a
 * content list).
 */
export function scriptEntryProblem(entry: unknown): string | undefined {
  try {
    return entryProblem(entry);
  } catch (error) {
    // A revoked proxy, a getter that throws: what no code can read is said in words, never the engine's error.
    return ` could not be read: ${thrownText(error)}`;
  }
}

function entryProblem(entry: unknown): string | undefined {
  if (typeof entry === "string" || typeof entry === "function") return undefined;
  const expected = " must be text, response(...), a fault such as hang(...), an AssistantMessage or a function";
  if (typeof entry !== "object" || entry === null) return `${expected}, got ${describeValue(entry)}`;
  const { role, kind, content } = entry as { role?: unknown; kind?: unknown; content?: unknown };
  if (role === "assistant") return isList(content) ? undefined : ".content must be an array of content blocks";
  if (typeof kind !== "string" || !ENTRY_KINDS.has(kind)) return `${expected}, got an object of kind ${String(kind)}`;
  return kind === "response" ? scriptedResponseProblem(entry as Record<string, unknown>) : undefined;
}

/** Throws a `TypeError` naming `entries` when it is no array, or its first malformed entry (`where[index] must be ...`). */
export function assertScriptEntries(entries: unknown, where: string): void {
  if (isUnreadable(entries)) throw new TypeError(`${where} could not be read: ${UNREADABLE_VALUE_TEXT}`);
  if (!isList(entries)) throw new TypeError(`${where} must be an array of entries, got ${describeValue(entries)}`);
  entries.forEach((entry, index) => {
    const problem = scriptEntryProblem(entry);
    if (problem) throw new TypeError(`${where}[${index}]${problem}`);
  });
}

const MAX_ENTRY_FUNCTION_DEPTH = 32;

/** A script entry as a request uses it: a response, a fault, or a failure to stream as an `error` event. */
export type ResolvedEntry = ScriptedResponse | ScriptFault | { kind: "failure"; message: string };

function isAssistantMessage(entry: ScriptEntry): entry is AssistantMessage {
  return typeof entry === "object" && entry !== null && "role" in entry && entry.role === "assistant";
}

/** Turns one entry into a response or fault; entry functions are called with the request. Never throws. */
export function resolveEntry(
  entry: ScriptEntry | undefined,
  request: RecordedRequest,
  consumed: number,
): ResolvedEntry {
  const number = request.index + 1;
  let current: ScriptEntry | undefined = entry;
  for (let depth = 0; typeof current === "function"; depth += 1) {
    if (depth >= MAX_ENTRY_FUNCTION_DEPTH) {
      return { kind: "failure", message: `Script entry function for request #${number} kept returning functions` };
    }
    try {
      current = current(request);
    } catch (error) {
      return {
        kind: "failure",
        message: `Script entry function for request #${number} threw: ${thrownText(error)}`,
      };
    }
  }
  if (current === undefined) {
    return {
      kind: "failure",
      message: `Scripted model has no response left for request #${number} (all ${consumed} script entries were used)`,
    };
  }
  // An entry given as such was checked where the script was written; only what a function answered is new.
  const problem = typeof entry === "function" ? scriptEntryProblem(current) : undefined;
  if (problem)
    return {
      kind: "failure",
      message: `Script entry function for request #${number} returned a malformed entry: the entry${problem}`,
    };
  if (typeof current === "string") return response(current);
  if (isAssistantMessage(current)) {
    return response(current.content, {
      stopReason: current.stopReason,
      usage: current.usage,
      errorMessage: current.errorMessage,
      responseId: current.responseId,
    });
  }
  return current;
}
