import { assertOneOfArgument, assertStringArgument, readArgumentFields } from "../argument-checks.js";
import { hasBrand } from "../brand.js";
/** Stable codes of {@link ScriptedModelError}. */
export const ScriptedModelErrorCode = {
  /** A request arrived when the script had no entry left: the code under test asked the model once more than scripted. */
  UnexpectedRequest: "unexpected_request",
  /** The test ended with script entries never requested: the code under test stopped earlier than scripted. */
  UnconsumedEntries: "unconsumed_entries",
} as const;

/** One of the {@link ScriptedModelErrorCode} strings. */
export type ScriptedModelErrorCode = (typeof ScriptedModelErrorCode)[keyof typeof ScriptedModelErrorCode];

const SCRIPTED_MODEL_ERROR_MARKER = Symbol.for("turnkit.agent-loop.ScriptedModelError");

/**
 * A scripted model used differently than its script says: thrown by a
 * strict model's stream function on an unexpected request, and by
 * `assertScriptConsumed()`. `isInstance` recognises it across copies of the
 * package.
 */
export class ScriptedModelError extends Error {
  /** Which mismatch; one of {@link ScriptedModelErrorCode}. */
  readonly code: ScriptedModelErrorCode;
  /** Brand `isInstance` checks. */
  readonly [SCRIPTED_MODEL_ERROR_MARKER] = true;

  /** `options`: a `code` of {@link ScriptedModelErrorCode} and a string `message`, each read once; anything else is a `TypeError` naming it. */
  constructor(options: { code: ScriptedModelErrorCode; message: string }) {
    const where = "ScriptedModelError";
    const { code, message } = readArgumentFields(options, where, "options", ["code", "message"]);
    assertOneOfArgument(code, Object.values(ScriptedModelErrorCode), where, "options.code");
    assertStringArgument(message, where, "options.message");
    super(message);
    this.name = "ScriptedModelError";
    this.code = code;
  }

  /** True for a ScriptedModelError from any copy of the package. */
  static isInstance(value: unknown): value is ScriptedModelError {
    return hasBrand(value, SCRIPTED_MODEL_ERROR_MARKER);
  }
}
