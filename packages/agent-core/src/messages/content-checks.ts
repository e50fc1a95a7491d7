/*
 * Shape checks for messages and content that host code hands a turn: the
 * input's history and hidden messages, steering answers, hook decisions and
 * tool results. Each check answers what is wrong, with the path of the
 * offending field relative to the value checked (`content[1].text must be a
 * string, got 5`), or `undefined` when the value is well formed; the caller
 * names where the value came from and decides whose fault it is. Checked
 * where the value enters, a malformed message is reported as the host's
 * mistake instead of failing a later model request as if the provider had.
 */

/** The block types a user, hidden or tool-result message may hold. */
const USER_BLOCKS: readonly string[] = ["text", "image"];

/** The block types an assistant message may hold. */
const ASSISTANT_BLOCKS: readonly string[] = ["text", "thinking", "toolCall"];

/** The string fields each block type needs. */
const REQUIRED_STRINGS: Readonly<Record<string, readonly string[]>> = {
  text: ["text"],
  image: ["data", "mimeType"],
  thinking: ["thinking"],
  toolCall: ["id", "name"],
};

/** A short description of a value for an error message: `5`, `null`, `"abc"`, `an array`, `object`. */
export function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What is wrong with `content` (`undefined`: nothing): a list of blocks, each
 * an object whose `type` is one of `types` and whose fields of that type are
 * strings (`text`; an image's `data` and `mimeType`; `thinking`; a tool
 * call's `id` and `name`). With `allowString`, plain text is well formed too.
 */
export function contentProblem(
  content: unknown,
  types: readonly string[] = USER_BLOCKS,
  allowString = true,
): string | undefined {
  if (allowString && typeof content === "string") return undefined;
  if (!Array.isArray(content)) {
    const expected = allowString ? "a string or an array of content blocks" : "an array of content blocks";
    return `content must be ${expected}, got ${describeValue(content)}`;
  }
  for (let index = 0; index < content.length; index++) {
    const problem = blockProblem(content[index], types);
    if (problem) return `content[${index}]${problem}`;
  }
  return undefined;
}

/** `"text", "image"`: the block types of a message, for an error. */
function typeList(types: readonly string[]): string {
  return types.map((type) => JSON.stringify(type)).join(", ");
}

function blockProblem(block: unknown, types: readonly string[]): string | undefined {
  if (!isRecord(block))
    return ` must be a content block { type: ${typeList(types)}, ... }, got ${describeValue(block)}`;
  if (typeof block.type !== "string" || !types.includes(block.type))
    return `.type must be one of ${typeList(types)}, got ${describeValue(block.type)}`;
  for (const field of REQUIRED_STRINGS[block.type] ?? []) {
    if (typeof block[field] !== "string") return `.${field} must be a string, got ${describeValue(block[field])}`;
  }
  return undefined;
}

/**
 * What is wrong with a transcript message (`undefined`: nothing). It must be
 * an object with a string `role`. The roles Turnkit knows are checked
 * further: `user` and `hidden` hold text or text and image blocks,
 * `assistant` a list of text, thinking and tool-call blocks, `toolResult` a
 * `toolCallId` and a list of text and image blocks, `host` a `kind`. Other
 * roles (a host's own message types) are the host's to read, and pass.
 */
export function messageProblem(message: unknown): string | undefined {
  if (!isRecord(message) || typeof message.role !== "string")
    return ` must be a message object with a role, got ${describeValue(message)}`;
  switch (message.role) {
    case "user":
    case "hidden":
      return prefixed(contentProblem(message.content));
    case "assistant":
      return prefixed(contentProblem(message.content, ASSISTANT_BLOCKS, false));
    case "toolResult":
      if (typeof message.toolCallId !== "string")
        return `.toolCallId must be a string, got ${describeValue(message.toolCallId)}`;
      return prefixed(contentProblem(message.content, USER_BLOCKS, false));
    case "host":
      return typeof message.kind === "string"
        ? undefined
        : `.kind must be a string, got ${describeValue(message.kind)}`;
    default:
      return undefined;
  }
}

/**
 * What is wrong with a model's response as a stream function handed it over
 * (`undefined`: nothing): it must be an `assistant` message whose content
 * is well formed (see {@link messageProblem}).
 */
export function responseProblem(message: unknown): string | undefined {
  if (!isRecord(message) || message.role !== "assistant")
    return ` must be an assistant message, got ${isRecord(message) ? `role ${describeValue(message.role)}` : describeValue(message)}`;
  return messageProblem(message);
}

/** What is wrong with the first malformed message of `messages` (`[2].content must be ...`), or with `messages` not being a list. */
export function messagesProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return ` must be an array of messages, got ${describeValue(messages)}`;
  for (let index = 0; index < messages.length; index++) {
    const problem = messageProblem(messages[index]);
    if (problem) return `[${index}]${problem}`;
  }
  return undefined;
}

/**
 * What is wrong with a message as the host sends one (`{ text, images?,
 * batchId? }`: the input's user message, a steering answer), or
 * `undefined`: `text` a string, `images` a list of image blocks, `batchId`
 * a string.
 */
export function inputMessageProblem(message: unknown): string | undefined {
  if (!isRecord(message)) return ` must be a message { text, images?, batchId? }, got ${describeValue(message)}`;
  if (typeof message.text !== "string") return `.text must be a string, got ${describeValue(message.text)}`;
  if (message.images !== undefined) {
    if (!Array.isArray(message.images)) return `.images must be an array, got ${describeValue(message.images)}`;
    const bad = message.images.findIndex((image) => blockProblem(image, ["image"]) !== undefined);
    if (bad >= 0) return `.images[${bad}] must be an image { type: "image", data, mimeType }`;
  }
  if (message.batchId !== undefined && typeof message.batchId !== "string")
    return `.batchId must be a string, got ${describeValue(message.batchId)}`;
  return undefined;
}

function prefixed(problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : `.${problem}`;
}
