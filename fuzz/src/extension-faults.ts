// Why this file is long: invariant 28's generator and checker; contributions, host inputs and tool clashes share one scenario, so they read together.
/**
 * Generated runtimes whose extensions contribute odd values to a turn: each
 * per-turn contribution (tool factory, system prompt part, user prompt
 * prefix part, reminder, warning provider) answers well, throws or rejects
 * (an error, a string, a revoked proxy), or hands over a value the assembly
 * cannot read or must refuse (a revoked proxy, a getter that throws, a
 * list with a hole, a warning holding a bigint or a cycle, the wrong type);
 * the host's ctx is now and then one that cannot be read. An assembled
 * turn is then combined with host inputs (`toRunTurnInput`) that are now
 * and then malformed: a user text that is no string, a hook that is no
 * function, a hole or `null` among the tools, a value that cannot be read.
 * Now and then two tools share a name: one extension's factory makes its
 * tool twice, every extension's factory adds the same one, or the host
 * brings a tool named as an extension's.
 *
 * Invariant 28: `assembleTurn` never throws synchronously; it resolves
 * exactly when every contribution answered well and the ctx is readable,
 * and otherwise rejects with a typed error (`ExtensionContributionError`
 * naming a failing extension and the kind of one of its failing
 * contributions, or `TurnkitConfigError` for the ctx or a tool) whose
 * message carries no engine text of the assembly's own reading (the text of
 * a contribution's own throw or rejection, after "failed: ", is the
 * extension's). `toRunTurnInput` returns input whose user text is the
 * host's text after the prefix for good host inputs, and throws a
 * `TurnkitConfigError` naming the `host.` field, without engine text, for
 * malformed ones: never input the runner would accept in their place.
 * Two tools of one name among base extensions are refused with a
 * `duplicate_tool` `TurnkitConfigError` naming the name; a host tool named
 * as an extension's factory-made one is kept alone, the extension's left
 * out with a warning: the turn's tools never repeat a name.
 */
import { TurnkitConfigError, defineRuntimeTool } from "@turnkit/agent-core";
import {
  ExtensionContributionError,
  type HostTurnInputs,
  createAgentRuntime,
  createPromptExtension,
  toRunTurnInput,
  type Extension,
  type ExtensionAPI,
  type TurnContext,
} from "@turnkit/agent-runtime";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { revokedProxy, throwingGetter } from "@turnkit/agent-loop/testing";

/** The per-turn contributions of an extension, named as `ExtensionContributionError.contribution` names them. */
const SLOTS = ["tool_factory", "system_prompt", "user_prompt_prefix", "reminder", "warning"] as const;
type Slot = (typeof SLOTS)[number];

/** How one contribution answers. */
type Answer =
  | "ok"
  | "throws"
  | "throwsString"
  | "throwsRevoked"
  | "rejects"
  | "revoked"
  | "getterThrows"
  | "hole"
  | "wrongType"
  | "bigint"
  | "cycle";

/** One generated runtime: per extension, how each of its contributions answers; and the host's ctx. */
export interface ExtensionFaultScenario {
  extensions: Partial<Record<Slot, Answer>>[];
  ctx: "ok" | "revoked" | "getterThrows";
  /** The host's inputs to `toRunTurnInput`: well formed, or with one fault. */
  host: "ok" | "textUndefined" | "textNumber" | "hookNumber" | "hookHole" | "toolHole" | "toolNull" | "revoked";
  /** Whether contributions answer through a promise. */
  async: boolean;
  /**
   * Two tools of one name: none; the first extension's factory makes its
   * tool twice; every extension's factory adds `shared_tool`; or the host
   * brings a tool of the first extension's tool's name.
   */
  toolClash: "none" | "sameExtension" | "everyExtension" | "host";
}

const answerArbitrary: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("ok" as const) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Answer>(
      "throws",
      "throwsString",
      "throwsRevoked",
      "rejects",
      "revoked",
      "getterThrows",
      "hole",
      "wrongType",
      "bigint",
      "cycle",
    ),
  },
);

export const extensionFaultArbitrary: fc.Arbitrary<ExtensionFaultScenario> = fc
  .record({
    extensions: fc.array(
      fc.record(
        Object.fromEntries(SLOTS.map((slot) => [slot, answerArbitrary])) as Record<Slot, fc.Arbitrary<Answer>>,
        {
          requiredKeys: [],
        },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    ctx: fc.oneof(
      { weight: 8, arbitrary: fc.constant("ok" as const) },
      { weight: 1, arbitrary: fc.constantFrom("revoked" as const, "getterThrows" as const) },
    ),
    async: fc.boolean(),
    toolClash: fc.oneof(
      { weight: 5, arbitrary: fc.constant("none" as const) },
      { weight: 3, arbitrary: fc.constantFrom("sameExtension" as const, "everyExtension" as const, "host" as const) },
    ),
    host: fc.oneof(
      { weight: 3, arbitrary: fc.constant("ok" as const) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          "textUndefined" as const,
          "textNumber" as const,
          "hookNumber" as const,
          "hookHole" as const,
          "toolHole" as const,
          "toolNull" as const,
          "revoked" as const,
        ),
      },
    ),
  })
  // A tool clash is checked on extensions whose factories answer well (any other fault would end the assembly first).
  .map((scenario) =>
    scenario.toolClash === "none"
      ? scenario
      : {
          ...scenario,
          ctx: "ok" as const,
          extensions: scenario.extensions.map(() => ({ tool_factory: "ok" as const })),
        },
  );

/** Engine texts of a failed read: none may reach an error's message. */
const ENGINE_TEXT =
  /Cannot perform|circular structure|serialize a BigInt|Cannot read properties|is not a function|is not iterable/;

function tool(name: string) {
  return defineRuntimeTool({
    name,
    description: "A tool of a generated extension",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
  });
}

/** What a contribution of `slot` answering `answer` returns (or throws), for extension `index`. */
function answerOf(
  slot: Slot,
  answer: Answer,
  index: number,
  clash: ExtensionFaultScenario["toolClash"],
): () => unknown {
  const good: Record<Slot, () => unknown> = {
    tool_factory: () => [
      tool(`tool_${index}`),
      ...(clash === "sameExtension" && index === 0 ? [tool("tool_0")] : []),
      ...(clash === "everyExtension" ? [tool("shared_tool")] : []),
    ],
    system_prompt: () => `system part ${index}`,
    user_prompt_prefix: () => `user part ${index}`,
    reminder: () => `reminder ${index}`,
    warning: () => ({ message: `extension ${index} is degraded`, tools: [`tool_${index}`] }),
  };
  const field = slot === "tool_factory" ? "def" : "message";
  switch (answer) {
    case "ok":
      return good[slot];
    case "throws":
      return () => {
        throw new Error(`${slot} failed`);
      };
    case "throwsString":
      return () => {
        throw `${slot} failed as a string`;
      };
    case "throwsRevoked":
      return () => {
        throw revokedProxy();
      };
    case "rejects":
      return () => Promise.reject(new Error(`${slot} rejected`));
    case "revoked":
      return () => revokedProxy();
    case "getterThrows":
      return () => (slot === "tool_factory" || slot === "warning" ? throwingGetter(field) : revokedProxy());
    case "hole":
      return () => {
        if (slot !== "tool_factory" && slot !== "warning") return 5;
        const given = good[slot]();
        const list: unknown[] = Array.isArray(given) ? [...given] : [given];
        list.length += 1;
        return list.reverse();
      };
    case "wrongType":
      return () => (slot === "tool_factory" ? { def: { name: 5 } } : slot === "warning" ? { message: 5 } : 5);
    case "bigint":
      return () => (slot === "warning" ? { message: 1n } : 1n);
    case "cycle": {
      const cycle: Record<string, unknown> = { message: 5, def: 5 };
      cycle.self = cycle;
      return () => cycle;
    }
    default: {
      const unknown: never = answer;
      throw new Error(`unknown answer ${String(unknown)}`);
    }
  }
}

function extensionOf(
  answers: Partial<Record<Slot, Answer>>,
  index: number,
  async: boolean,
  clash: ExtensionFaultScenario["toolClash"],
): Extension {
  const through = (produce: () => unknown) => (async ? async () => produce() : produce);
  return {
    id: `ext${index}`,
    init(api: ExtensionAPI) {
      for (const slot of SLOTS) {
        const answer = answers[slot];
        if (answer === undefined) continue;
        const produce = through(answerOf(slot, answer, index, clash)) as () => never;
        switch (slot) {
          case "tool_factory":
            api.registerTool(produce);
            break;
          case "system_prompt":
            api.contributeSystemPrompt(produce);
            break;
          case "user_prompt_prefix":
            api.contributeUserPromptPrefix(produce);
            break;
          case "reminder":
            api.registerReminderProvider({ id: `r${index}`, provide: produce });
            break;
          case "warning":
            api.registerWarningProvider(produce);
            break;
        }
      }
    },
  };
}

function ctxOf(kind: ExtensionFaultScenario["ctx"]): TurnContext {
  if (kind === "revoked") return revokedProxy() as TurnContext;
  if (kind === "getterThrows") return Object.assign(throwingGetter("sessionId"), { turnId: "t" }) as TurnContext;
  return { sessionId: "s", turnId: "t" };
}

/** Runs one scenario and throws unless invariant 28 holds. */
export async function checkExtensionFaults(scenario: ExtensionFaultScenario): Promise<void> {
  const fail = (problem: string): never => {
    throw new Error(`invariant "28 extension contributions and host inputs fail typed and named" violated: ${problem}`);
  };
  const runtime = await createAgentRuntime({
    base: [
      ...scenario.extensions.map((answers, index) => extensionOf(answers, index, scenario.async, scenario.toolClash)),
      createPromptExtension({ id: "prefix", userPromptPrefix: "[prefix]" }),
    ],
  });
  let assembly: Promise<unknown>;
  try {
    assembly = runtime.assembleTurn(ctxOf(scenario.ctx));
  } catch (error) {
    return fail(`assembleTurn threw synchronously: ${String(error)}`);
  }
  const faulty = scenario.extensions.flatMap((answers, index) =>
    SLOTS.filter((slot) => answers[slot] !== undefined && answers[slot] !== "ok").map((slot) => ({
      extensionId: `ext${index}`,
      slot,
    })),
  );
  // Two tools of one name among the extensions' well-answering factories: the assembly must refuse them.
  const madeTools = scenario.extensions.filter((answers) => answers.tool_factory === "ok").length;
  const clashing =
    (scenario.toolClash === "sameExtension" && scenario.extensions[0]!.tool_factory === "ok") ||
    (scenario.toolClash === "everyExtension" && madeTools >= 2);
  let error: unknown;
  try {
    await assembly;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) {
    if (scenario.ctx !== "ok" || faulty.length > 0 || clashing)
      fail(`resolved despite ${JSON.stringify(faulty)} (ctx ${scenario.ctx}, tool clash ${scenario.toolClash})`);
    const hostClash = scenario.toolClash === "host" && scenario.extensions[0]!.tool_factory === "ok";
    return checkHostInputs(
      scenario.host,
      (await assembly) as Parameters<typeof toRunTurnInput>[0],
      fail,
      scenario.toolClash === "host",
      hostClash,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  // After "failed: " comes the contribution's own error (an async one that resolved with a revoked proxy rejected in the engine): its text is the extension's.
  const own = message.includes(" failed: ") ? message.slice(0, message.indexOf(" failed: ")) : message;
  if (ENGINE_TEXT.test(own)) fail(`the error carries engine text: ${message}`);
  if (scenario.ctx !== "ok" && TurnkitConfigError.isInstance(error) && error.code === "invalid_turn_input") return;
  if (ExtensionContributionError.isInstance(error)) {
    const named = faulty.some((fault) => fault.extensionId === error.extensionId && fault.slot === error.contribution);
    if (!named) fail(`it names ${error.extensionId}'s ${error.contribution}, which answered well: ${message}`);
    return;
  }
  const toolFault = faulty.some((fault) => fault.slot === "tool_factory");
  if (TurnkitConfigError.isInstance(error) && toolFault && error.code === "invalid_tool") return;
  if (TurnkitConfigError.isInstance(error) && clashing && error.code === "duplicate_tool") {
    const name = scenario.toolClash === "sameExtension" ? '"tool_0"' : '"shared_tool"';
    if (!message.includes(name)) fail(`the duplicate-tool refusal does not name ${name}: ${message}`);
    return;
  }
  fail(
    `rejected with an untyped or unexpected error: ${error instanceof Error ? error.name : typeof error}: ${message}`,
  );
}

/** The host's tool named as the first extension's own tool, when the scenario brings one. */
const HOST_TOOL = tool("tool_0");

/** The host's inputs with `fault`; `withClash`: the host brings {@link HOST_TOOL}. */
function hostOf(fault: ExtensionFaultScenario["host"], withClash: boolean): HostTurnInputs {
  const host: HostTurnInputs = {
    userMessage: { text: "the user's question" },
    llm: { model: { id: "m", api: "scripted", provider: "scripted" } as never },
    eventWriter: { push: () => {} },
    ...(withClash && { tools: [HOST_TOOL] }),
  };
  switch (fault) {
    case "ok":
      return host;
    case "textUndefined":
      return { ...host, userMessage: { text: undefined as never } };
    case "textNumber":
      return { ...host, userMessage: { text: 5 as never } };
    case "hookNumber":
      return { ...host, hooks: { beforeToolCallHook: 5 as never } };
    case "hookHole": {
      const hooks: unknown[] = [() => undefined];
      hooks.length = 2;
      return { ...host, hooks: { afterToolCallHook: hooks as never } };
    }
    case "toolHole": {
      const tools: unknown[] = [tool("host_tool")];
      tools.length = 2;
      return { ...host, tools: tools as never };
    }
    case "toolNull":
      return { ...host, tools: [null as never] };
    case "revoked":
      return revokedProxy() as HostTurnInputs;
    default: {
      const unknown: never = fault;
      throw new Error(`unknown host fault ${String(unknown)}`);
    }
  }
}

/**
 * `withClash`: the host brings a tool named `tool_0`; `clashes`: the first
 * extension's factory made one too, so the host's is kept alone, with a
 * warning naming the extension's left out.
 */
function checkHostInputs(
  fault: ExtensionFaultScenario["host"],
  assembled: Parameters<typeof toRunTurnInput>[0],
  fail: (problem: string) => never,
  withClash: boolean,
  clashes: boolean,
): void {
  let input: ReturnType<typeof toRunTurnInput>;
  try {
    input = toRunTurnInput(assembled, hostOf(fault, withClash));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (fault === "ok") fail(`toRunTurnInput refused well-formed host inputs: ${message}`);
    if (!TurnkitConfigError.isInstance(error)) fail(`toRunTurnInput threw an untyped error for ${fault}: ${message}`);
    if (ENGINE_TEXT.test(message) || !/host|argument/.test(message))
      fail(`toRunTurnInput's error for ${fault} does not name the host field, or carries engine text: ${message}`);
    return;
  }
  if (fault !== "ok") fail(`toRunTurnInput accepted host inputs with ${fault}`);
  if (!input.userMessage?.text.endsWith("[prefix]\n\nthe user's question"))
    fail(`the user text is ${JSON.stringify(input.userMessage?.text)}`);
  const names = (input.tools ?? []).map((each) => each.def.name);
  if (new Set(names).size !== names.length) fail(`the turn's tools repeat a name: ${JSON.stringify(names)}`);
  if (withClash && !input.tools?.includes(HOST_TOOL)) fail("the host's own tool was left out");
  const leftOutWarned = (input.warnings ?? []).some(
    (warning) => warning.message.includes('tool "tool_0"') && warning.message.includes("left out"),
  );
  if (clashes && !leftOutWarned) fail("no warning says the extension's tool_0 was left out for the host's");
}
