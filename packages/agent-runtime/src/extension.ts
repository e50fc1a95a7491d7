import { assertKnownKeys } from "@turnkit/agent-core/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
import type { ExtensionAPI } from "./extension-api.js";
import { assertExtensionId } from "./extension-id.js";
import { assertStringArgument, describeValue, isRecord } from "@turnkit/agent-loop/internal";

/**
 * A unit of host behaviour (a tool pack, a permission check, a reminder, a
 * compaction hook) that plugs into every turn without the host changing.
 *
 * `init` runs once, when the runtime is built, in extension order, one at a
 * time; it contributes through `api` (see {@link ExtensionAPI} for the init
 * window). It may be async. A throw or rejection fails the runtime with
 * `ExtensionConfigError` (`extension_init`) naming this extension, the
 * original error as `cause`.
 */
export interface Extension<TParams = unknown> {
  /** Unique within a runtime; matches `EXTENSION_ID_PATTERN`. */
  readonly id: string;
  /** One line for diagnostics and listings. */
  readonly description?: string;
  /**
   * Called once, when the runtime is built, with this extension's own `api`
   * (and `this` the extension). Contributes only through `api`, and only
   * until the promise it returns settles. A throw or rejection fails the
   * runtime with `ExtensionConfigError` (`extension_init`); later extensions
   * are not initialised.
   */
  init(api: ExtensionAPI<TParams>): void | Promise<void>;
}

/** Every key of an extension definition; a key added to the interface must be listed here to compile. */
const EXTENSION_KEYS: Record<keyof Extension, true> = { id: true, description: true, init: true };

/**
 * Throws `ExtensionConfigError` unless `value` looks like an {@link Extension}:
 * `invalid_extension_id` for a non-object or a bad id, `unknown_key` for an
 * own key that looks like a misspelt `id`, `description` or `init`
 * (`descripton`, naming the one meant; members of the extension's own, such
 * as an MCP extension's `status`, are allowed), `extension_init` for a
 * missing `init` function. `where` names the
 * list and position.
 */
export function assertExtension(value: unknown, where: string): asserts value is Extension {
  assertStringArgument(where, "assertExtension", "where");
  if (!isRecord(value)) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      `${where}: expected an extension { id, init }, got ${value === null ? "null" : typeof value === "object" ? describeValue(value) : typeof value}`,
    );
  }
  const { id, init } = value as { id?: unknown; init?: unknown };
  assertExtensionId(id, where);
  // An extension may be a richer object (an MCP extension has its status): only a misspelt key throws.
  assertKnownKeys(value, Object.keys(EXTENSION_KEYS), `${where} (extension "${id}")`, { extensible: true });
  if (typeof init !== "function") {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      `${where}: extension "${id}" has no init(api) function`,
    );
  }
}
