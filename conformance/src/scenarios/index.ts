import type { Scenario } from "../scenario.js";
import { ABORT_SCENARIOS } from "./aborts.js";
import { AGENT_API_SCENARIOS } from "./agent-api.js";
import { FAILURE_SCENARIOS } from "./failures.js";
import { QUEUE_SCENARIOS } from "./queues.js";
import { REGRESSION_SCENARIOS } from "./regressions.js";
import { RESPONSE_SCENARIOS } from "./responses.js";
import { STREAM_PROXY_SCENARIOS } from "./stream-proxy.js";
import { TOOL_BATCH_SCENARIOS } from "./tool-batches.js";
import { TOOL_HOOK_SCENARIOS } from "./tool-hooks.js";

/**
 * Every scenario of the passing run, in report order. A scenario whose
 * traces differ must be listed in `DOCUMENTED_DIFFERENCES`; one that shows
 * an undocumented difference belongs in `SUSPECTED_BUGS` instead of here.
 */
export const SCENARIOS: readonly Scenario[] = [
  ...RESPONSE_SCENARIOS,
  ...TOOL_BATCH_SCENARIOS,
  ...TOOL_HOOK_SCENARIOS,
  ...QUEUE_SCENARIOS,
  ...FAILURE_SCENARIOS,
  ...ABORT_SCENARIOS,
  ...AGENT_API_SCENARIOS,
  ...STREAM_PROXY_SCENARIOS,
  ...REGRESSION_SCENARIOS,
];
