import { type Tool, type ToolCall, validateToolArguments as validatePiToolArguments } from "@mariozechner/pi-ai";
import { Kind, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { copyArguments, plainSchema } from "./plain-schema-check.js";

/**
 * Compiled checkers for `@sinclair/typebox` schemas, one per schema object.
 * A WeakMap so schemas dropped by the host are collected with their checker.
 */
const compiledSinclairSchemas = new WeakMap<TSchema, TypeCheck<TSchema>>();

/**
 * True for a `@sinclair/typebox` 0.34 schema. Those carry the
 * `Symbol.for("TypeBox.Kind")` marker; pi-ai's `Type` (typebox 1.x) schemas
 * use a `~kind` property instead, and plain JSON Schema has neither.
 */
export function isSinclairSchema(schema: unknown): schema is TSchema {
  return typeof schema === "object" && schema !== null && Kind in schema;
}

function compiledChecker(schema: TSchema): TypeCheck<TSchema> {
  let checker = compiledSinclairSchemas.get(schema);
  if (!checker) {
    checker = TypeCompiler.Compile(schema);
    compiledSinclairSchemas.set(schema, checker);
  }
  return checker;
}

function formatSinclairErrors(toolName: string, checker: TypeCheck<TSchema>, value: unknown, raw: unknown): string {
  const lines: string[] = [];
  for (const error of checker.Errors(value)) {
    const path = error.path === "" ? "root" : error.path.slice(1).replaceAll("/", ".");
    lines.push(`  - ${path}: ${error.message}`);
    if (lines.length >= 10) break;
  }
  return `Validation failed for tool "${toolName}":\n${lines.join("\n")}\n\nReceived arguments:\n${JSON.stringify(raw, null, 2)}`;
}

/**
 * Validates a tool call's arguments against the tool's schema and returns
 * the coerced arguments (for example `{"n": "42"}` becomes `{ n: 42 }` when
 * `n` is a number).
 *
 * - `@sinclair/typebox` 0.34 schemas: defaults applied and values converted
 *   with its `Value` functions, then checked with a checker compiled once per
 *   schema.
 * - pi-ai `Type` schemas and plain JSON Schema: arguments that pass a
 *   checker compiled once per schema (pi-ai's compiler) are returned as
 *   sent (a copy equal to their `structuredClone`); others go through
 *   pi-ai's `validateToolArguments`, which coerces the same way. A
 *   reference the schema cannot resolve (a `$ref` to another document, a
 *   missing pointer or anchor) allows anything, where pi-ai's validator
 *   fails every call ("schema is false"). Unlike
 *   pi-ai alone, valid arguments are never changed: a `null` the schema
 *   allows (a nullable `anyOf`, as Pydantic servers declare optional
 *   fields) stays `null` instead of becoming `""`, `0` or `false`.
 *
 * Always a copy, never `toolCall.arguments` itself (a tool that edits its
 * arguments leaves the call the model is sent back as it was), and never
 * mutates `toolCall.arguments`. Throws an `Error` whose message lists
 * what is wrong, which the loop turns into an error tool result.
 */
export function validateToolArguments(tool: Tool<any>, toolCall: ToolCall): any {
  const schema: unknown = tool.parameters;
  if (!isSinclairSchema(schema)) {
    const plain = plainSchema(schema);
    if (plain?.check?.(toolCall.arguments)) return copyArguments(toolCall.arguments);
    const validated = plain && plain.schema !== schema ? { ...tool, parameters: plain.schema } : tool;
    return validatePiToolArguments(validated as Tool<any>, toolCall);
  }
  const checker = compiledChecker(schema);
  const raw = toolCall.arguments;
  // A copy, as pi-ai's validator returns: a tool that edits its arguments never edits the call in the transcript.
  if (checker.Check(raw)) return copyArguments(raw);
  // Clone first: Default and Convert may return the same (mutated) object.
  // structuredClone, not Value.Clone: Value.Clone copies by assignment, so a
  // "__proto__" key from the model replaced the prototype of the arguments
  // object (inherited, attacker-chosen properties). structuredClone keeps it
  // an own data property, as pi-ai's validator does.
  const converted = Value.Convert(schema, Value.Default(schema, structuredClone(raw)));
  if (checker.Check(converted)) return converted;
  throw new Error(formatSinclairErrors(tool.name, checker, converted, raw));
}
