/**
 * The public surface of `@turnkit/agent-durable` and its testing entry:
 * every value and type they export. A name added, removed or retyped fails
 * this test until the lists below and the README say so, so the API changes
 * only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-durable",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeAlsoMentions: [
    "abort", "approvalTimeoutMs", "buildTurn", "client", "close", "concurrency", "databaseUrl", "follow", "leaseMs", "outcome",
    "readEvents", "respond", "shutdown", "start", "status", "steer", "workerId",
  ],
  values: [
    "DEFAULT_APPROVAL_TIMEOUT_MS", "DEFAULT_APP_NAME", "DEFAULT_APP_VERSION", "DEFAULT_QUEUE_NAME", "DEFAULT_SCHEMA",
    "DEFAULT_WORKER_CONCURRENCY", "DEFAULT_WORKER_LEASE_MS", "DurableTurnClient", "DurableTurnError", "DurableTurnErrorCode",
    "DurableTurnWorker", "INTERRUPTED_TOOL_RESULT_TEXT", "approvalRequestId", "durableTool", "turnRef",
  ],
  types: [
    "ApprovalDecision", "BuildDurableTurn", "DurableBeforeToolCallDecision", "DurableBeforeToolCallHook", "DurableRuntimeTool",
    "DurableTurnClient", "DurableTurnError", "DurableTurnErrorCode", "DurableTurnHooks", "DurableTurnRef", "DurableTurnRequest",
    "DurableTurnSetup", "DurableTurnStatus", "DurableTurnWorker", "DurableTurnWorkerOptions", "DurableTurnsConnection",
    "FollowOptions", "ToolReplayPolicy", "TurnAddress",
  ],
});
