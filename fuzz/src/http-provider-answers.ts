/**
 * How the fuzz's model server answers a generated turn: each
 * scripted attempt of the scenario as an HTTP answer (a response as an
 * event stream of chunks, a failure before output as an error status with
 * a body of a generated shape, a failure after output as an `error` event
 * or a cut connection), and the attempts the scenario does not have.
 */
import { failureStreamedText, failureText } from "./scripted-entries.js";
import type { ProviderFailureSpec, ResponseSpec, TurnScenario } from "./scenario.js";
import {
  googleError,
  type HttpDialect,
  type PlannedAnswer,
  type SseEnding,
  type SseFraming,
} from "./http-provider-server.js";
import {
  anthropicMessageStart,
  chunk,
  googleChunk,
  named,
  piecesOf,
  responseChunks,
  responsesTextStart,
} from "./http-provider-dialects.js";

/** An attempt the scenario does not have, put in front of one of its attempts. */
export interface ExtraFailure {
  /** Before the scenario's attempt at this index (past the end: after the last). */
  before: number;
  kind: "reset" | "hang" | "html502";
}

/** A field of a hand-built model that pi-ai's providers read, left out or given a value of the wrong type. */
export interface ModelFault {
  field: "id" | "api" | "baseUrl" | "input" | "cost" | "maxTokens" | "contextWindow" | "reasoning";
  kind: "missing" | "wrongType";
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
  /** The model is built by hand with one field left out or of the wrong type: the turn must be refused before any event. */
  modelFault: ModelFault | undefined;
  /** Virtual milliseconds per real one. */
  scale: number;
  seed: number;
}

/** A generated turn and how the server answers it. */
export interface HttpProviderTurnCase {
  scenario: TurnScenario;
  http: HttpSpec;
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
            : http.dialect === "google-generative-ai"
              ? googleError(`${status} ${text}`)
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
        : http.dialect === "google-generative-ai"
          ? pieces.map((text) => googleChunk([{ text }]))
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
    chunks: responseChunks(response, http.dialect, http.pieceSize || response.chunkSize || 0),
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
