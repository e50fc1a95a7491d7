// Why this file is long: the Agent's and the runner's scenario tools share one set of behaviours (each kind a case of one switch) and one record of how calls ran; split, the two would drift apart.
/**
 * The tools of a generated scenario, as `AgentTool`s (for `Agent`) and as
 * `RuntimeTool`s (for `PiTurnRunner`). One schema for all; what a call does
 * is looked up by its tool-call id in the scenario's behaviours.
 */
import { Type } from "@sinclair/typebox";
import type { AgentTool, AgentToolResult } from "@turnkit/agent-loop";
import { type AskHost, type Clock, type RuntimeTool, defineRuntimeTool } from "@turnkit/agent-core";
import { sleep } from "@turnkit/agent-core/internal";
import { type QuestionProbe, askQuestions } from "./host-questions.js";
import { PREPARE_THROWS_VALUE } from "./scripted-entries.js";
import { hugeList, oddThenable } from "./odd-tool-answers.js";
import {
  type Delay,
  type MalformedResult,
  TOOL_NAMES,
  type ToolBehaviour,
  type ToolModes,
  type ToolName,
} from "./scenario.js";

/** `{ value?: string, n?: number }`: numbers coerce from numeric strings. */
export const SCENARIO_TOOL_PARAMETERS = Type.Object({
  value: Type.Optional(Type.String()),
  n: Type.Optional(Type.Number()),
});

/** A call that has no behaviour in the scenario (a steering or fallback response) answers at once. */
const DEFAULT_BEHAVIOUR: ToolBehaviour = {
  kind: "result",
  delay: { kind: "now" },
  updates: 0,
  lateUpdate: false,
  terminate: false,
  isError: false,
};

/** What the tools need from the run. */
export interface ToolEnvironment {
  clock: Clock;
  behaviours: ReadonlyMap<string, ToolBehaviour>;
  /** Every executed call id, in start order. */
  executed: string[];
  /** Where `ask` calls record their questions (the runner's tools only). */
  questions?: QuestionProbe;
  /** Aborts the turn as the host does (the runner's tools only; for `abortOnReturn`). */
  abort?: () => void;
  /** Where a tool leaves what it does once the turn settled (the runner's tools only; for `updateAfterTurn`). */
  afterTurn?: (() => void)[];
  /** The calls running now, and for each start the calls that were running then (the runner's tools only; invariant 33). */
  toolRuns?: ToolRuns;
}

/** When each call started, against the calls running then. */
export interface ToolRuns {
  running: Set<string>;
  starts: { callId: string; running: string[] }[];
}

/** Where a late update goes: after every microtask of the settling call. */
const laterThanSettle = (fn: () => void) => setImmediate(fn);

async function wait(delay: Delay, clock: Clock, signal: AbortSignal | undefined): Promise<void> {
  switch (delay.kind) {
    case "now":
      return;
    case "microtasks":
      for (let turn = 0; turn < delay.count; turn++) await Promise.resolve();
      return;
    case "clock":
      await sleep(delay.ms, clock, signal);
      return;
    default: {
      const unknown: never = delay;
      throw new Error(`Unknown delay: ${JSON.stringify(unknown)}`);
    }
  }
}

function hangUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, rejectHang) => {
    const onAbort = () => rejectHang(new Error("the hanging tool was aborted"));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface PerformedResult {
  content: { type: "text"; text: string }[];
  details: { callId: string };
  terminate?: boolean;
  isError?: boolean;
}

/**
 * Details no JSON writes as they are (of progress, or of a runner tool's
 * result): a cycle, a bigint, a function, `undefined` and `NaN` in a list,
 * a revoked proxy, and nesting deeper than any stack.
 */
function oddDetails(callId: string): Record<string, unknown> {
  const details: Record<string, unknown> = {
    callId,
    bytes: 10n,
    format: () => callId,
    list: [1, undefined, Number.NaN],
    revoked: revokedProxy(),
    nested: DEEP_VALUE,
  };
  details.self = details;
  return details;
}

/** A value nested 50,000 levels deep, alternating lists and objects, made once. */
const DEEP_VALUE: unknown = (() => {
  let value: unknown = { leaf: true };
  for (let level = 0; level < 50_000; level++) value = level % 2 ? { nested: value } : [value];
  return value;
})();

/** The text of a runner tool's answer whose `isError` and `terminate` are no booleans: it must never reach the transcript as the call's result (invariant 25). */
export const ODD_FLAGS_TEXT = "an answer whose flags are no booleans";

/** What the `toString` of an {@link unreadableThrow} throws: a run that ends with it let a tool's throw escape its call. */
export const UNREADABLE_THROW_TEXT = "the thrown value cannot be read";

/** What a careless tool may throw: no Error, and a `toString` that throws too. */
function unreadableThrow(callId: string): object {
  return {
    callId,
    toString(): string {
      throw new Error(`${UNREADABLE_THROW_TEXT} (${callId})`);
    },
  };
}

/** A proxy that was revoked: every operation on it throws, `instanceof` included. */
function revokedProxy(): object {
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  return revocable.proxy;
}

/** A progress update no loop can show as given, of the kind the behaviour names. */
function oddUpdateValue(kind: "null" | "number" | "revoked" | "getter", callId: string): unknown {
  if (kind === "null") return null;
  if (kind === "number") return 5;
  if (kind === "revoked") return revokedProxy();
  return {
    get content(): never {
      throw new Error(`the progress of ${callId} cannot be read`);
    },
  };
}

/** Whether the call's behaviour answers a malformed result. */
function isMalformed(environment: ToolEnvironment, callId: string): boolean {
  const behaviour = environment.behaviours.get(callId);
  return behaviour?.kind === "result" && behaviour.malformed !== undefined;
}

/** A tool's answer that is no well-formed result, of the kind given. */
function malformedResult(kind: MalformedResult, callId: string): PerformedResult {
  const answers: Record<MalformedResult, () => unknown> = {
    "text-number": () => ({ content: [{ type: "text", text: 5 }], details: { callId } }),
    undefined: () => undefined,
    null: () => null,
    string: () => `${callId} done`,
    "no-content": () => ({ details: { callId } }),
    "content-not-list": () => ({ content: `${callId} done`, details: { callId } }),
    revoked: () => revokedProxy(),
    "throwing-getter": () => ({
      get content(): never {
        throw new Error(`the content of ${callId} cannot be read`);
      },
      details: { callId },
    }),
  };
  return answers[kind]() as PerformedResult;
}

/** {@link performCall}, noting the calls that were running as it started (when the environment keeps {@link ToolRuns}). */
async function perform(
  callId: string,
  environment: ToolEnvironment,
  signal: AbortSignal | undefined,
  update: ((text: string, oddDetails?: boolean) => void) | undefined,
  asking?: { askHost: AskHost | undefined; callKey: string },
  raw?: (value: unknown) => void,
): Promise<PerformedResult> {
  const runs = environment.toolRuns;
  if (!runs) return performCall(callId, environment, signal, update, asking, raw);
  runs.starts.push({ callId, running: [...runs.running] });
  runs.running.add(callId);
  try {
    return await performCall(callId, environment, signal, update, asking, raw);
  } finally {
    runs.running.delete(callId);
  }
}

/** Runs one call's behaviour; `update` receives progress. Throws for `throw`, rejects on abort. */
async function performCall(
  callId: string,
  environment: ToolEnvironment,
  signal: AbortSignal | undefined,
  update: ((text: string, oddDetails?: boolean) => void) | undefined,
  asking?: { askHost: AskHost | undefined; callKey: string },
  raw?: (value: unknown) => void,
): Promise<PerformedResult> {
  environment.executed.push(callId);
  const behaviour = environment.behaviours.get(callId) ?? DEFAULT_BEHAVIOUR;
  switch (behaviour.kind) {
    case "hang":
      return hangUntilAborted(signal);
    case "throw":
      await wait(behaviour.delay, environment.clock, signal);
      if (behaviour.unreadable === "revoked") throw revokedProxy();
      if (behaviour.unreadable === "hugeList")
        throw Object.assign([`tool call ${callId} failed`], { length: 2 ** 32 - 1 });
      if (behaviour.unreadable) throw unreadableThrow(callId);
      throw new Error(`tool call ${callId} failed`);
    case "ask": {
      // An `Agent` tool has nobody to ask: it answers at once.
      const text =
        asking?.askHost && environment.questions
          ? await askQuestions(
              { callId, callKey: asking.callKey },
              behaviour.asks,
              asking.askHost,
              environment.clock,
              environment.questions,
            )
          : `${callId} done`;
      return { content: [{ type: "text", text }], details: { callId } };
    }
    case "result": {
      if (behaviour.oddUpdate) raw?.(oddUpdateValue(behaviour.oddUpdate, callId));
      for (let index = 0; index < behaviour.updates; index++) {
        update?.(`${callId} progress ${index + 1}`, behaviour.oddUpdateDetails);
        await wait(behaviour.delay, environment.clock, signal);
      }
      if (behaviour.updates === 0) await wait(behaviour.delay, environment.clock, signal);
      if (behaviour.lateUpdate) laterThanSettle(() => update?.(`${callId} late update after settling`));
      if (behaviour.malformed) return malformedResult(behaviour.malformed, callId);
      const text = behaviour.halfCharacter ? `${callId} done \uD83D` : `${callId} done`;
      const result: PerformedResult = { content: [{ type: "text", text }], details: { callId } };
      if (behaviour.terminate) result.terminate = true;
      if (behaviour.isError) result.isError = true;
      return result;
    }
    default: {
      const unknown: never = behaviour;
      throw new Error(`Unknown tool behaviour: ${JSON.stringify(unknown)}`);
    }
  }
}

function prepareArguments(args: unknown): { value?: string; n?: number } {
  if (typeof args === "object" && args !== null && (args as { value?: unknown }).value === PREPARE_THROWS_VALUE) {
    throw new Error("prepareArguments rejected the arguments");
  }
  return args as { value?: string; n?: number };
}

/** The scenario's tools for an `Agent` (loop `AgentTool`s). */
export function createAgentTools(
  modes: ToolModes,
  environment: ToolEnvironment,
): AgentTool<typeof SCENARIO_TOOL_PARAMETERS>[] {
  return TOOL_NAMES.map((name: ToolName) => {
    const tool: AgentTool<typeof SCENARIO_TOOL_PARAMETERS> = {
      name,
      label: name,
      description: `Scenario tool ${name}`,
      parameters: SCENARIO_TOOL_PARAMETERS,
      execute: async (toolCallId, params, signal, onUpdate) => {
        editArguments(params);
        const update =
          onUpdate &&
          ((text: string) => onUpdate({ content: [{ type: "text", text }], details: { callId: toolCallId } }));
        const performed = await perform(toolCallId, environment, signal, update, undefined, (value) =>
          onUpdate?.(value as never),
        );
        // A malformed answer is handed back as it is: reading it here would throw in the tool instead.
        if (isMalformed(environment, toolCallId)) return performed as AgentToolResult<{ callId: string }>;
        const { isError: _ignored, ...result } = performed;
        return result as AgentToolResult<{ callId: string }>;
      },
    };
    if (modes[name] !== undefined) tool.executionMode = modes[name];
    if (name === "prepared") tool.prepareArguments = prepareArguments;
    return tool;
  });
}

/**
 * Every scenario tool edits the arguments it was given, as careless tools
 * do: the call in the transcript, and as the model is sent it back, must
 * stay as the model wrote it (the agent-differential compares it with pi's,
 * whose validator hands tools a copy).
 */
function editArguments(args: unknown): void {
  if (typeof args === "object" && args !== null && !Array.isArray(args))
    (args as Record<string, unknown>).value = "edited by the tool";
}

/** The scenario's tools for a `PiTurnRunner` (`RuntimeTool`s; no mode means sequential). */
export function createRuntimeTools(modes: ToolModes, environment: ToolEnvironment): RuntimeTool[] {
  return TOOL_NAMES.map((name: ToolName) =>
    defineRuntimeTool({
      name,
      description: `Scenario tool ${name}`,
      parameters: SCENARIO_TOOL_PARAMETERS,
      ...(modes[name] !== undefined && { executionMode: modes[name] }),
      ...(name === "prepared" && { prepareArguments }),
      execute: (ctx, input, signal, onUpdate) => {
        const behaviour = environment.behaviours.get(ctx.toolCallId);
        const odd = behaviour?.kind === "result" ? behaviour.oddAnswer : undefined;
        if (odd === "updateBurst")
          for (let index = 0; index < 200; index++)
            onUpdate({ content: [{ type: "text", text: `${ctx.toolCallId} burst ${index}` }], details: {} });
        if (odd === "hugeLists")
          onUpdate({ content: hugeList({ type: "text", text: "working" }) as never, details: { list: hugeList(1) } });
        const answer = runtimeAnswer(environment, ctx, input, signal, onUpdate);
        if (odd === "abortOnReturn") return answer.finally(() => environment.abort?.());
        if (odd === "hugeLists")
          return answer.then((result) => ({ ...(result as object), details: { list: hugeList(1) } }) as never);
        if (odd === "updateAfterTurn")
          environment.afterTurn?.push(() =>
            onUpdate({ content: [{ type: "text", text: `${ctx.toolCallId} update after the turn` }], details: {} }),
          );
        return odd === undefined || odd === "updateBurst" || odd === "updateAfterTurn"
          ? answer
          : oddThenable(odd, answer, ctx.toolCallId);
      },
    }),
  );
}

/** What a runner's scenario tool answers (see {@link createRuntimeTools}). */
async function runtimeAnswer(
  environment: ToolEnvironment,
  ctx: Parameters<RuntimeTool["impl"]["execute"]>[0],
  input: unknown,
  signal: AbortSignal | undefined,
  onUpdate: Parameters<RuntimeTool["impl"]["execute"]>[3],
): Promise<never> {
  editArguments(input);
  const result = await perform(
    ctx.toolCallId,
    environment,
    signal,
    (text, odd) =>
      onUpdate({
        content: [{ type: "text", text }],
        details: odd ? oddDetails(ctx.toolCallId) : { callId: ctx.toolCallId },
      }),
    { askHost: ctx.askHost, callKey: ctx.callKey ?? ctx.toolCallId },
    (value) => onUpdate(value as never),
  );
  const behaviour = environment.behaviours.get(ctx.toolCallId);
  if (isMalformed(environment, ctx.toolCallId)) return result as never;
  if (behaviour?.kind === "result" && behaviour.oddFlags)
    return {
      content: [{ type: "text", text: `${ODD_FLAGS_TEXT} (${ctx.toolCallId})` }],
      isError: "yes",
      terminate: 1,
    } as never;
  const odd = behaviour?.kind === "result" && behaviour.oddResultDetails;
  return (odd ? { ...result, details: oddDetails(ctx.toolCallId) } : result) as never;
}
