/**
 * What a generated MCP server sends the client in the middle of a call
 * (the `mcp-server` property): sampling and elicitation requests with odd
 * or invalid parameters, and JSON-RPC messages a server should not send
 * (progress that is no number or for nobody's token, log messages of no
 * level, unknown notifications, answers to requests nobody made, an early
 * or malformed answer to the call itself, requests with bad parameters).
 * `$id` stands for the call's request id.
 */
import fc from "fast-check";

/** Parameters of `sampling/createMessage`, valid and not. */
export const samplingParams: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom<Record<string, unknown>>(
  { messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }], maxTokens: 50 },
  {
    messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }],
    maxTokens: 1_000_000,
    systemPrompt: "Be brief.",
  },
  {
    messages: [{ role: "user", content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } }],
    maxTokens: 5,
  },
  { messages: [{ role: "user", content: { type: "audio", data: "UklGRg==", mimeType: "audio/wav" } }], maxTokens: 5 },
  { messages: [{ role: "assistant", content: { type: "text", text: "fuzz-sample" } }], maxTokens: 5 },
  { messages: [], maxTokens: 5 },
  { messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }], maxTokens: 0 },
  { messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }], maxTokens: -3 },
  { messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }] },
  { messages: "fuzz-sample", maxTokens: 5 },
  { messages: [{ role: "user", content: [{ type: "text", text: "fuzz-sample" }] }], maxTokens: 5 },
  {
    messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }],
    maxTokens: 5,
    includeContext: "allServers",
  },
  {
    messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }],
    maxTokens: 5,
    modelPreferences: { hints: [{ name: "claude" }], costPriority: 2 },
    stopSequences: ["x"],
    temperature: 9,
  },
  {
    messages: [{ role: "user", content: { type: "text", text: "fuzz-sample" } }],
    maxTokens: 5,
    tools: [{ name: "t", inputSchema: { type: "object" } }],
  },
);

/** Parameters of `elicitation/create`, valid and not. */
export const elicitationParams: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom<Record<string, unknown>>(
  { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
  {
    message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string", minLength: 9 } }, required: ["name"] },
  },
  { message: "Pick", requestedSchema: { type: "object", properties: { c: { type: "string", enum: ["a", "b"] } } } },
  { message: "", requestedSchema: { type: "object", properties: {} } },
  { message: "Nested?", requestedSchema: { type: "object", properties: { o: { type: "object" } } } },
  { message: "No schema" },
  { message: 5, requestedSchema: { type: "object", properties: {} } },
  { message: "Bad schema", requestedSchema: { type: "string" } },
  { mode: "url", message: "Open this", url: "https://example.com/auth", elicitationId: "e1" },
  { mode: "telepathy", message: "?" },
);

/** Messages a server should not send, or sends oddly, on a call's stream. */
export const rawMessage: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "$id", progress: "half" } },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "nobody's", progress: 1 } },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "$id", progress: 5, total: 1 } },
  { jsonrpc: "2.0", method: "notifications/message", params: { level: "shouting", data: "x" } },
  { jsonrpc: "2.0", method: "notifications/message", params: null },
  { jsonrpc: "2.0", method: "notifications/message" },
  { jsonrpc: "2.0", method: "notifications/unknown_thing", params: { a: 1 } },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "$id", reason: "server gave up" } },
  { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "mem://never-subscribed" } },
  { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: "odd" },
  { jsonrpc: "2.0", id: 987654, result: { content: [] } },
  { jsonrpc: "2.0", id: "not-a-request", error: { code: -32603, message: "stray" } },
  { jsonrpc: "2.0", id: "$id", result: { content: "early and wrong" } },
  { jsonrpc: "2.0", id: "$id", error: { code: "text", message: 5 } },
  { jsonrpc: "2.0", id: "$id", result: { content: [{ type: "text", text: "early" }] } },
  { jsonrpc: "1.0", method: "notifications/progress", params: {} },
  { jsonrpc: "2.0", id: 5, method: "sampling/createMessage", params: null },
  { jsonrpc: "2.0", id: 6, method: "elicitation/create", params: { message: 5 } },
  { jsonrpc: "2.0", id: 7, method: "roots/list", params: { _meta: null } },
  [{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "$id", progress: 1 } }],
  // As a server written in Python writes them: absent members as null.
  {
    jsonrpc: "2.0",
    id: null,
    method: "notifications/progress",
    params: { progressToken: "$id", progress: 1, total: null, message: null, _meta: null },
  },
  {
    jsonrpc: "2.0",
    id: null,
    method: "notifications/message",
    params: { level: "info", logger: null, data: null, _meta: null },
  },
  { jsonrpc: "2.0" },
);
