import type { ToolArguments, ToolSchema } from "@turnkit/agent-loop";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import {
  assertRuntimeToolDef,
  type RuntimeTool,
  type RuntimeToolDef,
  type RuntimeToolResult,
  type RuntimeToolUpdateCallback,
  type ToolExecutionContext,
} from "./runtime-tool.js";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { checkReadable } from "../input-reading.js";

/** What an instance of a `@bindTool` class must offer: an `execute` like `RuntimeToolImpl.execute`. */
export interface BoundToolInstance<TParameters extends ToolSchema = ToolSchema, TDetails = unknown> {
  /**
   * Runs one call, with `this` bound to the instance. Same contract as
   * `RuntimeToolImpl.execute`: it may throw or reject (the call is then
   * recorded as an error result with the error's message), it should honour
   * `signal`, and a malformed result is recorded as an error naming the tool.
   */
  execute(
    ctx: ToolExecutionContext,
    input: ToolArguments<TParameters>,
    signal: AbortSignal,
    onUpdate: RuntimeToolUpdateCallback<TDetails>,
  ): Promise<RuntimeToolResult<TDetails>> | RuntimeToolResult<TDetails>;
}

/**
 * A class `@bindTool` accepts: any constructor, abstract ones included,
 * whose instances have an `execute` matching the declared `parameters`. The
 * compiler checks the instance shape; at run time the decorator only checks
 * that it was given a function, and never calls or changes the class.
 */
export type BoundToolClass<TParameters extends ToolSchema> = abstract new (
  ...args: any[]
) => BoundToolInstance<TParameters, any>;

/** Declarations of decorated classes. A WeakMap, so a class can be collected and nobody can forge the mark. */
const boundDefs = new WeakMap<Function, RuntimeToolDef<any>>();

/**
 * TC39 class decorator (standard decorators, not
 * `experimentalDecorators`) that declares a class as a tool:
 *
 * ```ts
 * @bindTool({ name: "clock", description: "Current time", parameters: Type.Object({}) })
 * class ClockTool { execute() { return { content: [{ type: "text", text: new Date().toISOString() }] }; } }
 * const tool = toRuntimeTool(new ClockTool());
 * ```
 *
 * The declaration is validated when the decorator is created and throws
 * `TurnkitConfigError` (`invalid_tool`) naming what is missing. Instances
 * are converted with {@link toRuntimeTool}; the class itself is not changed.
 * It may also be applied as a plain function, `bindTool(def)(ToolClass)`, for
 * toolchains that cannot compile decorators; a second argument that is no
 * class decorator context (`null`, a method's, one that cannot be read) is
 * refused with `invalid_tool`. A subclass of a decorated class
 * inherits its declaration unless it is decorated itself.
 */
export function bindTool<TParameters extends ToolSchema>(
  def: RuntimeToolDef<TParameters>,
): <TClass extends BoundToolClass<TParameters>>(target: TClass, context?: ClassDecoratorContext<TClass>) => void {
  assertRuntimeToolDef(def, "bindTool");
  const frozen: RuntimeToolDef<TParameters> = Object.freeze({
    ...def,
    ...(def.promptGuidelines !== undefined && { promptGuidelines: [...def.promptGuidelines] }),
  });
  return (target, context) => {
    if (context !== undefined) {
      // A host applying the decorator by hand may pass any second argument: it must be a class context.
      const kind = checkReadable(
        `@bindTool(${JSON.stringify(def.name)}): the decorator context`,
        ConfigErrorCode.InvalidTool,
        () => (isRecord(context as unknown) ? (context as { kind?: unknown }).kind : undefined),
      );
      if (kind !== "class") {
        throw new TurnkitConfigError(
          ConfigErrorCode.InvalidTool,
          `@bindTool(${JSON.stringify(def.name)}) decorates classes only, not ${typeof kind === "string" ? `a ${kind}` : describeValue(context)}`,
        );
      }
    }
    if (typeof target !== "function") {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTool,
        `bindTool(${JSON.stringify(def.name)}) must be applied to a class`,
      );
    }
    if (boundDefs.has(target)) {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTool,
        `class ${target.name || "(anonymous)"} is already bound to tool ${JSON.stringify(boundDefs.get(target)!.name)}`,
      );
    }
    boundDefs.set(target, frozen);
  };
}

/**
 * The declaration a class was bound to with `@bindTool`, looking up the
 * prototype chain, or `undefined` if neither it nor a parent was decorated.
 */
export function boundToolDef(toolClass: Function): RuntimeToolDef | undefined {
  for (let c: unknown = toolClass; typeof c === "function"; c = Object.getPrototypeOf(c)) {
    const def = boundDefs.get(c as Function);
    if (def) return def;
  }
  return undefined;
}

/**
 * Converts an instance of a `@bindTool` class to a {@link RuntimeTool}
 * whose `impl.execute` calls the instance's `execute` with `this` bound to
 * the instance. Throws `TurnkitConfigError`: `undecorated_tool` when the
 * class (or a parent) was not decorated, `invalid_tool` when the instance
 * has no `execute` method, or when reading it throws (a getter or a proxy
 * of the host's: "could not be read", the error as `cause`).
 */
export function toRuntimeTool<TParameters extends ToolSchema = ToolSchema, TDetails = unknown>(
  instance: BoundToolInstance<TParameters, TDetails>,
): RuntimeTool<TParameters, TDetails> {
  if (typeof instance === "function") {
    const name = (instance as Function).name || "(anonymous)";
    throw new TurnkitConfigError(
      ConfigErrorCode.UndecoratedTool,
      `toRuntimeTool expects an instance of a @bindTool class, got the class ${name} itself; pass new ${name}(...)`,
    );
  }
  if (!isRecord(instance as unknown)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.UndecoratedTool,
      `toRuntimeTool expects an instance of a @bindTool class, got ${instance === null ? "null" : describeValue(instance)}`,
    );
  }
  // A getter or proxy of the host's that throws while the instance is read: typed, the error as cause.
  const { def, name, execute } = checkReadable("toRuntimeTool: the instance", ConfigErrorCode.InvalidTool, () => {
    const ctor = (instance as object).constructor;
    const found = typeof ctor === "function" ? boundToolDef(ctor) : undefined;
    return {
      def: found,
      name: typeof ctor === "function" && ctor.name ? ctor.name : "(anonymous)",
      execute: found ? instance.execute : undefined,
    };
  });
  if (!def) {
    throw new TurnkitConfigError(
      ConfigErrorCode.UndecoratedTool,
      `class ${name} is not a tool: decorate it with @bindTool({ name, description, parameters }) before calling toRuntimeTool`,
    );
  }
  if (typeof execute !== "function") {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `tool ${JSON.stringify(def.name)} is invalid: missing execute (the instance has no execute method)`,
    );
  }
  return {
    def: def as RuntimeToolDef<TParameters>,
    impl: { execute: (ctx, input, signal, onUpdate) => instance.execute(ctx, input, signal, onUpdate) },
  };
}
