import {
  assertOneOfArgument,
  assertStringArgument,
  errorOptionsOf,
  hasBrand,
  readCauseArgument,
} from "@turnkit/agent-loop/internal";
import { TurnkitError } from "@turnkit/agent-core";

const EXTENSION_CONTRIBUTION_ERROR_MARKER = Symbol.for("turnkit.agent-runtime.ExtensionContributionError");

/** Which per-turn contribution of an extension failed during `assembleTurn`. */
export type ContributionKind =
  | "tool_factory"
  | "system_prompt"
  | "user_prompt_prefix"
  | "reminder"
  | "warning"
  | "dispose";

const CONTRIBUTION_KINDS: readonly ContributionKind[] = [
  "tool_factory",
  "system_prompt",
  "user_prompt_prefix",
  "reminder",
  "warning",
  "dispose",
];

/** Stable code of {@link ExtensionContributionError}. */
export const EXTENSION_CONTRIBUTION_FAILED = "extension_contribution_failed";

/**
 * A per-turn contribution (tool factory, prompt part, reminder or warning
 * provider) threw, rejected, or returned something of the wrong type or
 * that could not be read (a revoked proxy, a getter that throws) while a turn was
 * assembled, or a dispose handler failed (`contribution: "dispose"`, from
 * `runtime.dispose()`). `assembleTurn` then rejects with this error: the turn is never
 * built without a part an extension meant to add (fail closed). When several
 * fail, the first in extension order is reported. The original error is
 * `cause`.
 */
export class ExtensionContributionError extends TurnkitError {
  /** Always {@link EXTENSION_CONTRIBUTION_FAILED}. */
  declare readonly code: typeof EXTENSION_CONTRIBUTION_FAILED;
  /** The extension whose contribution failed. */
  readonly extensionId: string;
  /** Which kind of contribution failed. */
  readonly contribution: ContributionKind;
  /** Brand `isInstance` checks; keyed by `Symbol.for`, so it matches across package copies. */
  readonly [EXTENSION_CONTRIBUTION_ERROR_MARKER] = true;

  /** A string `extensionId`, a {@link ContributionKind}, a string `message`, an optional `{ cause }`; anything else is a `TypeError` naming it. */
  constructor(extensionId: string, contribution: ContributionKind, message: string, options?: { cause?: unknown }) {
    const where = "ExtensionContributionError";
    assertStringArgument(extensionId, where, "extensionId");
    assertOneOfArgument(contribution, CONTRIBUTION_KINDS, where, "contribution");
    assertStringArgument(message, where, "message");
    super(EXTENSION_CONTRIBUTION_FAILED, message, errorOptionsOf(readCauseArgument(options, where)));
    this.name = "ExtensionContributionError";
    this.extensionId = extensionId;
    this.contribution = contribution;
  }

  /** True for an ExtensionContributionError from any copy of the package. */
  static override isInstance(value: unknown): value is ExtensionContributionError {
    return TurnkitError.isInstance(value) && hasBrand(value, EXTENSION_CONTRIBUTION_ERROR_MARKER);
  }
}
