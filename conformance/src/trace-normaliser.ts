import type { AgentEvent, AgentMessage } from "@mariozechner/pi-agent-core";
import type {
  AssistantMessageEvent,
  Context,
  ImageContent,
  Message,
  SimpleStreamOptions,
  TextContent,
} from "@mariozechner/pi-ai";
import "./custom-messages.js";

/**
 * A normalised trace: one line per event, request and host note, in the
 * order they happened. Lines hold what conformance is about (event types,
 * roles, stop reasons, tool call ids and names, texts, error flags, result
 * ids) and nothing that legitimately varies (timestamps, usage, object
 * identity, partial snapshots).
 */
export type Trace = readonly string[];

/** Extra fields a scenario may ask the normaliser to show. */
export interface NormaliseOptions {
  /** Show `details` of tool results (off by default: details are tool-owned data). */
  details?: boolean;
  /** Stream option keys to show on request lines, e.g. `["transport", "sessionId"]`. `apiKey` is always shown when set. */
  requestOptions?: readonly string[];
}

const quote = (value: string) => JSON.stringify(value);

function describeContentBlock(block: TextContent | ImageContent): string {
  return block.type === "text" ? `text ${quote(block.text)}` : `image(${block.mimeType})`;
}

function describeAssistantBlock(block: Extract<AgentMessage, { role: "assistant" }>["content"][number]): string {
  switch (block.type) {
    case "text":
      return `text ${quote(block.text)}`;
    case "thinking":
      return `thinking ${quote(block.thinking)}`;
    case "toolCall":
      return `${block.id} ${block.name}(${JSON.stringify(block.arguments)})`;
    default: {
      const unknown: never = block;
      return `unknown ${JSON.stringify(unknown)}`;
    }
  }
}

function describeDetails(details: unknown): string {
  return details === undefined ? "undefined" : JSON.stringify(details);
}

/**
 * One message in full: `user [text "hi"]`, `assistant(toolUse) [call_1
 * echo({"text":"hi"})]`, `toolResult call_1 echo error [text "boom"]`.
 * Host-defined messages print their fields except `timestamp`.
 */
export function describeMessage(message: AgentMessage, options: NormaliseOptions = {}): string {
  switch (message.role) {
    case "user": {
      const content =
        typeof message.content === "string"
          ? quote(message.content)
          : `[${message.content.map(describeContentBlock).join(", ")}]`;
      return `user ${content}`;
    }
    case "assistant": {
      const error = message.errorMessage === undefined ? "" : ` error=${quote(message.errorMessage)}`;
      return `assistant(${message.stopReason}) [${message.content.map(describeAssistantBlock).join(", ")}]${error}`;
    }
    case "toolResult": {
      const details = options.details ? ` details=${describeDetails(message.details)}` : "";
      return `toolResult ${message.toolCallId} ${message.toolName} ${message.isError ? "error" : "ok"} [${message.content.map(describeContentBlock).join(", ")}]${details}`;
    }
    default: {
      const { role, timestamp: _timestamp, ...fields } = message;
      return `${role} ${JSON.stringify(fields)}`;
    }
  }
}

/** One message in brief, for lists: `user`, `assistant(stop)`, `toolResult(call_1)`, `notice`. */
export function briefMessage(message: AgentMessage | Message): string {
  switch (message.role) {
    case "assistant":
      return `assistant(${message.stopReason})`;
    case "toolResult":
      return `toolResult(${message.toolCallId})`;
    default:
      return message.role;
  }
}

function describeStreamEvent(event: AssistantMessageEvent): string {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return `${event.type} ${quote(event.delta)}`;
    case "toolcall_end":
      return `${event.type} ${event.toolCall.id} ${event.toolCall.name}`;
    default:
      return event.type;
  }
}

function describeToolResult(result: unknown, isError: boolean | undefined, options: NormaliseOptions): string {
  const flag = isError === undefined ? "" : isError ? "error " : "ok ";
  if (typeof result !== "object" || result === null) return `${flag}${JSON.stringify(result)}`;
  const { content, details, terminate } = result as {
    content?: (TextContent | ImageContent)[];
    details?: unknown;
    terminate?: boolean;
  };
  const blocks = Array.isArray(content) ? `[${content.map(describeContentBlock).join(", ")}]` : JSON.stringify(content);
  return `${flag}${blocks}${terminate ? " terminate" : ""}${options.details ? ` details=${describeDetails(details)}` : ""}`;
}

/** One loop event as one trace line. */
export function normaliseEvent(event: AgentEvent, options: NormaliseOptions = {}): string {
  switch (event.type) {
    case "agent_start":
    case "turn_start":
      return event.type;
    case "agent_end":
      return `agent_end [${event.messages.map(briefMessage).join(", ")}]`;
    case "turn_end":
      return `turn_end ${briefMessage(event.message)} results=[${event.toolResults.map((result) => result.toolCallId).join(", ")}]`;
    case "message_start":
    case "message_end":
      return `${event.type} ${describeMessage(event.message, options)}`;
    case "message_update":
      return `message_update ${describeStreamEvent(event.assistantMessageEvent)}`;
    case "tool_execution_start":
      return `tool_execution_start ${event.toolCallId} ${event.toolName} ${JSON.stringify(event.args)}`;
    case "tool_execution_update":
      return `tool_execution_update ${event.toolCallId} ${event.toolName} ${describeToolResult(event.partialResult, undefined, options)}`;
    case "tool_execution_end":
      return `tool_execution_end ${event.toolCallId} ${event.toolName} ${describeToolResult(event.result, event.isError, options)}`;
    default: {
      const unknown: never = event;
      return `unknown event ${JSON.stringify(unknown)}`;
    }
  }
}

function briefRequestMessage(message: Message): string {
  if (message.role !== "user") return briefMessage(message);
  const texts =
    typeof message.content === "string"
      ? [message.content]
      : message.content.map((block) => (block.type === "text" ? block.text : `<${block.mimeType}>`));
  return `user ${quote(texts.join(" "))}`;
}

/**
 * One model request as one trace line: its number (from 1), the messages it
 * carried in brief, the tools offered, the API key and any stream options
 * the scenario asked for. Lets a trace show requests that were (not) made.
 */
export function normaliseRequest(
  index: number,
  context: Context,
  streamOptions: SimpleStreamOptions | undefined,
  options: NormaliseOptions = {},
): string {
  const parts = [`request ${index}: [${context.messages.map(briefRequestMessage).join(", ")}]`];
  if (context.systemPrompt) parts.push(`system=${quote(context.systemPrompt)}`);
  if (context.tools && context.tools.length > 0)
    parts.push(`tools=[${context.tools.map((tool) => tool.name).join(", ")}]`);
  if (streamOptions?.apiKey !== undefined) parts.push(`apiKey=${streamOptions.apiKey}`);
  const record = (streamOptions ?? {}) as Record<string, unknown>;
  for (const key of options.requestOptions ?? []) parts.push(`${key}=${JSON.stringify(record[key]) ?? "undefined"}`);
  return parts.join(" ");
}
