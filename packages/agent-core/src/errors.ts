import { assertStringArgument, errorOptionsOf, hasBrand, readCauseArgument } from "@turnkit/agent-loop/internal";
/**
 * Stable codes of the errors Turnkit throws at its edges for bad host input
 * (configuration mistakes found when a turn or runtime is built). They are
 * distinct from the provider/turn `ErrorCode`s of `@turnkit/protocol`,
 * which classify why a running turn failed.
 */
export const ConfigErrorCode = {
  /** Two tools share a name. */
  DuplicateTool: "duplicate_tool",
  /** A tool lacks a name, a description, a schema or an `execute`; or `createBuiltinTools` got options it cannot use. */
  InvalidTool: "invalid_tool",
  /** A `RunTurnInput` (or an `llm` config given to `composeStreamFn`) is missing a required field or has one of the wrong type. */
  InvalidTurnInput: "invalid_turn_input",
  /** A `PiTurnRunnerOptions` field of the wrong type. */
  InvalidRunnerOptions: "invalid_runner_options",
  /** A host output-token cap that is not a positive integer. */
  InvalidHostCap: "invalid_host_cap",
  /** An event writer without a callable `push`. */
  InvalidEventWriter: "invalid_event_writer",
  /** A bounded registry is full. */
  CapacityExceeded: "capacity_exceeded",
  /** A class passed to `toRuntimeTool` was not decorated with `@bindTool`. */
  UndecoratedTool: "undecorated_tool",
  /** A path given to a built-in tool lies outside its workspace. */
  PathOutsideWorkspace: "path_outside_workspace",
  /** An options object has a key Turnkit does not know (a typo would otherwise be ignored silently). */
  UnknownKey: "unknown_key",
} as const;

/** One of the {@link ConfigErrorCode} strings. */
export type ConfigErrorCode = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];

const TURNKIT_ERROR_MARKER = Symbol.for("turnkit.error");
const TURNKIT_CONFIG_ERROR_MARKER = Symbol.for("turnkit.config-error");

/**
 * Base class of every error Turnkit throws on purpose. It carries a stable
 * `code`; `TurnkitError.isInstance(e)` recognises it across duplicated
 * package copies, where `instanceof` would not. The constructor takes a
 * string `code`, a string `message` and an optional `{ cause }` object (its
 * `cause` read once); anything else is refused with a `TypeError` naming
 * the argument.
 */
export class TurnkitError extends Error {
  /** Stable code a caller can branch on. */
  readonly code: string;
  /** Brand `isInstance` checks; keyed by `Symbol.for("turnkit.error")`, so it matches across package copies. */
  readonly [TURNKIT_ERROR_MARKER] = true;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    assertStringArgument(code, "TurnkitError", "code");
    assertStringArgument(message, "TurnkitError", "message");
    super(message, errorOptionsOf(readCauseArgument(options, "TurnkitError")));
    this.name = "TurnkitError";
    this.code = code;
  }

  /** True for any TurnkitError, whatever copy of the package created it. */
  static isInstance(value: unknown): value is TurnkitError {
    return hasBrand(value, TURNKIT_ERROR_MARKER);
  }
}

/**
 * A configuration mistake found when something is built (a tool table, a
 * turn, a runtime). Thrown synchronously, before any model request, so the
 * host sees it at once and nothing half-runs. A layer above with mistakes
 * of its own subclasses it with its own codes (`Code`) and marker, as
 * agent-runtime's `ExtensionConfigError` does; `isInstance` here recognises
 * those too.
 */
export class TurnkitConfigError<Code extends string = string> extends TurnkitError {
  /** Which configuration mistake: one of {@link ConfigErrorCode}, or of the subclass's codes. */
  declare readonly code: Code;
  /** Brand `isInstance` checks; keyed by `Symbol.for("turnkit.config-error")`, so it matches across package copies. */
  readonly [TURNKIT_CONFIG_ERROR_MARKER] = true;

  /** As {@link TurnkitError}'s: a string `code` and `message`, an optional `{ cause }`; anything else is a `TypeError` naming it. */
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    assertStringArgument(code, "TurnkitConfigError", "code");
    assertStringArgument(message, "TurnkitConfigError", "message");
    super(code, message, errorOptionsOf(readCauseArgument(options, "TurnkitConfigError")));
    this.name = "TurnkitConfigError";
  }

  /**
   * True for a TurnkitConfigError (or a subclass's) from any copy of the
   * package. Its `code` is then a {@link ConfigErrorCode}, or a code of the
   * layer that threw it.
   */
  static override isInstance(value: unknown): value is TurnkitConfigError {
    return TurnkitError.isInstance(value) && hasBrand(value, TURNKIT_CONFIG_ERROR_MARKER);
  }
}
