/**
 * `@turnkit/agent-loop/internal`: building blocks the project's own
 * packages (the turn runner, the durable and MCP layers, the fuzz and the
 * bench) share with the loop. Not part of the public API: a name here may
 * change or go in any release. Hosts import `@turnkit/agent-loop`.
 */

// The abort grace: how long an abort may take
export { ABANDONED, settleOrAbandon } from "./abort-grace.js";
export { ABORT_GRACE_MS } from "./defaults.js";

// Listening on a signal a host owns: one listener per signal, however many runs share it
export { onAbort } from "./shared-abort-listener.js";

// What the loop writes itself
export { ToolResultText, emptyUsage, errorText, thrownText } from "./synthetic-messages.js";

// Shape checks of messages and content a host hands the loop (agent-core builds its own on them)
export {
  agentMessageProblem,
  blockProblem,
  contentProblem,
  describeValue,
  valueText,
  isList,
  isRecord,
  isUnreadable,
  prefixed,
} from "./message-checks.js";

// Checks of a public function's own arguments (a TypeError naming function and argument)
export {
  assertArrayArgument,
  assertFunctionArgument,
  assertNumberArgument,
  assertObjectArgument,
  assertOneOfArgument,
  assertOptionsArgument,
  assertStringArgument,
  errorOptionsOf,
  readArgumentFields,
  readCauseArgument,
} from "./argument-checks.js";

// Request options
export { copyOptions } from "./options-copy.js";

// The error classes' isInstance
export { hasBrand } from "./brand.js";
