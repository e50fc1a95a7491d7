/*
 * The TypeScript types are written by hand (for their doc comments); the
 * TypeBox schemas must describe exactly the same shapes. This file fails to
 * type-check (`tsc -p tsconfig.json`) when they drift apart.
 */
import type { Static } from "@sinclair/typebox";
import { describe, expectTypeOf, it } from "vitest";
import {
  ActionRequiredPayloadSchema,
  ElicitationAnswerSchema,
  ToolApprovalAnswerSchema,
  type ActionRequiredPayload,
  type ElicitationAnswer,
  type ToolApprovalAnswer,
  BudgetExceededDetailSchema,
  ModelRequestTimingSchema,
  RuntimeWarningPayloadSchema,
  StepReportSchema,
  ToolCallTimingSchema,
  TurnTimingSchema,
  TurnUsageSchema,
  type BudgetExceededDetail,
  type ModelRequestTiming,
  type RuntimeWarningPayload,
  type StepReport,
  type ToolCallTiming,
  type TurnTiming,
  type TurnUsage,
  DebugTracePayloadSchema,
  ErrorCodeSchema,
  MessagePersistedPayloadSchema,
  ProtocolAgentEventSchema,
  ProtocolAnyMessageSchema,
  ProtocolAssistantMessageEventSchema,
  ProtocolAssistantMessageSchema,
  ProtocolCustomMessageSchema,
  ProtocolLlmMessageSchema,
  ProtocolToolResultMessageSchema,
  ProtocolUserMessageSchema,
  RuntimeEventSchema,
  RuntimeEventSchemas,
  SessionStatusPayloadSchema,
  StreamChunkSchema,
  StreamRespPayloadSchema,
  ToolCallStatusSchema,
  TurnErrorSchema,
  type DebugTracePayload,
  type ErrorCode,
  type MessagePersistedPayload,
  type ProtocolAgentEvent,
  type ProtocolAnyMessage,
  type ProtocolAssistantMessage,
  type ProtocolAssistantMessageEvent,
  type ProtocolCustomMessage,
  type ProtocolLlmMessage,
  type ProtocolToolResultMessage,
  type ProtocolUserMessage,
  type RuntimeEvent,
  type SessionStatusPayload,
  type StreamChunk,
  type StreamRespPayload,
  type ToolCallStatus,
  type TurnError,
} from "../src/index.js";

/** `true` when `A` and `B` are assignable to each other. */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe("schemas and types describe the same shapes", () => {
  it("messages", () => {
    expectTypeOf<SameShape<Static<typeof ProtocolUserMessageSchema>, ProtocolUserMessage>>().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<typeof ProtocolAssistantMessageSchema>, ProtocolAssistantMessage>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<typeof ProtocolToolResultMessageSchema>, ProtocolToolResultMessage>
    >().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ProtocolLlmMessageSchema>, ProtocolLlmMessage>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ProtocolCustomMessageSchema>, ProtocolCustomMessage>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ProtocolAnyMessageSchema>, ProtocolAnyMessage>>().toEqualTypeOf<true>();
  });

  it("loop events", () => {
    expectTypeOf<
      SameShape<Static<typeof ProtocolAssistantMessageEventSchema>, ProtocolAssistantMessageEvent>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<typeof ProtocolAgentEventSchema>, ProtocolAgentEvent<ProtocolCustomMessage>>
    >().toEqualTypeOf<true>();
  });

  it("runtime events", () => {
    expectTypeOf<Static<typeof ErrorCodeSchema>>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<SameShape<Static<typeof TurnErrorSchema>, TurnError>>().toEqualTypeOf<true>();
    expectTypeOf<Static<typeof ToolCallStatusSchema>>().toEqualTypeOf<ToolCallStatus>();
    expectTypeOf<SameShape<Static<typeof StreamChunkSchema>, StreamChunk>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof StreamRespPayloadSchema>, StreamRespPayload>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof SessionStatusPayloadSchema>, SessionStatusPayload>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof DebugTracePayloadSchema>, DebugTracePayload>>().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<typeof MessagePersistedPayloadSchema>, MessagePersistedPayload>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<(typeof RuntimeEventSchemas)["stream.resp"]>, RuntimeEvent<"stream.resp">>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<(typeof RuntimeEventSchemas)["action.required"]>, RuntimeEvent<"action.required">>
    >().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof RuntimeEventSchema>, RuntimeEvent>>().toEqualTypeOf<true>();
  });

  it("what a turn asks a person, and the answers", () => {
    expectTypeOf<SameShape<Static<typeof ActionRequiredPayloadSchema>, ActionRequiredPayload>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ToolApprovalAnswerSchema>, ToolApprovalAnswer>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ElicitationAnswerSchema>, ElicitationAnswer>>().toEqualTypeOf<true>();
  });

  it("what a turn reports about itself", () => {
    expectTypeOf<SameShape<Static<typeof TurnUsageSchema>, TurnUsage>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ModelRequestTimingSchema>, ModelRequestTiming>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof ToolCallTimingSchema>, ToolCallTiming>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof TurnTimingSchema>, TurnTiming>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof StepReportSchema>, StepReport>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof BudgetExceededDetailSchema>, BudgetExceededDetail>>().toEqualTypeOf<true>();
    expectTypeOf<SameShape<Static<typeof RuntimeWarningPayloadSchema>, RuntimeWarningPayload>>().toEqualTypeOf<true>();
    expectTypeOf<
      SameShape<Static<(typeof RuntimeEventSchemas)["runtime.warning"]>, RuntimeEvent<"runtime.warning">>
    >().toEqualTypeOf<true>();
  });

  it("drift is caught: a schema missing a required field is not the same shape", () => {
    type WithoutSeq = Omit<Static<(typeof RuntimeEventSchemas)["debug.trace"]>, "seq">;
    expectTypeOf<WithoutSeq>().not.toExtend<RuntimeEvent<"debug.trace">>();
  });
});
