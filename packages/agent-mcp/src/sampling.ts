import type { AssistantMessage, Context, ImageContent, Model, TextContent, UserMessage } from "@mariozechner/pi-ai";
import { type CreateMessageRequest, type CreateMessageResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { BeforeLlmCallEvent } from "@turnkit/agent-core";
import type { StreamFn } from "@turnkit/agent-loop";
import { emptyUsage } from "@turnkit/agent-loop/internal";
import { type CallsInFlight, turnKey } from "./calls-in-flight.js";
import { MAX_SAMPLING_TURNS } from "./defaults.js";
import { withScopedSignal } from "./scoped-signal.js";
import { modelImage } from "./model-images.js";
import { ServerRequestRefusal } from "./server-request-refusal.js";

/** What a turn lends the server for sampling: its auxiliary stream function and model. */
interface TurnModel {
  readonly streamFn: StreamFn;
  readonly model: Model<any>;
}

/**
 * Serves a server's `sampling/createMessage` requests with the model of the
 * turn whose tool call is running, through that turn's auxiliary stream
 * function: the request runs on the turn's call stack (its timeouts,
 * transport retry, credentials) and counts in the turn's usage and budget
 * as an `auxiliary` request, never in its transcript.
 *
 * A request is served only while calls of exactly one turn are in flight
 * (over stdio nothing says which call a request belongs to; with calls of
 * two turns it is refused rather than charged to the wrong one), and
 * `maxTokens` is capped by the host's limit. Text and images go to the
 * model; audio becomes a note; tool use in sampling is refused.
 */
export class SamplingBroker {
  private readonly turns = new Map<string, TurnModel>();

  constructor(
    private readonly calls: CallsInFlight,
    private readonly maxTokens: number,
  ) {}

  /** A model request of a turn is being prepared: its auxiliary stream function serves that turn's sampling. */
  remember(event: BeforeLlmCallEvent): void {
    const key = turnKey(event);
    this.turns.delete(key);
    this.turns.set(key, { streamFn: event.auxiliaryStreamFn, model: event.model });
    // Hosts need not report a turn's end: only the latest turns are kept.
    for (const old of this.turns.keys()) {
      if (this.turns.size <= MAX_SAMPLING_TURNS) break;
      this.turns.delete(old);
    }
  }

  /** The turn ended: it serves no more sampling. */
  forget(turn: { sessionId: string; turnId: string }): void {
    this.turns.delete(turnKey(turn));
  }

  /**
   * Answers one `sampling/createMessage` (cancelled when the server cancels
   * it or the turn aborts the call). Throws a `ServerRequestRefusal` the server
   * receives when the request asks for nothing a model can answer (no
   * messages, `maxTokens` not a whole number above 0), when no single turn's
   * call is running, the request uses tools, or the model fails.
   */
  async createMessage(params: CreateMessageRequest["params"], serverSignal: AbortSignal): Promise<CreateMessageResult> {
    const problem = unanswerable(params);
    if (problem !== undefined) throw new ServerRequestRefusal(ErrorCode.InvalidParams, `sampling refused: ${problem}`);
    const running = this.calls.ofOneTurn();
    if ("refused" in running) {
      const why =
        running.refused === "none" ? "no tool call of this server is running" : "calls of several turns are running";
      throw new ServerRequestRefusal(
        ErrorCode.InvalidRequest,
        `sampling refused: ${why}, so no turn's model can serve it`,
      );
    }
    const { calls } = running;
    const turn = this.turns.get(turnKey(calls[0]!.ctx));
    if (!turn)
      throw new ServerRequestRefusal(ErrorCode.InvalidRequest, "sampling refused: the turn's model is not known");
    const context = samplingContext(params, turn.model);
    const maxTokens = Math.min(params.maxTokens, this.maxTokens);
    const message = await this.calls.serve(() =>
      withScopedSignal([serverSignal, ...calls.map((call) => call.signal)], async (signal) => {
        const stream = await turn.streamFn(turn.model, context, {
          maxTokens,
          signal,
          ...(params.temperature !== undefined && { temperature: params.temperature }),
        });
        return stream.result();
      }),
    );
    if (message.stopReason === "error" || message.stopReason === "aborted")
      throw new ServerRequestRefusal(
        ErrorCode.InternalError,
        `sampling failed: ${message.errorMessage ?? message.stopReason}`,
      );
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    return {
      role: "assistant",
      content: { type: "text", text },
      model: message.responseModel ?? message.model,
      stopReason: message.stopReason === "length" ? "maxTokens" : "endTurn",
    };
  }
}

/**
 * Why no model can answer the request, in words naming the field, or
 * `undefined`. The protocol's schema lets both through, and a provider
 * would fail on them after the request was sent and counted.
 */
function unanswerable(params: CreateMessageRequest["params"]): string | undefined {
  if (params.messages.length === 0) return "messages is empty: there is nothing to answer";
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1)
    return `maxTokens must be a whole number of at least 1 (it was ${params.maxTokens})`;
  return undefined;
}

/** The request as a pi-ai context: the server's system prompt and messages, text and images (of types models take, see `modelImage`). */
function samplingContext(params: CreateMessageRequest["params"], model: Model<any>): Context {
  const messages = params.messages.map((message): UserMessage | AssistantMessage => {
    const blocks = (Array.isArray(message.content) ? message.content : [message.content]).map(
      (block): TextContent | ImageContent => {
        switch (block.type) {
          case "text":
            return { type: "text", text: block.text };
          case "image":
            return modelImage(block.data, block.mimeType);
          case "audio":
            return { type: "text", text: `[audio, ${block.mimeType}: not supported]` };
          default:
            throw new ServerRequestRefusal(
              ErrorCode.InvalidParams,
              `sampling refused: ${block.type} content is not supported`,
            );
        }
      },
    );
    if (message.role === "user") return { role: "user", content: blocks, timestamp: Date.now() };
    return {
      role: "assistant",
      content: blocks.map((block) => (block.type === "text" ? block : { type: "text", text: "[image]" })),
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  });
  return { ...(params.systemPrompt !== undefined && { systemPrompt: params.systemPrompt }), messages };
}
