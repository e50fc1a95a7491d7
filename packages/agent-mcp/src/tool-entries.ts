import { type Tool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { describeMalformed } from "./malformed-message.js";
import { withoutNullFields } from "./null-fields.js";

/**
 * A page of `tools/list` whose entries are read one by one ({@link readToolEntries}),
 * so that one entry the protocol's schema refuses does not make the whole
 * list, and every other tool of the server, unreadable.
 */
export const ToolPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** An entry of `tools/list` that is no tool the client can offer, and why. */
export interface UnreadableTool {
  /** The entry's `name`, or `#<index>` when it has none. */
  readonly name: string;
  /** The first problem, as `inputSchema.type: expected "object"`. */
  readonly problem: string;
}

/** The tools of a server's `tools/list`, and the entries left out. */
export interface ReadTools {
  readonly tools: Tool[];
  readonly unreadable: UnreadableTool[];
}

/**
 * The tools of `tools/list` entries, each checked against the protocol's
 * schema. An input or output schema without `type` (`{ "properties": … }`)
 * or no input schema at all is read as an object schema, as its author meant
 * (the protocol asks for `"type": "object"`; servers written by hand, and
 * generators of JSON Schema for a named type, leave it out). A field that is null (`description`, `title`, `outputSchema`,
 * `annotations` or one of its hints, `inputSchema`) is read as absent, as
 * servers written in Python write `None`. An entry that still fails is
 * left out, named in `unreadable`.
 */
export function readToolEntries(entries: readonly unknown[]): ReadTools {
  const tools: Tool[] = [];
  const unreadable: UnreadableTool[] = [];
  entries.forEach((entry, index) => {
    const parsed = ToolSchema.safeParse(withObjectSchemas(withoutNullToolFields(entry)));
    if (parsed.success) return void tools.push(parsed.data);
    const name = (entry as { name?: unknown } | null)?.name;
    unreadable.push({ name: typeof name === "string" ? name : `#${index}`, problem: describeMalformed(parsed.error) });
  });
  return { tools, unreadable };
}

/** `entry` without its null fields (other than `name`), and its annotations without theirs. */
function withoutNullToolFields(entry: unknown): unknown {
  const kept = withoutNullFields(entry, ["name"]);
  const annotations = (kept as { annotations?: unknown } | null)?.annotations;
  if (typeof annotations !== "object" || annotations === null) return kept;
  return { ...(kept as object), annotations: withoutNullFields(annotations) };
}

/**
 * `entry` with `type: "object"` in an input schema that has no `type` (or
 * an empty one when it has none), and in an output schema that has none
 * (`{ "properties": … }`, or `{ "$ref": "#/definitions/Result", … }` as
 * generators of JSON Schema write a named one).
 */
function withObjectSchemas(entry: unknown): unknown {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return entry;
  const { inputSchema, outputSchema } = entry as { inputSchema?: unknown; outputSchema?: unknown };
  const input = inputSchema === undefined ? { type: "object" } : withObjectType(inputSchema);
  const output = withObjectType(outputSchema);
  if (input === inputSchema && output === outputSchema) return entry;
  return { ...entry, inputSchema: input, ...(output !== undefined && { outputSchema: output }) };
}

/** `schema` with `type: "object"` when it is an object without `type`; else `schema` itself. */
function withObjectType(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema) || "type" in schema) return schema;
  return { type: "object", ...schema };
}
