import type { ProtocolImageContent, ProtocolStopReason, ProtocolTextContent, ProtocolUsage } from "./content-blocks.js";
import type { TurnError } from "./turn-outcome.js";

/**
 * Where a tool call stands.
 *
 * `preparing`: the model asked for it, arguments are being prepared and
 * checked. `started`: admitted, executing. `finished`: ran and returned a
 * normal result. `failed`: its result is an error (unknown tool, invalid
 * arguments, blocked, threw, or never ran because the turn ended); it still
 * has a result.
 */
export type ToolCallStatus = "preparing" | "started" | "finished" | "failed";

/** A piece of visible assistant text; chunks concatenate in `chunkIndex` order. */
export interface StreamTextChunk {
  kind: "text";
  delta: string;
}

/** A piece of assistant reasoning text; chunks concatenate in `chunkIndex` order. */
export interface StreamThinkingChunk {
  kind: "thinking";
  delta: string;
}

/** What a tool call returned: the content the model sees, plus host-only `details`. */
export interface StreamToolCallResult {
  content: (ProtocolTextContent | ProtocolImageContent)[];
  isError: boolean;
  details?: unknown;
}

/**
 * The state of one tool call of the message. A call may appear several times
 * as its status advances; the latest chunk (highest `chunkIndex`) wins.
 * `finished` and `failed` chunks carry `result` and `durationMs` (SPEC B4).
 */
export interface StreamToolCallChunk {
  kind: "tool_call";
  toolCallId: string;
  toolName: string;
  status: ToolCallStatus;
  /** The arguments the tool received (after preparation), when known. */
  arguments?: Record<string, unknown>;
  result?: StreamToolCallResult;
  /** Wall-clock execution time in milliseconds, from start to result. */
  durationMs?: number;
}

/** The message ended normally, hit the token limit, or was aborted. */
export interface StreamFinishedChunk {
  kind: "finish";
  reason: Exclude<ProtocolStopReason, "error">;
  usage?: ProtocolUsage;
  error?: undefined;
}

/** The message ended with an error; `error` carries its classified code (SPEC B5). */
export interface StreamFailedChunk {
  kind: "finish";
  reason: "error";
  usage?: ProtocolUsage;
  error: TurnError;
}

/**
 * The last chunk of a message: why it ended (the assistant message's stop
 * reason). `error` is present exactly when `reason` is `error`.
 */
export type StreamFinishChunk = StreamFinishedChunk | StreamFailedChunk;

/** One piece of an assistant message's stream, discriminated by `kind` (SPEC B2). */
export type StreamChunk = StreamTextChunk | StreamThinkingChunk | StreamToolCallChunk | StreamFinishChunk;

/** The `kind` of a {@link StreamChunk}. */
export type StreamChunkKind = StreamChunk["kind"];
