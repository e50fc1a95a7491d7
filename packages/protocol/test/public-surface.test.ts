/**
 * The public surface of `@turnkit/protocol`: every value and type its entry
 * exports. Adding, removing or retyping a public name fails this test until
 * the list below (and the README's API section) says so, so the API changes
 * only on purpose.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { listPublicSurface, listReadmeApiNames } from "../../../scripts/public-surface.js";

const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));
const readme = fileURLToPath(new URL("../README.md", import.meta.url));
/** Read once: compiling the entry takes a second or two. */
let surface: ReturnType<typeof listPublicSurface> | undefined;
const publicSurface = () => (surface ??= listPublicSurface(entry));

describe("public surface", () => {
  it("@turnkit/protocol exports exactly these values and types", () => {
    expect(publicSurface()).toEqual({
      values: [
        "DebugTracePayloadSchema", "ERROR_CODES", "ErrorCode", "ErrorCodeSchema", "LLM_MESSAGE_ROLES",
        "MessagePersistedPayloadSchema", "PROTOCOL_AGENT_EVENT_TYPES", "ProtocolAgentEventSchema",
        "ProtocolAgentEventSchemas", "ProtocolAnyMessageSchema", "ProtocolAssistantMessageDiagnosticSchema",
        "ProtocolAssistantMessageEventSchema", "ProtocolAssistantMessageSchema", "ProtocolCustomMessageSchema",
        "ProtocolImageContentSchema", "ProtocolLlmMessageSchema", "ProtocolStopReasonSchema",
        "ProtocolTextContentSchema", "ProtocolThinkingContentSchema", "ProtocolToolCallSchema",
        "ProtocolToolResultMessageSchema", "ProtocolUsageSchema", "ProtocolUserMessageSchema",
        "RUNTIME_EVENT_SCHEMA", "RUNTIME_EVENT_TYPES", "RuntimeEventSchema", "RuntimeEventSchemas",
        "SessionStatusPayloadSchema", "StreamChunkSchema", "StreamRespPayloadSchema", "TERMINAL_STATUSES",
        "TURN_STATUSES", "ToolCallStatusSchema", "TurnErrorSchema", "createRuntimeEvent", "isErrorCode",
        "isProtocolAgentEvent", "isProtocolLlmMessage", "isRuntimeEvent", "isRuntimeEventOfType", "isTerminalEvent",
        "isTerminalStatus", "outcomeToStatus", "validateProtocolAgentEvent", "validateRuntimeEvent",
      ],
      types: [
        "DebugTraceEvent", "DebugTracePayload", "ErrorCode", "MessagePersistedEvent", "MessagePersistedPayload",
        "MessagePersistedReason", "ProtocolAgentEvent", "ProtocolAgentEventListener", "ProtocolAgentEventType",
        "ProtocolAgentEventValidation", "ProtocolAnyMessage", "ProtocolAssistantMessage",
        "ProtocolAssistantMessageDiagnostic", "ProtocolAssistantMessageEvent", "ProtocolAssistantMessageEventType",
        "ProtocolCustomMessage", "ProtocolDiagnosticError", "ProtocolImageContent", "ProtocolLlmMessage",
        "ProtocolMessage", "ProtocolStopReason", "ProtocolTextContent", "ProtocolThinkingContent",
        "ProtocolToolCall", "ProtocolToolResultMessage", "ProtocolUsage", "ProtocolUsageCost",
        "ProtocolUserMessage", "RuntimeEvent", "RuntimeEventEnvelope", "RuntimeEventInit", "RuntimeEventPayloadMap",
        "RuntimeEventSchemaId", "RuntimeEventType", "RuntimeEventValidation", "SessionStatusEvent",
        "SessionStatusFailedPayload", "SessionStatusOkPayload", "SessionStatusPayload", "StreamChunk",
        "StreamChunkKind", "StreamFailedChunk", "StreamFinishChunk", "StreamFinishedChunk", "StreamRespEvent",
        "StreamRespPayload", "StreamTextChunk", "StreamThinkingChunk", "StreamToolCallChunk",
        "StreamToolCallResult", "TProtocolAgentEventSchemas", "TProtocolAnyMessage", "TProtocolAssistantMessage",
        "TProtocolAssistantMessageEvent", "TProtocolToolResultMessage", "TRuntimeEventSchemas", "TStreamChunk",
        "TerminalSessionStatusPayload", "TerminalStatusEvent", "TerminalTurnStatus", "ToolCallStatus", "TraceLevel",
        "TurnError", "TurnOutcome", "TurnOutcomeKind", "TurnStatus",
      ],
    });
  }, 60_000);

  it("the README's API section names exactly the public names", () => {
    const { values, types } = publicSurface();
    expect(listReadmeApiNames(readme)).toEqual([...new Set([...values, ...types])].sort());
  }, 60_000);
});
