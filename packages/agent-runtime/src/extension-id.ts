import { assertStringArgument } from "@turnkit/agent-loop/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
import { MAX_EXTENSION_ID_LENGTH } from "./defaults.js";

/**
 * What an extension id looks like: lower-case letters and digits, then also
 * `.`, `_` and `-` (`permissions`, `tool-pack.git`, `reminder_todo`). Ids
 * name extensions in profiles, diagnostics and errors, so they are kept to
 * characters that survive config files, logs and URLs unchanged.
 */
export const EXTENSION_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/** True when `id` is a string matching {@link EXTENSION_ID_PATTERN}, at most {@link MAX_EXTENSION_ID_LENGTH} long. */
export function isValidExtensionId(id: unknown): id is string {
  return typeof id === "string" && id.length <= MAX_EXTENSION_ID_LENGTH && EXTENSION_ID_PATTERN.test(id);
}

/**
 * Throws `ExtensionConfigError` (`invalid_extension_id`) unless `id` is a
 * valid extension id. The message quotes the offending value and says
 * `where` it was given, so the host can find it.
 */
export function assertExtensionId(id: unknown, where: string): asserts id is string {
  assertStringArgument(where, "assertExtensionId", "where");
  if (isValidExtensionId(id)) return;
  const shown =
    typeof id === "string"
      ? JSON.stringify(id)
      : id === null || id === undefined
        ? String(id)
        : `${typeof id === "object" ? "an" : "a"} ${typeof id}`;
  const why =
    typeof id !== "string" || id.length === 0
      ? "an extension id must be a non-empty string"
      : id.length > MAX_EXTENSION_ID_LENGTH
        ? `an extension id is at most ${MAX_EXTENSION_ID_LENGTH} characters`
        : `an extension id must match ${EXTENSION_ID_PATTERN} (lower-case letters, digits, ".", "_", "-"; starting with a letter or digit)`;
  throw new ExtensionConfigError(
    ExtensionConfigErrorCode.InvalidExtensionId,
    `${where}: invalid extension id ${shown}: ${why}`,
  );
}
