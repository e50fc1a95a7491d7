/**
 * The public surface of `@turnkit/ui-stream`: every value and type it
 * exports. A name added, removed or retyped fails this test until the
 * lists below and the README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/ui-stream",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeAlsoMentions: ["map", "readUIMessageStream", "reconnectToStream", "resumeStreamIsReplay", "sendMessages"],
  values: [
    "ACTION_REQUEST_TRACE_PHASE",
    "APPROVAL_TRACE_PHASE",
    "DEFAULT_KEEP_ALIVE_MS",
    "DEFAULT_RECONNECT_ATTEMPTS",
    "DEFAULT_RECONNECT_DELAY_MS",
    "KEEP_ALIVE_COMMENT",
    "RESUME_TRACE_PHASE",
    "TURN_ID_HEADER",
    "TurnkitChatTransport",
    "UIMessageChunkMapper",
    "UIStreamError",
    "UIStreamErrorCode",
    "readSseEvents",
    "readTurnUIMessage",
    "toUIMessageChunks",
    "toUIMessageStreamResponse",
    "toUIMessageStreamSse",
    "withApprovalAnswers",
    "withoutSupersededParts",
  ],
  types: [
    "HeadersSource",
    "SequencedUIMessageChunk",
    "SseEvent",
    "TurnkitApprovalAnswer",
    "TurnkitChatTransport",
    "TurnkitChatTransportOptions",
    "TurnkitDataParts",
    "TurnkitMessageMetadata",
    "TurnkitPartOrigin",
    "TurnkitSubAgentPart",
    "TurnkitSubAgentToolCall",
    "TurnkitUIMessage",
    "TurnkitUIMessageChunk",
    "UIMessageChunkMapper",
    "UIMessageChunkMapperOptions",
    "UIMessageChunksOptions",
    "UIMessageStreamSseOptions",
    "UIStreamError",
    "UIStreamErrorCode",
  ],
});
