/**
 * A profile's overlay on the host's extensions: which base
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
  /** Ids of `base` extensions to leave out. */
  readonly disable?: readonly string[];
  /** Ids of `additions` to include, after the base extensions, in the order of `additions`. */
  readonly enable?: readonly string[];
  /** `{ baseId: additionId }`: the addition takes the base extension's position. */
  readonly replace?: Readonly<Record<string, string>>;
  /** `{ id: value }`: each extension reads its own value as `api.params`; keys must be ids of `base` or `additions`. */
  readonly params?: Readonly<Record<string, unknown>>;
}
