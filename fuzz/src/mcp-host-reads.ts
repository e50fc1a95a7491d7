/**
 * The host's own reads of a generated MCP server (the `mcp-server`
 * property): what the server answers `resources/list`,
 * `resources/templates/list`, `resources/read`, `prompts/list` and
 * `prompts/get` (lists with entries missing or breaking fields, contents
 * of every kind with odd values, prompt messages of every role and content
 * kind, JSON-RPC errors, a handler that throws, no answer; served by
 * `mcp-host-read-answers.ts`), and the checks
 * of what `@turnkit/agent-mcp` makes of it: `listResources`,
 * `listResourceTemplates`, `readResource`, `resourceAsContext`,
 * `listPrompts`, `getPrompt` and `expandPrompt` each settle within the
 * call timeout; a failure is an `McpServerError` with a known code that
 * names the server; what `resourceAsContext` and `expandPrompt` hand the
 * host is a message a turn takes (images of a type models take); no
 * engine text anywhere.
 */
import { inputMessageProblem } from "@turnkit/agent-core/internal";
import { agentMessageProblem } from "@turnkit/agent-loop/internal";
import { type McpExtension, McpServerError, McpServerErrorCode } from "@turnkit/agent-mcp";
import fc from "fast-check";
import { engineText } from "./invariants/no-engine-errors.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import { contentBlock, generatedText as text, resourceContents } from "./mcp-call-results.js";

/** How the server answers one of the host's reads. */
export type McpReadAnswer =
  /** This JSON as the result, sent as it is (it may break the protocol's schema). */
  | { readonly kind: "result"; readonly result: Record<string, unknown> }
  | { readonly kind: "jsonRpcError"; readonly code: number; readonly message: string }
  | { readonly kind: "throw" }
  | { readonly kind: "hang" };

/** The server's answers to the host's reads, and whether it declares resources and prompts at all. */
export interface McpHostReads {
  readonly declared: boolean;
  readonly resources: McpReadAnswer;
  readonly templates: McpReadAnswer;
  readonly read: McpReadAnswer;
  readonly prompts: McpReadAnswer;
  readonly prompt: McpReadAnswer;
}

const URI = "file:///fuzz/notes.txt";
const PROMPT = "summarise";

/** An answer: mostly the generated result; a hang (which costs a call timeout) only now and then. */
function answerOf(result: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<McpReadAnswer> {
  return fc.oneof(
    { weight: 16, arbitrary: result.map((value) => ({ kind: "result" as const, result: value })) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("jsonRpcError" as const),
        code: fc.constantFrom(-32002, -32602, -32603, 1),
        message: fc.constantFrom("no such resource", ""),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: "throw" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "hang" as const }) },
  );
}

const listEntry = (field: "uri" | "uriTemplate" | "name") =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ [field]: fc.constant(field === "name" ? PROMPT : URI), name: text }) },
    fc.constantFrom({ name: "no uri" }, { uri: 5, name: "x" }, null, "entry", { [field]: "", name: "" }),
  );

const listResult = (key: string, entry: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(entry, { maxLength: 3 }).map((entries) => ({ [key]: entries })) },
    fc.constantFrom({ [key]: null }, { [key]: "none" }, {}, { [key]: [], nextCursor: 5 }),
  );

const promptMessage = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ role: fc.constantFrom("user", "assistant", "system", 5), content: contentBlock }),
  },
  fc.constantFrom(null, { role: "user" }, { content: { type: "text", text: "no role" } }, "message"),
);

/** The host's reads, as a case of the `mcp-server` property generates them. */
export const hostReadsArbitrary: fc.Arbitrary<McpHostReads> = fc.record({
  declared: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
  resources: answerOf(listResult("resources", listEntry("uri"))),
  templates: answerOf(listResult("resourceTemplates", listEntry("uriTemplate"))),
  read: answerOf(
    fc.oneof(
      { weight: 4, arbitrary: fc.array(resourceContents, { maxLength: 3 }).map((contents) => ({ contents })) },
      fc.constantFrom({ contents: null }, { contents: "text" }, {}),
    ),
  ),
  prompts: answerOf(listResult("prompts", listEntry("name"))),
  prompt: answerOf(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .record(
            { description: text, messages: fc.array(promptMessage, { maxLength: 3 }) },
            { requiredKeys: ["messages"] },
          )
          .map((result) => result as Record<string, unknown>),
      },
      fc.constantFrom({ messages: null }, { messages: "text" }, {}),
    ),
  ),
});

const ERROR_CODES = new Set<string>(Object.values(McpServerErrorCode));

/** The host's reads {@link checkHostReads} makes, in order; each may wait out a call timeout (a server that never answers). */
export const HOST_READS = [
  "listResources",
  "listResourceTemplates",
  "readResource",
  "resourceAsContext",
  "listPrompts",
  "getPrompt",
  "expandPrompt",
] as const;

/**
 * Makes each of the host's reads through `mcp` (`bounded` throws when one
 * does not settle in time) and throws an {@link InvariantViolation} for
 * the first broken invariant.
 */
export async function checkHostReads(
  mcp: McpExtension,
  serverId: string,
  bounded: <T>(promise: Promise<T>, what: string) => Promise<T>,
  imageType: (data: string) => string | undefined,
): Promise<void> {
  const reads: Record<(typeof HOST_READS)[number], () => Promise<unknown>> = {
    listResources: () => mcp.listResources(),
    listResourceTemplates: () => mcp.listResourceTemplates(),
    readResource: () => mcp.readResource(URI),
    resourceAsContext: () => mcp.resourceAsContext(URI),
    listPrompts: () => mcp.listPrompts(),
    getPrompt: () => mcp.getPrompt(PROMPT, { topic: "x" }),
    expandPrompt: () => mcp.expandPrompt(PROMPT, { topic: "x" }),
  };
  for (const name of HOST_READS) {
    const settled = await bounded(
      reads[name]().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      `${name}()`,
    );
    const where = `${name}: ${describeValue(settled)}`;
    const found = engineText("error" in settled ? errorFields(settled.error) : settled.value);
    if (found) throw new InvariantViolation("no engine text in what the host reads", `${name}: …${found}…`);
    if ("error" in settled) {
      const { error } = settled;
      if (!McpServerError.isInstance(error) || !ERROR_CODES.has(error.code))
        throw new InvariantViolation("a failed read is an McpServerError with a known code", where);
      if (!error.message.includes(`"${serverId}"`))
        throw new InvariantViolation("a failed read names the server", where);
      continue;
    }
    if (name === "resourceAsContext") checkMessage(agentMessageProblem(settled.value), where);
    if (name === "expandPrompt") checkMessage(inputMessageProblem(settled.value), where);
    if (name === "resourceAsContext" || name === "expandPrompt") checkImages(settled.value, where, imageType);
  }
}

function checkMessage(problem: string | undefined, where: string): void {
  if (problem)
    throw new InvariantViolation("what the host is handed is a message a turn takes", `${problem}: ${where}`);
}

/** Every image block of `message` (its content, or its images) is of a type a model takes, as its bytes say. */
function checkImages(message: unknown, where: string, imageType: (data: string) => string | undefined): void {
  const { content, images } = message as { content?: unknown; images?: unknown };
  const blocks = [...(Array.isArray(content) ? content : []), ...(Array.isArray(images) ? images : [])];
  for (const block of blocks as { type?: unknown; data?: unknown; mimeType?: unknown }[]) {
    if (block?.type !== "image") continue;
    if (typeof block.data !== "string" || imageType(block.data) !== block.mimeType)
      throw new InvariantViolation("an image the host is handed is of a type models take", where);
  }
}

function errorFields(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return { name: error.name, message: error.message, code: (error as { code?: unknown }).code };
}
