/**
 * A profile's overlay on the host's extensions (SPEC R1): which base
 * extensions to turn off, which optional additions to turn on, which base
 * extensions to swap for an addition, and per-extension parameters.
 *
 * - `disable`: ids of `base` extensions to leave out.
 * - `enable`: ids of `additions` to include; they follow the base
 *   extensions, in the order of `additions`.
 * - `replace`: `{ baseId: additionId }`; the addition takes the base
 *   extension's position.
 * - `params`: `{ id: value }`; each extension reads its own value as
 *   `api.params`. Keys must be ids of `base` or `additions`.
 *
 * Every id must exist where it is used and be used once; see
 * `resolveExtensions` for the full list of rules.
 */
export interface ExtensionProfile {
  readonly disable?: readonly string[];
  readonly enable?: readonly string[];
  readonly replace?: Readonly<Record<string, string>>;
  readonly params?: Readonly<Record<string, unknown>>;
}
