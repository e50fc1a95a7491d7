export { Agent, type AgentListener, type AgentOptions } from "./agent.js";
export { agentLoop, agentLoopContinue, runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
export { ABANDONED, settleOrAbandon } from "./abort-grace.js";
export { ABORT_GRACE_MS, DEFAULT_QUEUE_MODE, DEFAULT_TOOL_EXECUTION } from "./defaults.js";
export { MessageQueue } from "./message-queue.js";
export { ToolResultText, emptyUsage, errorText, failedAssistantMessage } from "./synthetic-messages.js";
export { isSinclairSchema, validateToolArguments } from "./tool-arguments.js";
export type * from "./types.js";
