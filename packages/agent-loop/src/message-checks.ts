/*
 * Shape checks for the messages and content a host hands the loop. Each
 * check answers what is wrong, with the path of the offending field
 * relative to the value checked (`content[1].text must be a string, got
 * 5`), or `undefined` when the value is well formed; the caller names where
 * the value came from. Checked where a message enters, a malformed one is
 * reported to the host at its call, instead of reaching the transcript and
 * failing a later model request as if the provider had.
 */

/** The block types a user or tool-result message may hold. */
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

/**
 * A short description of a value for an error message: `5`, `NaN`, `null`,
 * `"abc"`, `an array`, `object`, `bigint`, `an unreadable value` (a revoked
 * proxy). Never throws, whatever the value.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "function":
      return "a function";
    case "number":
    case "boolean":
      return String(value);
    case "string":
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "object":
      if (value === null) return "null";
      try {
        return Array.isArray(value) ? "an array" : "object";
      } catch {
        return "an unreadable value";
      }
    default:
      return typeof value;
  }
}

/**
 * `value` as an error message shows what the caller gave: a plain object or
 * list as its JSON text, anything else (and an object JSON cannot write: a
 * cycle, a bigint inside, a revoked proxy) as {@link describeValue} says it.
 * Never throws.
 */
export function valueText(value: unknown): string {
  if (typeof value !== "object" || value === null) return describeValue(value);
  try {
    return JSON.stringify(value) ?? describeValue(value);
  } catch {
    return describeValue(value);
  }
}

/** True for a value of which nothing can be read, not even whether it is a list: a revoked proxy. Never throws. */
export function isUnreadable(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    Array.isArray(value);
    return false;
  } catch {
    return true;
  }
}

/** True for an array; false for anything else, a revoked proxy included (never throws). */
export function isList(value: unknown): value is unknown[] {
  return !isUnreadable(value) && Array.isArray(value);
}

/**
 * True for an object that is not an array (or null): a record whose fields
 * a check can read. False for a revoked proxy, of which nothing can be read
 * (not even whether it is an array); never throws.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isUnreadable(value) && !Array.isArray(value);
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
  if (!isList(content)) {
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

/** What is wrong with one content block whose type must be one of `types`, as a path from the block (`.text must be ...`). */
export function blockProblem(block: unknown, types: readonly string[]): string | undefined {
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
 * What is wrong with a message of the loop's transcript (`undefined`:
 * nothing), as a path from the message (`.content[0].text must be ...`). It
 * must be an object with a string `role`. pi-ai's roles are checked
 * further: `user` holds text or text and image blocks, `assistant` a list of
 * text, thinking and tool-call blocks, `toolResult` a `toolCallId` and a
 * list of text and image blocks. Other roles (a host's own message types)
 * are the host's to read, and pass.
 */
export function agentMessageProblem(message: unknown): string | undefined {
  if (!isRecord(message)) return ` must be a message object with a role, got ${describeValue(message)}`;
  if (typeof message.role !== "string") return `.role must be a string, got ${describeValue(message.role)}`;
  switch (message.role) {
    case "user":
      return prefixed(contentProblem(message.content));
    case "assistant":
      return prefixed(contentProblem(message.content, ASSISTANT_BLOCKS, false));
    case "toolResult":
      if (typeof message.toolCallId !== "string")
        return `.toolCallId must be a string, got ${describeValue(message.toolCallId)}`;
      return prefixed(contentProblem(message.content, USER_BLOCKS, false));
    default:
      return undefined;
  }
}

/** `.${problem}`, or `undefined` without one. */
export function prefixed(problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : `.${problem}`;
}

/**
 * Throws a `TypeError` naming `where` (`Agent.steer: message.content must
 * be ...`) when `messages` is not an array of well-formed messages (see
 * {@link agentMessageProblem}); `name` is the path the problem starts from.
 */
export function assertAgentMessages(messages: unknown, where: string, name: string): void {
  if (!isList(messages)) {
    throw new TypeError(`${where}: ${name} must be an array of messages, got ${describeValue(messages)}`);
  }
  for (let index = 0; index < messages.length; index++) {
    const problem = agentMessageProblem(messages[index]);
    if (problem) throw new TypeError(`${where}: ${name}[${index}]${problem}`);
  }
}

/** Throws a `TypeError` naming `where` when `message` is not a well-formed message (see {@link agentMessageProblem}). */
export function assertAgentMessage(message: unknown, where: string): void {
  const problem = agentMessageProblem(message);
  if (problem) throw new TypeError(`${where}: message${problem}`);
}

/**
 * Throws a `TypeError` naming `where` and the field (`agentLoop:
 * context.tools[1].execute must be a function, got undefined`) unless
 * `tools` is an array of tools, each an object with a string `name`, an
 * `execute` function and a `parameters` schema object; `name` is the path
 * the problem starts from.
 */
export function assertAgentTools(tools: unknown, where: string, name: string): void {
  if (!isList(tools)) {
    throw new TypeError(`${where}: ${name} must be an array of tools, got ${describeValue(tools)}`);
  }
  for (let index = 0; index < tools.length; index++) {
    const tool: unknown = tools[index];
    if (!isRecord(tool)) {
      throw new TypeError(`${where}: ${name}[${index}] must be a tool object, got ${describeValue(tool)}`);
    }
    if (typeof tool.name !== "string") {
      throw new TypeError(`${where}: ${name}[${index}].name must be a string, got ${describeValue(tool.name)}`);
    }
    if (typeof tool.execute !== "function") {
      throw new TypeError(`${where}: ${name}[${index}].execute must be a function, got ${describeValue(tool.execute)}`);
    }
    if (typeof tool.parameters !== "object" || tool.parameters === null) {
      throw new TypeError(
        `${where}: ${name}[${index}].parameters must be a JSON schema object, got ${describeValue(tool.parameters)}`,
      );
    }
  }
}

/**
 * Throws a `TypeError` naming `where` and the field unless `context` is a
 * run's context: an object whose `messages` are well-formed messages (see
 * {@link agentMessageProblem}), whose `tools`, when given, are well-formed
 * tools (see {@link assertAgentTools}), and whose `systemPrompt`, when
 * given, is a string.
 */
export function assertAgentContext(context: unknown, where: string): void {
  if (!isRecord(context)) {
    throw new TypeError(
      `${where}: context must be an object { systemPrompt, messages, tools? }, got ${describeValue(context)}`,
    );
  }
  if (context.systemPrompt !== undefined && typeof context.systemPrompt !== "string") {
    throw new TypeError(`${where}: context.systemPrompt must be a string, got ${describeValue(context.systemPrompt)}`);
  }
  assertAgentMessages(context.messages, where, "context.messages");
  if (context.tools !== undefined) assertAgentTools(context.tools, where, "context.tools");
}
