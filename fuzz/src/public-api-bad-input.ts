/**
 * The `public-api` property: every function and class a package's main
 * entry exports, and the methods a host calls on the classes it builds
 * (`Agent`, `PiTurnRunner`, the UI stream's mapper and chat transport, the
 * prompt-read registry), called with generated arguments: the odd values a
 * JavaScript host hands over by mistake (null, a number for a string, a
 * symbol, a bigint, a revoked proxy, an object whose getters throw, a list
 * with a hole, a frozen or prototype-less object, anything fast-check
 * makes, an async iterable of such values), each beside plausible
 * neighbours. Whatever a call does with them, it must not fail with the
 * engine's text ("Cannot read properties of null", "is not iterable",
 * ...): bad input is refused with an `Error` that says what was wrong, a
 * call that returns a promise settles within two seconds, a stream it
 * returns (read to its end) ends or fails in words within as long, and
 * nothing rejects unhandled.
 *
 * The error classes are called too (a host builds them for its own
 * failures and tests): each refuses what its signature does not allow with
 * a `TypeError` naming the argument. `agent-durable` is left out (its entry
 * points need a database; `DurableTurnError` is checked in its own tests),
 * as is anything that would start a process.
 */
import * as agentCore from "@turnkit/agent-core";
import * as agentCoreTesting from "@turnkit/agent-core/testing";
import * as agentLoop from "@turnkit/agent-loop";
import * as agentLoopTesting from "@turnkit/agent-loop/testing";
import * as agentRuntime from "@turnkit/agent-runtime";
import * as protocol from "@turnkit/protocol";
import * as uiStream from "@turnkit/ui-stream";
import { isUnreadable } from "@turnkit/agent-loop/internal";
import fc from "fast-check";
import { type ApiArgument, noModel, oddValue, plausibleValue, valueOf } from "./odd-values.js";
import { engineText } from "./invariants/no-engine-errors.js";
import { unhandledRejections } from "./unhandled-rejections.js";

/** One call: which target, with which arguments. */
export interface ApiCall {
  target: string;
  args: ApiArgument[];
}

interface ApiTarget {
  name: string;
  call(args: unknown[]): unknown;
  /** An error class: what it refuses is a `TypeError` whose message starts with its name (`UIStreamError: options.code ...`). */
  errorClass?: string;
}

const ENTRIES: Record<string, Record<string, unknown>> = {
  protocol,
  "agent-loop": agentLoop,
  "agent-core": agentCore,
  "agent-loop/testing": agentLoopTesting,
  "agent-core/testing": agentCoreTesting,
  "agent-runtime": agentRuntime,
  "ui-stream": uiStream,
};

/** The methods a host calls on the classes it builds, each on a fresh instance. */
const METHODS: ApiTarget[] = [
  ...(["subscribe", "steer", "steerBatch", "followUp", "prompt"] as const).map((method) => ({
    name: `Agent#${method}`,
    call: (args: unknown[]) => (new agentLoop.Agent({ streamFn: noModel }) as any)[method](...args),
  })),
  ...(["steeringMode", "followUpMode"] as const).map((field) => ({
    name: `Agent.${field} =`,
    call: (args: unknown[]) => {
      (new agentLoop.Agent({ streamFn: noModel }) as any)[field] = args[0];
    },
  })),
  { name: "PiTurnRunner#runTurn", call: (args) => (new agentCore.PiTurnRunner() as any).runTurn(...args) },
  { name: "UIMessageChunkMapper#map", call: (args) => (new uiStream.UIMessageChunkMapper() as any).map(...args) },
  ...(["sendMessages", "reconnectToStream"] as const).map((method) => ({
    name: `TurnkitChatTransport#${method}`,
    call: (args: unknown[]) =>
      (new uiStream.TurnkitChatTransport({ fetch: () => Promise.reject(new Error("no server here")) }) as any)[method](
        ...args,
      ),
  })),
  // The decorator `bindTool` returns, applied by hand (as toolchains without decorators do) to generated arguments.
  {
    name: "bindTool(def)",
    call: (args) =>
      (
        agentCore.bindTool({
          name: "bound",
          description: "d",
          parameters: { type: "object", properties: {} },
        } as any) as any
      )(...args),
  },
  // An instance of a bound class with generated own fields over its `execute` and `constructor`.
  {
    name: "toRuntimeTool(instance with odd fields)",
    call: (args) => {
      class Bound {
        execute() {
          return { content: [] };
        }
      }
      agentCore.bindTool({ name: "bound", description: "d", parameters: { type: "object", properties: {} } } as any)(
        Bound,
      );
      const instance = new Bound();
      args.slice(0, 2).forEach((value, index) => {
        const field = index === 0 ? "execute" : "constructor";
        if (typeof value === "object" && value !== null)
          Object.defineProperty(instance, field, { get: () => (value as { field?: unknown }).field });
        else Object.defineProperty(instance, field, { value });
      });
      return agentCore.toRuntimeTool(instance as any);
    },
  },
  ...(["has", "reserve", "remember", "rebind", "take", "discard"] as const).map((method) => ({
    name: `BoundedInternalTurnPromptReadRegistry#${method}`,
    call: (args: unknown[]) => {
      const registry = new agentCore.BoundedInternalTurnPromptReadRegistry();
      registry.reserve("held");
      return (registry as any)[method](...args);
    },
  })),
];

/** Every target: the entries' functions and classes (called, or constructed), then {@link METHODS}. */
export const API_TARGETS: readonly ApiTarget[] = [
  ...Object.entries(ENTRIES).flatMap(([entry, exports]) =>
    Object.entries(exports)
      .filter(([, value]) => typeof value === "function")
      .map(([name, value]) => {
        const isClass = /^class\b/.test(Function.prototype.toString.call(value));
        const fn = value as (...args: unknown[]) => unknown;
        return {
          name: `${entry}.${name}`,
          call: (args: unknown[]) => (isClass ? Reflect.construct(fn, args) : fn(...args)),
          ...(isClass && name.endsWith("Error") && { errorClass: name }),
        };
      }),
  ),
  ...METHODS,
];

/** A call of one target with up to four arguments, at least one of them odd. */
export const apiCallArbitrary: fc.Arbitrary<ApiCall> = fc.record({
  target: fc.constantFrom(...API_TARGETS.map((target) => target.name)),
  args: fc
    .tuple(fc.array(fc.oneof(plausibleValue, oddValue), { maxLength: 3 }), oddValue, fc.nat(3))
    .map(([args, odd, at]) => {
      const all = [...args];
      all.splice(Math.min(at, all.length), 0, odd);
      return all;
    }),
});

/** How long a promise or stream a call returns may take to settle or end. */
const SETTLE_MS = 2_000;

/** Calls the target; throws when it failed with the engine's text, a non-Error, or a promise that did not settle. */
export async function checkApiCall(call: ApiCall): Promise<void> {
  const target = API_TARGETS.find((candidate) => candidate.name === call.target)!;
  await checkCall(call.target, () => target.call(call.args.map(valueOf)), target.errorClass);
}

/**
 * Runs `run` (a call named `name`) and throws when it failed with the
 * engine's text or with something that is no `Error`, when a promise it
 * returned did not settle (or a stream it returned did not end) within two
 * seconds, or when it left an unhandled rejection. For an error class
 * (`errorClass`, its name), what it throws must be a `TypeError` naming
 * the class and the argument, never the host's own error passed on.
 */
export async function checkCall(name: string, run: () => unknown, errorClass?: string): Promise<void> {
  const { seen } = unhandledRejections();
  const before = seen.length;
  const outcome = await callOnce(run);
  if (outcome === "late") throw new Error(`${name} returned a promise that did not settle within ${SETTLE_MS} ms`);
  if (outcome !== undefined) {
    const { error } = outcome;
    if (!(error instanceof Error)) throw new Error(`${name} threw something that is no Error: ${shown(error)}`);
    const engine = engineText(readMessage(error));
    if (engine) throw new Error(`${name} failed with the engine's text: ${engine}`);
    if (errorClass && !(error instanceof TypeError && readMessage(error).startsWith(`${errorClass}: `)))
      throw new Error(`${name} refused its arguments without a TypeError naming them: ${shown(error)}`);
  }
  // A rejection the call left behind surfaces after a macrotask.
  await new Promise((resolve) => setImmediate(resolve));
  if (seen.length > before) throw new Error(`${name} left an unhandled rejection: ${shown(seen.at(-1))}`);
}

/** `undefined` when the call returned (or its promise resolved), what it threw or rejected with, or `late`. */
async function callOnce(run: () => unknown): Promise<{ error: unknown } | "late" | undefined> {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    return { error };
  }
  if (!isThenable(result)) return readOut(result);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), SETTLE_MS);
  });
  try {
    return await Promise.race([
      Promise.resolve(result).then(
        () => undefined,
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads what a call returned when it is a stream (a `ReadableStream`, an
 * async generator) to its end or its first failure, within the time a
 * promise gets: a stream over odd input must fail in words too.
 */
async function readOut(result: unknown): Promise<{ error: unknown } | "late" | undefined> {
  const reading = readAll(result);
  if (reading === undefined) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), SETTLE_MS);
  });
  try {
    return await Promise.race([
      reading.then(
        () => undefined,
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise of reading `result` to its end (at most 100 items), or `undefined` for what is no stream. */
function readAll(result: unknown): Promise<void> | undefined {
  if (isUnreadable(result)) return undefined; // a revoked proxy some helpers return on purpose
  if (result instanceof ReadableStream) {
    const reader = result.getReader();
    return (async () => {
      for (let items = 0; items < 100; items++) if ((await reader.read()).done) return;
      await reader.cancel();
    })();
  }
  if (
    typeof result === "object" &&
    result !== null &&
    Object.prototype.toString.call(result) === "[object AsyncGenerator]"
  ) {
    const generator = result as AsyncGenerator<unknown>;
    return (async () => {
      for (let items = 0; items < 100; items++) if ((await generator.next()).done) return;
      await generator.return(undefined);
    })();
  }
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  try {
    return typeof (value as PromiseLike<unknown>).then === "function";
  } catch {
    return false; // a returned value that cannot be read is the caller's to find out about
  }
}

function readMessage(error: Error): string {
  try {
    return String(error.message);
  } catch {
    return "";
  }
}

function shown(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
