/*
 * Tool-call arguments as runtime events and the host's history carry them:
 * always a JSON object. A stream function may hand over arguments that are
 * not one (a cut-off JSON text, a number, `null`, a list): the call then
 * carries what the model sent under `RAW_TOOL_ARGUMENTS_KEY`, and the tool
 * table answers it with an error naming that value instead of running the
 * tool.
 */
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { isRecord } from "@turnkit/agent-loop/internal";
import { RAW_TOOL_ARGUMENTS_KEY } from "@turnkit/protocol";
import { isPlainJsonValue, jsonSafe } from "../event-bridge/json-safe.js";

/** The objects {@link objectArguments} made to hold arguments that were no object. A WeakSet: nobody can forge the mark, and a dropped call is collected. */
const wrappedArguments = new WeakSet<object>();

/**
 * `args` itself when it is a plain JSON object; a JSON-safe copy (see
 * `jsonSafe`) when it is an object holding something JSON cannot write
 * (`undefined` in a list, a bigint, a cycle); otherwise a new object
 * `{ rawArguments: <args, JSON-safe> }` (`{}` for `undefined`), which
 * {@link rawArgumentsProblem} recognises. Never throws; never changes `args`.
 */
export function objectArguments(args: unknown): Record<string, unknown> {
  if (isRecord(args)) {
    if (isPlainJsonValue(args)) return args;
    const safe = jsonSafe(args);
    // A `toJSON` may turn the object into something else; it is then no object either.
    if (isRecord(safe)) return safe;
    return wrap(safe);
  }
  return wrap(jsonSafe(args));
}

/**
 * Replaces, in place, the `arguments` of each tool call of `message` that
 * {@link objectArguments} would change; a call whose arguments are a plain
 * JSON object already is not touched.
 */
export function normaliseToolCallArguments(message: AssistantMessage): void {
  if (!Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (block?.type !== "toolCall") continue;
    const normalised = objectArguments(block.arguments);
    if (normalised !== block.arguments) block.arguments = normalised;
  }
}

/**
 * The error text for a call whose arguments {@link objectArguments} wrapped
 * (`undefined` for any other arguments): it names the tool and what the
 * model sent, and asks for one JSON object.
 */
export function rawArgumentsProblem(toolName: string, args: unknown): string | undefined {
  if (!isRecord(args) || !wrappedArguments.has(args)) return undefined;
  const raw = (args as Record<string, unknown>)[RAW_TOOL_ARGUMENTS_KEY];
  return (
    `Tool ${toolName} was not run: its arguments must be one JSON object, and the model sent ${describeRaw(raw)}` +
    ` (the call keeps it as ${RAW_TOOL_ARGUMENTS_KEY}). Call the tool again with its arguments as a JSON object.`
  );
}

/** Longest excerpt of what the model sent that an error text quotes. */
const RAW_EXCERPT_CHARS = 200;

function describeRaw(raw: unknown): string {
  if (raw === undefined) return "no arguments";
  const kind = raw === null ? "null" : Array.isArray(raw) ? "a list" : `a ${typeof raw}`;
  const text = JSON.stringify(raw);
  const excerpt = text.length > RAW_EXCERPT_CHARS ? `${text.slice(0, RAW_EXCERPT_CHARS)}…` : text;
  return kind === "null" ? "null" : `${kind}, ${excerpt}`;
}

function wrap(raw: unknown): Record<string, unknown> {
  const wrapped: Record<string, unknown> = raw === undefined ? {} : { [RAW_TOOL_ARGUMENTS_KEY]: raw };
  wrappedArguments.add(wrapped);
  return wrapped;
}
