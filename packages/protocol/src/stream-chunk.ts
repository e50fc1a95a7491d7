import type {
  ProtocolMediaDescriptor,
  ProtocolStopReason,
  ProtocolTextContent,
  ProtocolUsage,
} from "./content-blocks.js";
import type { StepReport } from "./step-report.js";
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
  /** Chunk discriminant. */
  kind: "text";
  /** The next piece of text, to append to the earlier ones. */
  delta: string;
}

/** A piece of assistant reasoning text; chunks concatenate in `chunkIndex` order. */
export interface StreamThinkingChunk {
  /** Chunk discriminant. */
  kind: "thinking";
  /** The next piece of reasoning, to append to the earlier ones. */
  delta: string;
}

/** What a tool call returned: the content the model sees, plus host-only `details`. */
export interface StreamToolCallResult {
  /**
   * What the model sees as the result, with every inline image (or other
   * media) replaced by a {@link ProtocolMediaDescriptor}: events never carry
   * media bytes. The full result is in the tool-result message of the history.
   */
  content: (ProtocolTextContent | ProtocolMediaDescriptor)[];
  /** True for a failed call; `content` then says why. */
  isError: boolean;
  /** Host-only structured data; never sent to the model. */
  details?: unknown;
}

/**
 * The state of one tool call of the message. A call may appear several times
 * as its status advances; the latest chunk (highest `chunkIndex`) wins.
 * `finished` and `failed` chunks carry `result` and `durationMs`.
 */
export interface StreamToolCallChunk {
  /** Chunk discriminant. */
  kind: "tool_call";
  /** The model's id of the call; its tool-result message carries the same id. */
  toolCallId: string;
  /** The name the model called (possibly a tool that does not exist). */
  toolName: string;
  /** Where the call stands as of this chunk. */
  status: ToolCallStatus;
  /** The arguments the tool received (after preparation), when known. */
  arguments?: Record<string, unknown>;
  /** The call's result; present on `finished` and `failed` chunks. */
  result?: StreamToolCallResult;
  /** Wall-clock execution time in milliseconds, from start to result. */
  durationMs?: number;
}

/** The message ended normally, hit the token limit, or was aborted. */
export interface StreamFinishedChunk {
  /** Chunk discriminant. */
  kind: "finish";
  /** The message's stop reason. */
  reason: Exclude<ProtocolStopReason, "error">;
  /** Token usage of the response, when known. */
  usage?: ProtocolUsage;
  /** What the step this message closes cost, with the turn's running totals (from `PiTurnRunner`). */
  step?: StepReport;
  /** Never present. */
  error?: undefined;
}

/** The message ended with an error; `error` carries its classified code. */
export interface StreamFailedChunk {
  /** Chunk discriminant. */
  kind: "finish";
  /** The message ended with an error. */
  reason: "error";
  /** Token usage of the response, when known. */
  usage?: ProtocolUsage;
  /** What the step this message closes cost, with the turn's running totals (from `PiTurnRunner`). */
  step?: StepReport;
  /** The classified failure: a stable code and a message. */
  error: TurnError;
}

/**
 * The last chunk of a message: why it ended (the assistant message's stop
 * reason). `error` is present exactly when `reason` is `error`.
 */
export type StreamFinishChunk = StreamFinishedChunk | StreamFailedChunk;

/** One piece of an assistant message's stream, discriminated by `kind`. */
export type StreamChunk = StreamTextChunk | StreamThinkingChunk | StreamToolCallChunk | StreamFinishChunk;

/** The `kind` of a {@link StreamChunk}. */
export type StreamChunkKind = StreamChunk["kind"];
