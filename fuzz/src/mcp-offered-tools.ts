/**
 * The `mcp-server` properties' check that a server's tools reach the
 * model: every entry of its `tools/list` that the protocol takes (read as
 * agent-mcp's README says: a null optional field as an absent one, an
 * input or output schema without `type` as an object schema) is offered to the turn
 * by the server's name, none silently left out.
 */
import type { McpServerStatus } from "@turnkit/agent-mcp";
import { ServerCapabilitiesSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import type { McpFuzzCase } from "./mcp-server-arbitraries.js";

/**
 * The names of the `tools/list` entries a client can offer: each entry,
 * its null fields (other than `name`) and its annotations' null fields
 * dropped, and its input schema given `"type": "object"` when it has no
 * `type` (or is absent), its output schema too when it has no `type`, that
 * the protocol's tool schema takes.
 */
export function offerableToolNames(entries: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    const parsed = ToolSchema.safeParse(asAuthorMeant(entry));
    if (parsed.success) names.add(parsed.data.name);
  }
  return names;
}

function asAuthorMeant(entry: unknown): unknown {
  if (!isObject(entry)) return entry;
  const read = withoutNulls(entry, "name");
  if (isObject(read.annotations)) read.annotations = withoutNulls(read.annotations);
  if (read.inputSchema === undefined) read.inputSchema = { type: "object" };
  else if (isObject(read.inputSchema) && !("type" in read.inputSchema))
    read.inputSchema = { type: "object", ...read.inputSchema };
  if (isObject(read.outputSchema) && !("type" in read.outputSchema))
    read.outputSchema = { type: "object", ...read.outputSchema };
  return read;
}

function withoutNulls(value: Record<string, unknown>, kept?: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key, field]) => field !== null || key === kept));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * After a turn's assembly, of a server that declares tools (with
 * capabilities the protocol takes) and lists them in a list that ends (one
 * page or pages): at `firstConnect` (the first turn of a server nothing
 * else disturbs, over HTTP) the server is `ready`; once `ready`, the
 * server's tool names in `status` are the offerable entries of the list it
 * answered (the first one, or, after a call announced a change, the
 * changed one), none left out and none added, and every tool in `status`
 * is one of the turn's tools (`offered`, the names the model sees).
 */
export function checkToolsOffered(
  spec: McpFuzzCase,
  status: McpServerStatus,
  offered: readonly string[],
  firstConnect: boolean,
): void {
  const { capabilities } = spec.server;
  if (capabilities.tools === undefined || !ServerCapabilitiesSchema.safeParse(capabilities).success) return;
  if (spec.listing !== "one" && spec.listing !== "pages" && spec.listing !== "offsets") return;
  if (firstConnect && status.state !== "ready")
    throw new InvariantViolation(
      "a server that answers its handshake and lists its tools is connected",
      describeValue({ state: status.state, lastError: status.lastError?.message }),
    );
  if (status.state !== "ready") return;
  const listed = [...new Set(status.tools.map((tool) => tool.serverToolName))].sort();
  const changes = spec.tools.some((tool) => tool.steps.some((step) => step.kind === "listChanged"));
  const lists = [
    spec.tools.map((tool) => tool.entry),
    ...(changes && spec.toolsAfterChange ? [spec.toolsAfterChange] : []),
  ];
  const expected = lists.map((entries) => [...offerableToolNames(entries)].sort());
  if (!expected.some((names) => JSON.stringify(names) === JSON.stringify(listed)))
    throw new InvariantViolation(
      "the tools offered are those the server listed that the protocol takes",
      `offered ${describeValue(listed)}, listed and offerable ${describeValue(expected)}`,
    );
  const absent = status.tools.filter((tool) => !offered.includes(tool.name));
  if (absent.length > 0)
    throw new InvariantViolation(
      "every tool the status lists is one of the turn's tools",
      `${describeValue(absent.map((tool) => tool.name))} not among ${describeValue(offered)}`,
    );
}
