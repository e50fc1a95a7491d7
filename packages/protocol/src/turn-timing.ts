/**
 * Where the time of one model request went, in milliseconds of the turn
 * runner's clock. A request is what the loop (or a hook) asked for once; it
 * may take several attempts (transport retries, an overflow resend). The
 * stream measurements come from the attempt that produced the response,
 * counted from that attempt's start; a measurement is absent when it never
 * happened (no event, no visible output, no thinking).
 */
export interface ModelRequestTiming {
  /** `main` for the agent loop's requests, `auxiliary` for a hook's own. */
  family: "main" | "auxiliary";
  /** Attempts sent for this request (1 without retries). */
  attempts: number;
  /** Time spent waiting between attempts (retry backoff), summed. */
  backoffMs: number;
  /** From the first attempt's start to the end of the last, backoff included. */
  durationMs: number;
  /** From the attempt's start to its first stream event. */
  firstEventMs?: number;
  /** From the attempt's start to its first visible output (text, thinking or a tool call). */
  firstOutputMs?: number;
  /** From the first visible output to the end of the response. */
  decodeMs?: number;
  /** From the first thinking event to the end of the thinking (when the response had thinking). */
  thinkingMs?: number;
  /** Output tokens per second of decoding, when the provider reported output tokens and decoding took time. */
  outputTokensPerSecond?: number;
  /**
   * Present only when the request fell back to another model: every model
   * it was sent to, in order, as `provider/id`; the last is the one whose
   * answer (or failure) the request ended with, and whose prices its cost uses.
   */
  models?: string[];
}

/** Where the time of one tool call went, in milliseconds of the turn runner's clock. */
export interface ToolCallTiming {
  /** The model's id of the call. */
  toolCallId: string;
  /** The tool it called. */
  toolName: string;
  /** From the call's `preparing` to its admission: argument checks, `beforeToolCallHook`s, waiting for a permission. */
  queuedMs: number;
  /** From admission to the result (0 for a call that never ran: blocked, invalid, aborted). */
  runMs: number;
}

/** Where the time of a turn went. */
export interface TurnTiming {
  /** From the start of `runTurn` to the terminal status. */
  wallMs: number;
  /** Every model request of the turn, in the order they started. */
  requests: ModelRequestTiming[];
  /** Every tool call of the turn, in the order they were announced. */
  toolCalls: ToolCallTiming[];
}
