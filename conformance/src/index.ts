export { DOCUMENTED_DIFFERENCES, expectedTrace, type DocumentedDifference } from "./documented-differences.js";
export { createGate, whenAborted, type Gate } from "./gate.js";
export {
  IMPLEMENTATIONS,
  PI,
  TURNKIT,
  type HostAgent,
  type ImplementationName,
  type LoopImplementation,
} from "./implementations.js";
export { defineScenario, type LoopSetup, type Scenario, type ScenarioContext, type Surface } from "./scenario.js";
export {
  keepProviderMessages,
  runScenario,
  RUN_TIMEOUT_MS,
  TIMEOUT_LINE,
  type ScenarioRun,
} from "./scenario-runner.js";
export { SCENARIOS } from "./scenarios/index.js";
export { formatSummaryTable, type SummaryRow } from "./summary-table.js";
export { SUSPECTED_BUGS, type SuspectedBug } from "./suspected-bugs.js";
export { assertLineCount, assertLinesInOrder, assertNoLine, TraceAssertionError } from "./trace-assertions.js";
export { diffTraces, formatTrace, formatTraceDiff, type DiffLine } from "./trace-diff.js";
export {
  briefMessage,
  describeMessage,
  normaliseEvent,
  normaliseRequest,
  type NormaliseOptions,
  type Trace,
} from "./trace-normaliser.js";
export { TraceRecorder, type TraceRecorderOptions } from "./trace-recorder.js";
