import { TurnkitConfigError } from "@turnkit/agent-core";
import {
  assertOneOfArgument,
  assertStringArgument,
  describeValue,
  errorOptionsOf,
  hasBrand,
  isList,
  isRecord,
  readCauseArgument,
} from "@turnkit/agent-loop/internal";

const EXTENSION_CONFIG_ERROR_MARKER = Symbol.for("turnkit.agent-runtime.ExtensionConfigError");

/**
 * Stable codes of {@link ExtensionConfigError}: the configuration mistakes
 * only extensions can make. Mistakes every layer shares (`invalid_tool`,
 * `duplicate_tool`, `invalid_turn_input`, `unknown_key`) keep agent-core's
 * `ConfigErrorCode` and are plain `TurnkitConfigError`s.
 */
export const ExtensionConfigErrorCode = {
  /** An extension id that is malformed, unknown, duplicated or conflicting, or a value that is not an extension. */
  InvalidExtensionId: "invalid_extension_id",
  /** An extension's `init` failed, it used its API outside `init` or wrongly, it has no `init`, or a factory got bad options. */
  ExtensionInit: "extension_init",
} as const;

/** One of the {@link ExtensionConfigErrorCode} strings. */
export type ExtensionConfigErrorCode = (typeof ExtensionConfigErrorCode)[keyof typeof ExtensionConfigErrorCode];

/**
 * A mistake in the extensions a runtime is built from, found before any turn
 * runs: thrown by the factories and `assertExtension`, or the rejection of
 * `createAgentRuntime` / `Registry.initialize` (an `init` that threw keeps the
 * original as `cause`). It is a `TurnkitConfigError`, so
 * `TurnkitConfigError.isInstance` recognises it as well;
 * `ExtensionConfigError.isInstance` recognises it across copies of this
 * package, where `instanceof` would not.
 */
export class ExtensionConfigError extends TurnkitConfigError<ExtensionConfigErrorCode> {
  /** Brand `isInstance` checks; keyed by `Symbol.for`, so it matches across package copies. */
  readonly [EXTENSION_CONFIG_ERROR_MARKER] = true;

  /** A `code` of {@link ExtensionConfigErrorCode}, a string `message`, an optional `{ cause }`; anything else is a `TypeError` naming it. */
  constructor(code: ExtensionConfigErrorCode, message: string, options?: { cause?: unknown }) {
    assertOneOfArgument(code, Object.values(ExtensionConfigErrorCode), "ExtensionConfigError", "code");
    assertStringArgument(message, "ExtensionConfigError", "message");
    super(code, message, errorOptionsOf(readCauseArgument(options, "ExtensionConfigError")));
    this.name = "ExtensionConfigError";
  }

  /** True for an ExtensionConfigError from any copy of the package. */
  static override isInstance(value: unknown): value is ExtensionConfigError {
    return TurnkitConfigError.isInstance(value) && hasBrand(value, EXTENSION_CONFIG_ERROR_MARKER);
  }
}

/**
 * Throws `ExtensionConfigError` (`extension_init`) unless `options` is a
 * plain object (not `null`, an array or a function), naming `where` (the
 * function the host called) and what it got instead.
 */
export function assertOptionsObject(options: unknown, where: string): asserts options is object {
  if (isRecord(options)) return;
  // A revoked proxy is an object that is neither a record nor a list: nothing of it can be read.
  const got =
    options === null
      ? "null"
      : isList(options)
        ? "an array"
        : typeof options === "object"
          ? describeValue(options)
          : typeof options;
  throw new ExtensionConfigError(
    ExtensionConfigErrorCode.ExtensionInit,
    `${where}: expected an options object, got ${got}`,
  );
}
