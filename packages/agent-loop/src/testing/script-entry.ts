import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { RecordedRequest } from "./request-recording.js";
import type { ScriptedResponse } from "./script-blocks.js";
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
