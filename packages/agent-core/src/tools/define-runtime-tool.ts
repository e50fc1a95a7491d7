import type { ToolArguments, ToolExecutionMode, ToolSchema } from "@turnkit/agent-loop";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { assertRuntimeToolDef, type RuntimeTool, type RuntimeToolDef, type RuntimeToolImpl } from "./runtime-tool.js";

/** Everything `defineRuntimeTool` needs: the declaration fields plus `execute`. */
export interface DefineRuntimeToolOptions<TParameters extends ToolSchema, TDetails> {
  /** Name the model calls: letters, digits, `_` and `-`, at most 64; anything else throws here. */
  name: string;
  /** Human-readable label for UIs; defaults to `name`. */
  label?: string;
  /** What the tool does and when to use it; sent to the model. Must not be blank. */
  description: string;
  /** Object schema of the arguments (TypeBox or plain JSON Schema with `type: "object"`); it types `input`. */
  parameters: TParameters;
  /** `"parallel"` for tools that only read; omitted means `"sequential"` (the whole batch runs one call at a time). */
  executionMode?: ToolExecutionMode;
  /** Lines a host may add to its system prompt about this tool; copied here, never sent by the loop itself. */
  promptGuidelines?: string[];
  /**
   * Shim for the raw arguments, run before validation (e.g. to accept an
   * older argument shape); what it returns is then validated against
   * `parameters`. A throw answers the call with an error result carrying
   * its message; the tool does not run.
   */
  prepareArguments?: (args: unknown) => ToolArguments<TParameters>;
  /**
   * Runs one admitted call; the contract of `RuntimeToolImpl.execute`
   * (a throw becomes an error result, honour `signal`). Called with `this`
   * undefined, so pass a bound function or an arrow, not an unbound method.
   */
  execute: RuntimeToolImpl<TParameters, TDetails>["execute"];
}

/**
 * Builds a {@link RuntimeTool} from one object, splitting it into
 * `def` (data) and `impl` (behaviour). `input` in `execute` is typed from
 * `parameters`.
 *
 * Throws `TurnkitConfigError` (`invalid_tool`) at once, naming every missing
 * or malformed field (name, description, parameters, execute, ...), so a bad
 * tool fails when it is defined rather than when the model calls it. The
 * options object is not retained or modified; `execute` is called with
 * `this` undefined.
 */
export function defineRuntimeTool<TParameters extends ToolSchema, TDetails = unknown>(
  options: DefineRuntimeToolOptions<TParameters, TDetails>,
): RuntimeTool<TParameters, TDetails> {
  if (!isRecord(options as unknown)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `defineRuntimeTool: expected an options object, got ${describeValue(options)}`,
    );
  }
  const { execute, ...fields } = options;
  const def: RuntimeToolDef<TParameters> = {
    name: fields.name,
    description: fields.description,
    parameters: fields.parameters,
    ...(fields.label !== undefined && { label: fields.label }),
    ...(fields.executionMode !== undefined && { executionMode: fields.executionMode }),
    ...(fields.promptGuidelines !== undefined && { promptGuidelines: [...fields.promptGuidelines] }),
    ...(fields.prepareArguments !== undefined && { prepareArguments: fields.prepareArguments }),
  };
  try {
    assertRuntimeToolDef(def, "defineRuntimeTool");
  } catch (error) {
    if (typeof execute === "function") throw error;
    // Report a missing execute together with the declaration's problems.
    throw new TurnkitConfigError(ConfigErrorCode.InvalidTool, `${(error as Error).message}; missing execute`);
  }
  if (typeof execute !== "function") {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `defineRuntimeTool: tool ${JSON.stringify(def.name)} is invalid: missing execute (a function)`,
    );
  }
  return { def, impl: { execute: (ctx, input, signal, onUpdate) => execute(ctx, input, signal, onUpdate) } };
}
