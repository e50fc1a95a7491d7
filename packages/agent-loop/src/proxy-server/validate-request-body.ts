import type { Context, Message, Model, Tool } from "@mariozechner/pi-ai";
import {
  PROXY_STREAM_OPTION_KEYS,
  type ProxyRequestBody,
  type ProxySerializableStreamOptions,
} from "../proxy/proxy-protocol.js";
import { invalidField } from "./proxy-request-error.js";

/*
 * Checks a proxy request body field by field, so a bad request is refused
 * with the path of the first bad field (`context.messages[2].content[0].text`)
 * before any provider sees it. Checks what providers read; extra fields pass.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function object(value: unknown, field: string): Json {
  if (!isObject(value)) throw invalidField(field, "an object");
  return value;
}

function array(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidField(field, "an array");
  return value;
}

function string(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidField(field, "a string");
  return value;
}

function finiteNumber(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw invalidField(field, "a finite number");
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw invalidField(field, `one of ${allowed.map((entry) => JSON.stringify(entry)).join(", ")}`);
  return value as T;
}

/** Checks `record[key]` with `check` unless the key is absent. */
function optional(record: Json, key: string, field: string, check: (value: unknown, field: string) => unknown): void {
  if (record[key] !== undefined) check(record[key], `${field}.${key}`);
}

function stringRecord(value: unknown, field: string): void {
  for (const [key, entry] of Object.entries(object(value, field))) string(entry, `${field}.${key}`);
}

function numberRecord(value: unknown, field: string): void {
  for (const [key, entry] of Object.entries(object(value, field))) finiteNumber(entry, `${field}.${key}`);
}

function validateModel(value: unknown, field: string): Model<any> {
  const model = object(value, field);
  for (const key of ["id", "name", "api", "provider", "baseUrl"]) string(model[key], `${field}.${key}`);
  if (typeof model.reasoning !== "boolean") throw invalidField(`${field}.reasoning`, "a boolean");
  array(model.input, `${field}.input`).forEach((entry, index) =>
    oneOf(entry, `${field}.input[${index}]`, ["text", "image"]),
  );
  numberRecord(model.cost, `${field}.cost`);
  finiteNumber(model.contextWindow, `${field}.contextWindow`);
  finiteNumber(model.maxTokens, `${field}.maxTokens`);
  optional(model, "headers", field, stringRecord);
  return model as unknown as Model<any>;
}

const BLOCK_TYPES_BY_ROLE = {
  user: ["text", "image"],
  assistant: ["text", "thinking", "toolCall"],
  toolResult: ["text", "image"],
} as const;

function validateBlock(value: unknown, field: string, allowed: readonly string[]): void {
  const block = object(value, field);
  const type = oneOf(block.type, `${field}.type`, allowed);
  switch (type) {
    case "text":
      string(block.text, `${field}.text`);
      return;
    case "image":
      string(block.data, `${field}.data`);
      string(block.mimeType, `${field}.mimeType`);
      return;
    case "thinking":
      string(block.thinking, `${field}.thinking`);
      return;
    case "toolCall":
      string(block.id, `${field}.id`);
      string(block.name, `${field}.name`);
      object(block.arguments, `${field}.arguments`);
      return;
    default:
      throw invalidField(`${field}.type`, `one of ${allowed.join(", ")}`);
  }
}

function validateMessage(value: unknown, field: string): Message {
  const message = object(value, field);
  const role = oneOf(message.role, `${field}.role`, ["user", "assistant", "toolResult"] as const);
  optional(message, "timestamp", field, finiteNumber);
  const blocks = (content: unknown) =>
    array(content, `${field}.content`).forEach((block, index) =>
      validateBlock(block, `${field}.content[${index}]`, BLOCK_TYPES_BY_ROLE[role]),
    );
  switch (role) {
    case "user":
      if (typeof message.content !== "string") blocks(message.content);
      break;
    case "assistant":
      blocks(message.content);
      for (const key of ["api", "provider", "model"]) string(message[key], `${field}.${key}`);
      oneOf(message.stopReason, `${field}.stopReason`, ["stop", "length", "toolUse", "error", "aborted"]);
      break;
    case "toolResult":
      blocks(message.content);
      string(message.toolCallId, `${field}.toolCallId`);
      string(message.toolName, `${field}.toolName`);
      if (typeof message.isError !== "boolean") throw invalidField(`${field}.isError`, "a boolean");
      break;
    default: {
      const unknown: never = role;
      throw invalidField(`${field}.role`, `a known role, not ${String(unknown)}`);
    }
  }
  return message as unknown as Message;
}

function validateTool(value: unknown, field: string): Tool {
  const tool = object(value, field);
  string(tool.name, `${field}.name`);
  string(tool.description, `${field}.description`);
  object(tool.parameters, `${field}.parameters`);
  return tool as unknown as Tool;
}

function validateContext(value: unknown, field: string): Context {
  const context = object(value, field);
  optional(context, "systemPrompt", field, string);
  array(context.messages, `${field}.messages`).forEach((message, index) =>
    validateMessage(message, `${field}.messages[${index}]`),
  );
  if (context.tools !== undefined)
    array(context.tools, `${field}.tools`).forEach((tool, index) => validateTool(tool, `${field}.tools[${index}]`));
  return context as unknown as Context;
}

/** The known options, checked; unknown keys are dropped so nothing the client adds (an `apiKey`) reaches the provider. */
function validateOptions(value: unknown, field: string): ProxySerializableStreamOptions {
  if (value === undefined) return {};
  const options = object(value, field);
  optional(options, "temperature", field, finiteNumber);
  optional(options, "maxTokens", field, finiteNumber);
  optional(options, "reasoning", field, (entry, path) =>
    oneOf(entry, path, ["minimal", "low", "medium", "high", "xhigh"]),
  );
  optional(options, "cacheRetention", field, (entry, path) => oneOf(entry, path, ["none", "short", "long"]));
  optional(options, "sessionId", field, string);
  optional(options, "headers", field, stringRecord);
  optional(options, "metadata", field, object);
  optional(options, "transport", field, (entry, path) =>
    oneOf(entry, path, ["sse", "websocket", "websocket-cached", "auto"]),
  );
  optional(options, "thinkingBudgets", field, numberRecord);
  optional(options, "maxRetryDelayMs", field, finiteNumber);
  const known: Json = {};
  for (const key of PROXY_STREAM_OPTION_KEYS) if (options[key] !== undefined) known[key] = options[key];
  return known as ProxySerializableStreamOptions;
}

/**
 * The body as a {@link ProxyRequestBody}, or a `ProxyRequestError` with code
 * `invalid_field` naming the first field that is missing or of the wrong
 * type. `options` may be absent (read as `{}`); only its known keys are kept.
 */
export function validateProxyRequestBody(value: unknown): ProxyRequestBody {
  const body = object(value, "body");
  return {
    model: validateModel(body.model, "model"),
    context: validateContext(body.context, "context"),
    options: validateOptions(body.options, "options"),
  };
}
