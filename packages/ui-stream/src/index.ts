/**
 * `@turnkit/ui-stream`: a Turnkit turn's `RuntimeEvent`s as the AI SDK's
 * UI message stream (ai 6), resumable by `seq`, and a `useChat` transport
 * that resumes it. Every public name is listed here.
 */

// ---------------------------------------------------------------- events to chunks (server)
export { UIMessageChunkMapper, type UIMessageChunkMapperOptions } from "./ui-message-chunk-mapper.js";
export { toUIMessageChunks, type UIMessageChunksOptions } from "./ui-message-chunks.js";
export {
  toUIMessageStreamResponse,
  toUIMessageStreamSse,
  type UIMessageStreamSseOptions,
} from "./ui-message-stream-sse.js";
export { readTurnUIMessage } from "./read-turn-ui-message.js";

// ---------------------------------------------------------------- the message a turn becomes
export type {
  SequencedUIMessageChunk,
  TurnkitApprovalAnswer,
  TurnkitDataParts,
  TurnkitMessageMetadata,
  TurnkitPartOrigin,
  TurnkitSubAgentPart,
  TurnkitSubAgentToolCall,
  TurnkitUIMessage,
  TurnkitUIMessageChunk,
} from "./turnkit-ui-message.js";
export { withoutSupersededParts } from "./superseded-parts.js";
export { withApprovalAnswers } from "./approval-answers.js";

// ---------------------------------------------------------------- the browser side
export {
  type HeadersSource,
  TurnkitChatTransport,
  type TurnkitChatTransportOptions,
} from "./turnkit-chat-transport.js";
export { readSseEvents, type SseEvent } from "./sse-events.js";

// ---------------------------------------------------------------- errors and defaults
export { UIStreamError, UIStreamErrorCode } from "./errors.js";
export {
  ACTION_REQUEST_TRACE_PHASE,
  APPROVAL_TRACE_PHASE,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_RECONNECT_ATTEMPTS,
  DEFAULT_RECONNECT_DELAY_MS,
  KEEP_ALIVE_COMMENT,
  RESUME_TRACE_PHASE,
  TURN_ID_HEADER,
} from "./defaults.js";
