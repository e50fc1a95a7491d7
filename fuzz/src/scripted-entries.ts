/**
 * Turns generated response and failure specs into entries of the scripted
 * model (`@turnkit/agent-loop/testing`). Every text a response streams
 * starts with `«token»`, so the visible-text invariant can tell which
 * attempt a streamed text came from.
 */
import type { AgentMessage, StreamFn } from "@turnkit/agent-loop";
import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import {
  type ScriptEntry,
  assistantMessage,
  toolResultMessage,
  userMessage,
  type ScriptedBlock,
  type ScriptedModel,
  type ScriptedResponse,
  endWithoutDone,
  errorAfter,
  eventsAfterDone,
  hang,
  reject,
  response,
  revokedProxy,
  text,
  thinking,
  throwSync,
  toolCall,
  withoutStart,
} from "@turnkit/agent-loop/testing";
import type { CallArguments, MalformedEventKind, ProviderFailureSpec, RequestSpec, ResponseSpec } from "./scenario.js";

/** The `value` that makes the `prepared` tool's `prepareArguments` throw. */
export const PREPARE_THROWS_VALUE = "prepare-throws";

/** The marker every streamed text of `token` starts with. */
export function tokenMark(token: string): string {
  return `«${token}»`;
}

/** The full text a response with `token` and `body` streams. */
export function markedText(token: string, body: string): string {
  return `${tokenMark(token)} ${body}`;
}

export function callArguments(args: CallArguments): Record<string, unknown> {
  switch (args.kind) {
    case "valid":
      return { value: args.value };
    case "coercible":
      return { n: args.n };
    case "invalid":
      return { n: "not a number", value: ["not", "a", "string"] };
    case "prepareThrows":
      return { value: PREPARE_THROWS_VALUE };
    case "task":
      return { task: args.task };
    default: {
      const unknown: never = args;
      throw new Error(`Unknown call arguments: ${JSON.stringify(unknown)}`);
    }
  }
}

/** The scripted response of a spec, without its stream fault. */
export function scriptedResponse(spec: ResponseSpec): ScriptedResponse {
  const blocks: ScriptedBlock[] = [];
  if (spec.thinking !== undefined) blocks.push(thinking(spec.thinking));
  if (spec.text !== undefined) blocks.push(text(markedText(spec.token, spec.text)));
  for (const call of spec.calls) blocks.push(toolCall(call.tool, callArguments(call.args), { id: call.id }));
  return response(blocks, {
    ...(spec.stopReason !== "natural" && { stopReason: spec.stopReason }),
    eventDelayMs: spec.eventDelayMs,
    ...(spec.chunkSize !== undefined && { chunkSize: spec.chunkSize }),
    ...(spec.usage !== undefined && { usage: spec.usage }),
  });
}

/** The script entry of a response spec, with its stream fault. */
export function responseEntry(spec: ResponseSpec): ScriptEntry {
  const scripted = scriptedResponse(spec);
  const { ending } = spec;
  switch (ending.kind) {
    case "normal":
      return scripted;
    case "errorAfter":
      return errorAfter(ending.events, ending.message, { response: scripted });
    case "hang":
      return hang({ afterEvents: ending.afterEvents, response: scripted });
    case "throwSync":
      return throwSync(new Error(`${tokenMark(spec.token)} the stream function threw`));
    case "reject":
      return reject(new Error(`${tokenMark(spec.token)} the stream function rejected`));
    case "endWithoutDone":
      return endWithoutDone(scripted);
    case "eventsAfterDone":
      return eventsAfterDone(scripted, { reachConsumer: true });
    case "withoutStart":
      return withoutStart(scripted);
    default: {
      const unknown: never = ending;
      throw new Error(`Unknown stream ending: ${JSON.stringify(unknown)}`);
    }
  }
}

const STATUS_TEXT: Record<ProviderFailureSpec["status"], string> = {
  400: "Bad Request: invalid request",
  401: "Unauthorized: invalid api key",
  403: "Forbidden",
  408: "Request Timeout",
  429: "Too Many Requests: rate limit exceeded",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  529: "Overloaded",
};

/**
 * One failed provider attempt: the status leads the error text, as pi-ai
 * reports it. A visible failure streams `start`, `text_start` and the first
 * text delta (the token) before the error, so the host has seen output.
 */
export function failureEntry(failure: ProviderFailureSpec): ScriptEntry {
  return errorAfter(failure.visible ? 3 : 1, failureText(failure), {
    response: response(failureStreamedText(failure)),
  });
}

/** The error text of a failed attempt: its status first, as pi-ai reports it, and a Retry-After hint when it has one. */
export function failureText(failure: ProviderFailureSpec): string {
  const hint = failure.retryAfterSeconds !== undefined ? ` Please try again in ${failure.retryAfterSeconds}s.` : "";
  return `${failure.status} ${STATUS_TEXT[failure.status]}${hint}`;
}

/** The text a failed attempt streams (when visible) before its error: its token, then a few words. */
export function failureStreamedText(failure: ProviderFailureSpec): string {
  return markedText(failure.token, "partial answer that fails");
}

/** Every entry of a turn's requests, in order: failed attempts, then the response. */
export function requestEntries(requests: readonly RequestSpec[]): ScriptEntry[] {
  return requests.flatMap((request) => [...request.failures.map(failureEntry), responseEntry(request.response)]);
}

/** The token of the fallback answer to request number `index` (0-based). */
export function fallbackToken(index: number): string {
  return `fallback${index + 1}`;
}

/**
 * The scripted model's stream function, answering with a plain text once the
 * script is used up, so every generated scenario can end naturally (the
 * scripted model would otherwise fail the extra requests).
 */
export function withFallbackAnswers(model: ScriptedModel): StreamFn {
  return (requestModel, context, options) => {
    if (model.remaining() === 0) {
      model.append((request) => response(markedText(fallbackToken(request.index), "all done")));
    }
    return model.streamFn(requestModel, context, options);
  };
}

type DoneEvent = Extract<AssistantMessageEvent, { type: "done" }>;

/**
 * `streamFn` whose responses carrying one of `tokens` (a text block that
 * starts with the token's mark) stream `rewrite(done, token)` in place of
 * their `done` event; other events pass as they are. The stream is a plain
 * async iterable (so a rewrite may stream what is no event at all) with the
 * `result()` pi's loop reads: the message of the terminal event streamed.
 */
function rewritingDone<T extends string>(
  streamFn: StreamFn,
  tokens: readonly T[],
  rewrite: (done: DoneEvent, token: T) => unknown[],
): StreamFn {
  if (tokens.length === 0) return streamFn;
  const wrapped = async (...args: Parameters<StreamFn>) => {
    const stream = await streamFn(...args);
    let settle!: (message: AssistantMessage) => void;
    const result = new Promise<AssistantMessage>((resolve) => (settle = resolve));
    const events = (async function* () {
      for await (const event of stream) {
        // `?.`: an inner rewrite may stream what is no event at all (see withMalformedEvents); it passes as it is.
        if (event?.type === "error") settle(event.error);
        if (event?.type !== "done") {
          yield event;
          continue;
        }
        settle(event.message);
        const token = tokens.find((candidate) => carriesToken(event.message, candidate));
        if (token === undefined) yield event;
        else yield* rewrite(event, token);
      }
    })();
    return Object.assign(events, { result: () => result });
  };
  return wrapped as unknown as StreamFn;
}

/** True when a text block of `message` starts with `token`'s mark. */
function carriesToken(message: AssistantMessage, token: string): boolean {
  return message.content.some(
    (block) => block.type === "text" && typeof block.text === "string" && block.text.startsWith(tokenMark(token)),
  );
}

/**
 * `streamFn`, except that the final message of each response whose text
 * carries one of `tokens` is handed over malformed: with one more text
 * block, without its text (a provider that breaks pi-ai's message shape).
 */
export function withMalformedFinals(streamFn: StreamFn, tokens: readonly string[] | undefined): StreamFn {
  return rewritingDone(streamFn, tokens ?? [], (done) => [
    { ...done, message: { ...done.message, content: [...done.message.content, { type: "text" }] } },
  ]);
}

/**
 * `streamFn`, except that the final message of each response listed in
 * `odd` (by token) carries a usage no code can read: a revoked proxy, or an
 * object whose `output` getter throws (a provider's object gone bad).
 */
export function withUnreadableUsage(
  streamFn: StreamFn,
  odd: readonly { token: string; kind: "revoked" | "getter" }[] | undefined,
): StreamFn {
  const kinds = new Map((odd ?? []).map(({ token, kind }) => [token, kind]));
  return rewritingDone(streamFn, [...kinds.keys()], (done, token) => [
    {
      ...done,
      message: {
        ...done.message,
        usage:
          kinds.get(token) === "revoked"
            ? revokedProxy()
            : Object.defineProperty({ ...done.message.usage }, "output", {
                get: () => {
                  throw new Error("the provider's usage getter failed");
                },
                enumerable: true,
              }),
      },
    },
  ]);
}

/** The odd event of each kind, built on the partial message so far. */
function oddEvent(kind: MalformedEventKind, partial: AssistantMessage): unknown {
  switch (kind) {
    case "null":
      return null;
    case "string":
      return "not an event";
    case "noType":
      return { partial };
    case "numberDelta":
      return { type: "text_delta", contentIndex: 0, delta: 5, partial };
    case "nullToolCall":
      return { type: "toolcall_end", contentIndex: 0, toolCall: null, partial };
    case "unknownType":
      return { type: "server_heartbeat", partial };
    default: {
      const unknown: never = kind;
      throw new Error(`Unknown odd event: ${String(unknown)}`);
    }
  }
}

/**
 * `streamFn` whose responses listed in `odd` (by the token their text
 * starts with) stream one more event just before their final `done`: a
 * malformed one, which fails the response naming the field, or one of a
 * type pi-ai does not have, which is skipped.
 */
export function withMalformedEvents(
  streamFn: StreamFn,
  odd: readonly { token: string; event: MalformedEventKind }[] | undefined,
): StreamFn {
  const kinds = new Map((odd ?? []).map(({ token, event }) => [token, event]));
  return rewritingDone(streamFn, [...kinds.keys()], (done, token) => [oddEvent(kinds.get(token)!, done.message), done]);
}

/**
 * `streamFn` whose responses listed in `tokens` (by the token their text
 * starts with) stream an event of a type pi-ai does not have just before
 * `done`. Both loops skip such an event.
 */
export function withUnknownEvents(streamFn: StreamFn, tokens: readonly string[] | undefined): StreamFn {
  return rewritingDone(streamFn, tokens ?? [], (done) => [oddEvent("unknownType", done.message), done]);
}

/** The start of a session: one exchange with a tool call, all answered. */
export function earlierExchange(): AgentMessage[] {
  return [
    userMessage("«history» earlier question", { timestamp: 1 }),
    assistantMessage([toolCall("alpha", { value: "h" }, { id: "history_call" })], { timestamp: 2 }),
    toolResultMessage("history_call", "alpha", "history result", { timestamp: 3 }),
    assistantMessage("«history» earlier answer", { timestamp: 4 }),
  ];
}
