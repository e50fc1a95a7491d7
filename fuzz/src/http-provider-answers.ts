/**
 * How the fuzz's chat-completions server answers a generated turn: each
 * scripted attempt of the scenario as an HTTP answer (a response as an
 * event stream of chunks, a failure before output as an error status with
 * a body of a generated shape, a failure after output as an `error` event
 * or a cut connection), and the attempts the scenario does not have.
 */
import { callArguments, failureStreamedText, failureText, markedText } from "./scripted-entries.js";
import type { ProviderFailureSpec, ResponseSpec, TurnScenario } from "./scenario.js";
import type { HttpDialect, PlannedAnswer, SseEnding, SseEvent, SseFraming } from "./http-provider-server.js";

/** An attempt the scenario does not have, put in front of one of its attempts. */
export interface ExtraFailure {
  /** Before the scenario's attempt at this index (past the end: after the last). */
  before: number;
  kind: "reset" | "hang" | "html502";
}

/** How the server answers, beyond what the scenario scripts. */
export interface HttpSpec {
  /** The API the server speaks, through pi-ai's own provider for it. */
  dialect: HttpDialect;
  framing: SseFraming;
  /** How an error status carries its text. */
  errorBody: "json" | "text" | "html" | "empty";
  /** A finished response ends without `[DONE]`. */
  withoutDone: boolean;
  /** Real milliseconds between chunks. */
  pauseMs: number;
  /** Characters per text piece (0: the response's own chunking, words by default). */
  pieceSize: number;
  extras: ExtraFailure[];
  /** The scenario's response at index `response` is cut after `after` chunks: the socket reset, or a line that is not JSON. */
  cut: { response: number; after: number; kind: "reset" | "malformed" } | undefined;
  /** Virtual milliseconds per real one. */
  scale: number;
  seed: number;
}

/** A generated turn and how the server answers it. */
export interface HttpProviderTurnCase {
  scenario: TurnScenario;
  http: HttpSpec;
}

const CHUNK_BASE = { id: "chatcmpl-fuzz", object: "chat.completion.chunk", created: 1_700_000_000, model: "fuzz" };

/** An OpenAI chat.completion.chunk event. */
function chunk(delta: object, finishReason: string | null = null): SseEvent {
  return { data: { ...CHUNK_BASE, choices: [{ index: 0, delta, finish_reason: finishReason }] } };
}

/** A named Anthropic event; its data carries the name as `type`. */
function named(name: string, data: object): SseEvent {
  return { name, data: { type: name, ...data } };
}

/** `text` in pieces of `size` characters (whole code points), or at word starts when `size` is 0. */
function piecesOf(text: string, size: number): string[] {
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
function anthropicMessageStart(inputTokens: number): SseEvent {
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

/** A response's events in the case's API. */
function responseChunks(response: ResponseSpec, http: HttpSpec): SseEvent[] {
  const size = http.pieceSize || response.chunkSize || 0;
  switch (http.dialect) {
    case "openai-completions":
      return openaiChunks(response, size);
    case "openai-responses":
      return responsesChunks(response, size);
    case "anthropic-messages":
      return anthropicChunks(response, size);
  }
}

/** A responses-API status for the response's stop reason (its tool calls make pi-ai's "stop" a tool use). */
function responsesStatus(response: ResponseSpec): string {
  if (response.stopReason === "length") return "incomplete";
  return response.stopReason === "aborted" ? "failed" : "completed";
}

/** The start of a responses-API text item: the item, then its one output_text part. */
function responsesTextStart(outputIndex: number): SseEvent[] {
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

/** How a response's stream ends, from the scenario's ending. */
function responseEnding(response: ResponseSpec, http: HttpSpec): SseEnding {
  const { ending } = response;
  switch (ending.kind) {
    case "errorAfter":
      return { kind: "errorEvent", after: ending.events, message: ending.message };
    case "hang":
      return { kind: "stall", after: ending.afterEvents };
    case "endWithoutDone":
      return { kind: "endWithoutDone" };
    default:
      return http.withoutDone ? { kind: "endWithoutDone" } : { kind: "done" };
  }
}

function statusBody(status: number, text: string, http: HttpSpec): Extract<PlannedAnswer, { kind: "status" }> {
  switch (http.errorBody) {
    case "json":
      return {
        kind: "status",
        status,
        body: JSON.stringify(
          http.dialect === "openai-completions"
            ? { error: { message: text, type: "fuzz_error", param: null, code: null } }
            : { type: "error", error: { type: "api_error", message: text } },
        ),
        contentType: "application/json",
      };
    case "text":
      return { kind: "status", status, body: text, contentType: "text/plain" };
    case "html":
      return {
        kind: "status",
        status,
        body: `<html><head><title>${status}</title></head><body><h1>${text}</h1></body></html>`,
        contentType: "text/html",
      };
    case "empty":
      return { kind: "status", status, body: "", contentType: "application/json" };
  }
}

/** A failure: an error status before output, or (visible) its text streamed and then an error event. */
function failureAnswer(failure: ProviderFailureSpec, http: HttpSpec): PlannedAnswer {
  const text = failureText(failure);
  if (!failure.visible) return statusBody(failure.status, text.replace(/^\d+ /, ""), http);
  const pieces = piecesOf(failureStreamedText(failure), http.pieceSize);
  const chunks =
    http.dialect === "openai-completions"
      ? [chunk({ role: "assistant", content: "" }), ...pieces.map((piece) => chunk({ content: piece }))]
      : http.dialect === "openai-responses"
        ? [...responsesTextStart(0), ...pieces.map((delta) => named("response.output_text.delta", { delta }))]
        : [
            anthropicMessageStart(11),
            named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
            ...pieces.map((text) => named("content_block_delta", { index: 0, delta: { type: "text_delta", text } })),
          ];
  return {
    kind: "sse",
    chunks,
    ending: { kind: "errorEvent", after: chunks.length, message: text },
    pauseMs: http.pauseMs,
  };
}

function responseAnswer(response: ResponseSpec, http: HttpSpec): PlannedAnswer {
  if (response.ending.kind === "throwSync" || response.ending.kind === "reject") return { kind: "reset" };
  return {
    kind: "sse",
    chunks: responseChunks(response, http),
    ending: responseEnding(response, http),
    pauseMs: http.pauseMs,
  };
}

/** Every answer of the case, in the order requests take them. */
export function planAnswers({ scenario, http }: HttpProviderTurnCase): PlannedAnswer[] {
  const { cut } = http;
  const attempts = scenario.requests.flatMap((request, index) => {
    const answer = responseAnswer(request.response, http);
    return [
      ...request.failures.map((failure) => failureAnswer(failure, http)),
      cut?.response === index && answer.kind === "sse"
        ? { ...answer, ending: { kind: cut.kind, after: cut.after } }
        : answer,
    ];
  });
  // Without a first-event watchdog, an unanswered request would wait for the host's abort: it is a reset there.
  const hangs = scenario.streamTimeouts !== "off";
  const extra = (kind: ExtraFailure["kind"]): PlannedAnswer =>
    kind === "hang" && hangs
      ? { kind: "hang" }
      : kind === "html502"
        ? statusBody(502, "Bad Gateway", { ...http, errorBody: "html" })
        : { kind: "reset" };
  const plan: PlannedAnswer[] = [];
  attempts.forEach((attempt, index) => {
    for (const { before, kind } of http.extras) if (before === index) plan.push(extra(kind));
    plan.push(attempt);
  });
  for (const { before, kind } of http.extras) if (before >= attempts.length) plan.push(extra(kind));
  return plan;
}
