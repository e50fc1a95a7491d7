/**
 * A scripted response as each API streams it: OpenAI chat completions'
 * chunks, OpenAI responses-API events, Anthropic's messages events and
 * Gemini's generateContent responses, with text, reasoning and tool-call
 * arguments in pieces (Gemini sends a call's arguments whole).
 */
import { callArguments, markedText } from "./scripted-entries.js";
import type { ResponseSpec } from "./scenario.js";
import type { HttpDialect, SseEvent } from "./http-provider-server.js";

const CHUNK_BASE = { id: "chatcmpl-fuzz", object: "chat.completion.chunk", created: 1_700_000_000, model: "fuzz" };

/** An OpenAI chat.completion.chunk event. */
export function chunk(delta: object, finishReason: string | null = null): SseEvent {
  return { data: { ...CHUNK_BASE, choices: [{ index: 0, delta, finish_reason: finishReason }] } };
}

/** A named Anthropic event; its data carries the name as `type`. */
export function named(name: string, data: object): SseEvent {
  return { name, data: { type: name, ...data } };
}

/** `text` in pieces of `size` characters (whole code points), or at word starts when `size` is 0. */
export function piecesOf(text: string, size: number): string[] {
  if (size <= 0) return text.split(/(?=\s)/).filter((piece) => piece !== "");
  const points = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(""));
  return pieces;
}

/** The stop reason chat completions or Anthropic would send for the response's: OpenAI's finish reason, Anthropic's stop reason. */
function stopReasonOf(response: ResponseSpec, dialect: "openai-completions" | "anthropic-messages"): string {
  const openai = dialect === "openai-completions";
  switch (response.stopReason) {
    case "natural":
      return response.calls.length > 0 ? (openai ? "tool_calls" : "tool_use") : openai ? "stop" : "end_turn";
    case "length":
      return openai ? "length" : "max_tokens";
    case "stop":
      return openai ? "stop" : "end_turn";
    case "toolUse":
      return openai ? "tool_calls" : "tool_use";
    case "aborted":
      // No HTTP answer says "aborted" unasked; a filtered answer is the provider's own refusal.
      return openai ? "content_filter" : "refusal";
  }
}

/** The reported usage, when it is something JSON carries (else a plain one). */
function usageOf(response: ResponseSpec): { input: number; output: number } {
  const input = response.usage?.input ?? 11;
  const output = response.usage?.output ?? 7;
  return Number.isFinite(input) && Number.isFinite(output) ? { input, output } : { input: 11, output: 7 };
}

/** An OpenAI response: role, reasoning, text, tool calls (arguments cut into pieces), finish, usage. */
function openaiChunks(response: ResponseSpec, size: number): SseEvent[] {
  const chunks: SseEvent[] = [];
  if (response.ending.kind !== "withoutStart") chunks.push(chunk({ role: "assistant", content: "" }));
  if (response.thinking !== undefined)
    for (const piece of piecesOf(response.thinking, size)) chunks.push(chunk({ reasoning_content: piece }));
  if (response.text !== undefined)
    for (const piece of piecesOf(markedText(response.token, response.text), size))
      chunks.push(chunk({ content: piece }));
  response.calls.forEach((call, index) => {
    const args = JSON.stringify(callArguments(call.args));
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.tool, arguments: "" } }] }),
    );
    for (const piece of piecesOf(args, Math.max(1, size || 4)))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, stopReasonOf(response, "openai-completions")));
  const { input, output } = usageOf(response);
  chunks.push({
    data: {
      ...CHUNK_BASE,
      choices: [],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    },
  });
  return chunks;
}

/** Anthropic's first event of a response. */
export function anthropicMessageStart(inputTokens: number): SseEvent {
  const message = { id: "msg_fuzz", type: "message", role: "assistant", content: [], model: "fuzz" };
  return named("message_start", {
    message: {
      ...message,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
}

/** An Anthropic response: message_start, a block per thinking, text and call (each streamed in pieces), message_delta, message_stop. */
function anthropicChunks(response: ResponseSpec, size: number): SseEvent[] {
  const { input, output } = usageOf(response);
  const chunks: SseEvent[] = [];
  if (response.ending.kind !== "withoutStart") chunks.push(anthropicMessageStart(input));
  let index = 0;
  const block = (start: object, deltas: object[]) => {
    chunks.push(named("content_block_start", { index, content_block: start }));
    for (const delta of deltas) chunks.push(named("content_block_delta", { index, delta }));
    chunks.push(named("content_block_stop", { index }));
    index++;
  };
  if (response.thinking !== undefined)
    block({ type: "thinking", thinking: "" }, [
      ...piecesOf(response.thinking, size).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: "c2ln" },
    ]);
  if (response.text !== undefined)
    block(
      { type: "text", text: "" },
      piecesOf(markedText(response.token, response.text), size).map((text) => ({ type: "text_delta", text })),
    );
  for (const call of response.calls)
    block(
      { type: "tool_use", id: call.id, name: call.tool, input: {} },
      piecesOf(JSON.stringify(callArguments(call.args)), Math.max(1, size || 4)).map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      })),
    );
  chunks.push(
    named("message_delta", {
      delta: { stop_reason: stopReasonOf(response, "anthropic-messages"), stop_sequence: null },
      usage: { output_tokens: output },
    }),
  );
  chunks.push(named("message_stop", {}));
  return chunks;
}

/** A response's events in `dialect`, its text and arguments in pieces of `size` characters (0: at word starts). */
export function responseChunks(response: ResponseSpec, dialect: HttpDialect, size: number): SseEvent[] {
  switch (dialect) {
    case "openai-completions":
      return openaiChunks(response, size);
    case "openai-responses":
      return responsesChunks(response, size);
    case "anthropic-messages":
      return anthropicChunks(response, size);
    case "google-generative-ai":
      return googleChunks(response, size);
  }
}

/** One Gemini streamed response: a candidate with `parts`, and on the last one its finish reason and the usage. */
export function googleChunk(parts: object[], end?: { finishReason: string; input: number; output: number }): SseEvent {
  const candidate = { content: { role: "model", parts }, index: 0, ...(end && { finishReason: end.finishReason }) };
  const usage = end && {
    usageMetadata: {
      promptTokenCount: end.input,
      candidatesTokenCount: end.output,
      totalTokenCount: end.input + end.output,
    },
  };
  return { data: { candidates: [candidate], ...usage, modelVersion: "fuzz-http-model", responseId: "gemini-fuzz" } };
}

/** Gemini's finish reason for the response's stop reason (a tool call makes pi-ai's "stop" a tool use). */
function googleFinishReason(response: ResponseSpec): string {
  if (response.stopReason === "length") return "MAX_TOKENS";
  // No HTTP answer says "aborted" unasked; a blocked answer is the provider's own refusal.
  return response.stopReason === "aborted" ? "SAFETY" : "STOP";
}

/** A Gemini response: thought parts, text parts, one part per call (its arguments whole), then the finish and usage. */
function googleChunks(response: ResponseSpec, size: number): SseEvent[] {
  const chunks: SseEvent[] = [];
  if (response.thinking !== undefined)
    for (const text of piecesOf(response.thinking, size)) chunks.push(googleChunk([{ text, thought: true }]));
  if (response.text !== undefined)
    for (const text of piecesOf(markedText(response.token, response.text), size)) chunks.push(googleChunk([{ text }]));
  for (const call of response.calls)
    chunks.push(googleChunk([{ functionCall: { id: call.id, name: call.tool, args: callArguments(call.args) } }]));
  chunks.push(googleChunk([], { finishReason: googleFinishReason(response), ...usageOf(response) }));
  return chunks;
}

/** A responses-API status for the response's stop reason (its tool calls make pi-ai's "stop" a tool use). */
function responsesStatus(response: ResponseSpec): string {
  if (response.stopReason === "length") return "incomplete";
  return response.stopReason === "aborted" ? "failed" : "completed";
}

/** The start of a responses-API text item: the item, then its one output_text part. */
export function responsesTextStart(outputIndex: number): SseEvent[] {
  const id = `msg_${outputIndex}`;
  return [
    named("response.output_item.added", {
      output_index: outputIndex,
      item: { type: "message", id, role: "assistant", status: "in_progress", content: [] },
    }),
    named("response.content_part.added", {
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    }),
  ];
}

/** A responses-API response: response.created, an item per thinking (summary), text and call, each streamed in pieces, response.completed. */
function responsesChunks(response: ResponseSpec, size: number): SseEvent[] {
  const { input, output } = usageOf(response);
  const chunks: SseEvent[] = [];
  if (response.ending.kind !== "withoutStart")
    chunks.push(named("response.created", { response: { id: "resp_fuzz", status: "in_progress", output: [] } }));
  let outputIndex = 0;
  if (response.thinking !== undefined) {
    const item = { type: "reasoning", id: "rs_0", summary: [] };
    chunks.push(named("response.output_item.added", { output_index: outputIndex, item }));
    chunks.push(named("response.reasoning_summary_part.added", { part: { type: "summary_text", text: "" } }));
    for (const delta of piecesOf(response.thinking, size))
      chunks.push(named("response.reasoning_summary_text.delta", { delta }));
    chunks.push(
      named("response.output_item.done", {
        output_index: outputIndex++,
        item: { ...item, summary: [{ type: "summary_text", text: response.thinking }] },
      }),
    );
  }
  if (response.text !== undefined) {
    const text = markedText(response.token, response.text);
    chunks.push(...responsesTextStart(outputIndex));
    for (const delta of piecesOf(text, size)) chunks.push(named("response.output_text.delta", { delta }));
    chunks.push(
      named("response.output_item.done", {
        output_index: outputIndex,
        item: {
          type: "message",
          id: `msg_${outputIndex++}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text, annotations: [] }],
        },
      }),
    );
  }
  for (const call of response.calls) {
    const args = JSON.stringify(callArguments(call.args));
    const item = { type: "function_call", id: `fc_${outputIndex}`, call_id: call.id, name: call.tool };
    chunks.push(named("response.output_item.added", { output_index: outputIndex, item: { ...item, arguments: "" } }));
    for (const delta of piecesOf(args, Math.max(1, size || 4)))
      chunks.push(named("response.function_call_arguments.delta", { delta }));
    chunks.push(named("response.function_call_arguments.done", { arguments: args }));
    chunks.push(
      named("response.output_item.done", { output_index: outputIndex++, item: { ...item, arguments: args } }),
    );
  }
  chunks.push(
    named("response.completed", {
      response: {
        id: "resp_fuzz",
        status: responsesStatus(response),
        usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
      },
    }),
  );
  return chunks;
}
