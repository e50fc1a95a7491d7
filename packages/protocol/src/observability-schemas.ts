import { Type } from "@sinclair/typebox";
import { ProtocolUsageSchema } from "./message-schemas.js";

/*
 * TypeBox schemas of what a turn reports about itself: usage, timing, the
 * per-step report and the budget detail of a `budget_exceeded` error. Kept
 * in step with their TypeScript types by test/schema-sync.test.ts.
 */

const Count = Type.Integer({ minimum: 0 });
const Millis = Type.Number({ minimum: 0 });
const Family = Type.Union([Type.Literal("main"), Type.Literal("auxiliary")]);

/** Schema of a {@link TurnUsage}. */
export const TurnUsageSchema = Type.Object({
  main: ProtocolUsageSchema,
  auxiliary: ProtocolUsageSchema,
  subAgents: Type.Optional(ProtocolUsageSchema),
  total: ProtocolUsageSchema,
  attempts: Type.Object({ main: Count, auxiliary: Count }),
});

/** Schema of a {@link ModelRequestTiming}. */
export const ModelRequestTimingSchema = Type.Object({
  family: Family,
  attempts: Count,
  backoffMs: Millis,
  durationMs: Millis,
  firstEventMs: Type.Optional(Millis),
  firstOutputMs: Type.Optional(Millis),
  decodeMs: Type.Optional(Millis),
  thinkingMs: Type.Optional(Millis),
  outputTokensPerSecond: Type.Optional(Type.Number({ minimum: 0 })),
  models: Type.Optional(Type.Array(Type.String())),
});

/** Schema of a {@link ToolCallTiming}. */
export const ToolCallTimingSchema = Type.Object({
  toolCallId: Type.String({ minLength: 1 }),
  toolName: Type.String(),
  queuedMs: Millis,
  runMs: Millis,
});

/** Schema of a {@link TurnTiming}. */
export const TurnTimingSchema = Type.Object({
  wallMs: Millis,
  requests: Type.Array(ModelRequestTimingSchema),
  toolCalls: Type.Array(ToolCallTimingSchema),
});

/** Schema of a {@link StepReport}. */
export const StepReportSchema = Type.Object({
  stepIndex: Count,
  usage: ProtocolUsageSchema,
  timing: Type.Optional(ModelRequestTimingSchema),
  turnUsage: TurnUsageSchema,
});

/** Schema of a {@link BudgetExceededDetail}. */
export const BudgetExceededDetailSchema = Type.Object({
  limit: Type.Union([Type.Literal("maxSteps"), Type.Literal("maxOutputTokens"), Type.Literal("maxCost")]),
  max: Type.Number({ minimum: 0 }),
  measured: Type.Number({ minimum: 0 }),
});
