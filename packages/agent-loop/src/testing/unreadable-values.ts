/**
 * Values host code may hand over that no code can read, for tests that
 * check a library refuses them in its own words instead of failing with
 * the engine's error.
 */
import { assertStringArgument } from "../argument-checks.js";

/** A proxy that was revoked: reading, listing or even `Array.isArray` on it throws a `TypeError`. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/**
 * An object whose enumerable `field` throws an `Error` ("<field> getter
 * failed") when read. Throws a `TypeError` naming `field` when it is no
 * string.
 */
export function throwingGetter(field: string): object {
  assertStringArgument(field, "throwingGetter", "field");
  return Object.defineProperty({}, field, {
    get: () => {
      throw new Error(`${field} getter failed`);
    },
    enumerable: true,
  });
}
