import { assertKnownKeys } from "@turnkit/agent-core/internal";
import { describeValue, isList, isRecord } from "@turnkit/agent-loop/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode, assertOptionsObject } from "./extension-config-error.js";
import { type Extension, assertExtension } from "./extension.js";
import type { ExtensionProfile } from "./extension-profile.js";

/** What `resolveExtensions` and `createAgentRuntime` take. */
export interface ResolveExtensionsOptions {
  /** The host's extensions, on by default, in order. */
  readonly base: readonly Extension[];
  /** Optional extensions a profile may `enable` or use in `replace`; off by default. */
  readonly additions?: readonly Extension[];
  /** The overlay applied to `base` and `additions`. */
  readonly profile?: ExtensionProfile;
}

/** Every key of the options; a key added to the interface must be listed here to compile. */
const RESOLVE_OPTIONS_KEYS: Record<keyof ResolveExtensionsOptions, true> = {
  base: true,
  additions: true,
  profile: true,
};
/** Every key of a profile. */
const PROFILE_KEYS: Record<keyof ExtensionProfile, true> = { disable: true, enable: true, replace: true, params: true };

/**
 * Applies a profile's overlay and returns the active extensions in
 * order: `base` without the disabled ones and with replacements in the
 * replaced extension's position, then the enabled additions in the order of
 * `additions`. Pure: the inputs are not modified and nothing is initialised.
 *
 * Throws one `ExtensionConfigError` (`invalid_extension_id`) listing every
 * problem found, each naming the ids involved:
 *
 * - an entry that is not an extension, or has an invalid id (checked first,
 *   alone, with its position); an entry without `init` (`extension_init`);
 * - an id twice in `base`, twice in `additions`, or in both;
 * - `disable` naming an id not in `base` (or naming one twice);
 * - `enable` naming an id not in `additions` (or naming one twice);
 * - `replace` with a key not in `base` or a value not in `additions`;
 * - conflicts: a base id both disabled and replaced; an addition both
 *   enabled and used as a replacement; one addition replacing two base ids;
 * - `params` for an id in neither `base` nor `additions`.
 *
 * An unknown key in `options` or the profile (a typo such as `overlay`,
 * which would otherwise change nothing) and one in an extension definition
 * throw `TurnkitConfigError` (`unknown_key`) naming the key and the nearest
 * valid one, before anything else is checked.
 */
export function resolveExtensions(options: ResolveExtensionsOptions): Extension[] {
  assertOptionsObject(options, "resolveExtensions");
  assertKnownKeys(options, Object.keys(RESOLVE_OPTIONS_KEYS), "agent runtime options");
  const { base, additions = [], profile = {} } = options;
  if (!isRecord(profile))
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      `resolveExtensions: profile must be an object { disable?, enable?, replace?, params? }, got ${describeValue(profile)}`,
    );
  assertKnownKeys(profile, Object.keys(PROFILE_KEYS), "profile");
  if (!isList(base)) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      "resolveExtensions: base must be an array of extensions",
    );
  }
  if (!isList(additions)) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      "resolveExtensions: additions must be an array of extensions",
    );
  }
  // Array.from: a hole in a list is an `undefined` extension, refused as one (forEach would skip it).
  Array.from(base).forEach((extension, index) => assertExtension(extension, `base[${index}]`));
  Array.from(additions).forEach((extension, index) => assertExtension(extension, `additions[${index}]`));

  const problems: string[] = [];
  const baseIds = idsOf(base, "base", problems);
  const additionIds = idsOf(additions, "additions", problems);
  for (const id of baseIds.keys()) {
    if (additionIds.has(id)) problems.push(`extension id "${id}" is in both base and additions`);
  }

  const disable = listOf(profile.disable, "profile.disable", problems);
  const enable = listOf(profile.enable, "profile.enable", problems);
  const replace = recordOf(profile.replace, "profile.replace", problems);
  const params = recordOf(profile.params, "profile.params", problems);

  for (const id of duplicates(disable)) problems.push(`profile.disable names "${id}" more than once`);
  for (const id of duplicates(enable)) problems.push(`profile.enable names "${id}" more than once`);
  for (const id of disable) {
    if (baseIds.has(id)) continue;
    problems.push(
      additionIds.has(id)
        ? `profile.disable names "${id}", an addition (additions are off unless enabled; disable takes base ids)`
        : `profile.disable names unknown extension "${id}" (not in base)`,
    );
  }
  for (const id of enable) {
    if (additionIds.has(id)) continue;
    problems.push(
      baseIds.has(id)
        ? `profile.enable names "${id}", a base extension (base extensions are on unless disabled; enable takes addition ids)`
        : `profile.enable names unknown extension "${id}" (not in additions)`,
    );
  }

  const replacedBy = new Map<string, string>();
  const usedAsReplacement = new Map<string, string>();
  for (const [from, to] of Object.entries(replace)) {
    if (typeof to !== "string") {
      problems.push(`profile.replace["${from}"] must be an addition id, got ${typeof to}`);
      continue;
    }
    if (!baseIds.has(from)) problems.push(`profile.replace names unknown extension "${from}" to replace (not in base)`);
    if (!additionIds.has(to))
      problems.push(`profile.replace["${from}"] names unknown replacement "${to}" (not in additions)`);
    if (disable.includes(from)) problems.push(`extension "${from}" is both disabled and replaced (by "${to}")`);
    if (enable.includes(to)) problems.push(`addition "${to}" is both enabled and used to replace "${from}"`);
    const earlier = usedAsReplacement.get(to);
    if (earlier !== undefined) problems.push(`addition "${to}" replaces both "${earlier}" and "${from}"`);
    else usedAsReplacement.set(to, from);
    replacedBy.set(from, to);
  }

  for (const id of Object.keys(params)) {
    if (!baseIds.has(id) && !additionIds.has(id))
      problems.push(`profile.params names unknown extension "${id}" (not in base or additions)`);
  }

  if (problems.length > 0) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      `resolveExtensions: ${problems.join("; ")}`,
    );
  }

  const disabled = new Set(disable);
  const enabled = new Set(enable);
  const resolved: Extension[] = [];
  for (const extension of base) {
    if (disabled.has(extension.id)) continue;
    const replacement = replacedBy.get(extension.id);
    resolved.push(replacement === undefined ? extension : additionIds.get(replacement)!);
  }
  for (const extension of additions) if (enabled.has(extension.id)) resolved.push(extension);
  return resolved;
}

function idsOf(extensions: readonly Extension[], list: string, problems: string[]): Map<string, Extension> {
  const byId = new Map<string, Extension>();
  for (const id of duplicates(extensions.map((extension) => extension.id)))
    problems.push(`extension id "${id}" appears more than once in ${list}`);
  for (const extension of extensions) if (!byId.has(extension.id)) byId.set(extension.id, extension);
  return byId;
}

function listOf(value: unknown, field: string, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!isList(value) || !Array.from(value).every((item) => typeof item === "string")) {
    problems.push(`${field} must be an array of extension ids`);
    return [];
  }
  return value as string[];
}

function recordOf(value: unknown, field: string, problems: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`${field} must be an object keyed by extension id`);
    return {};
  }
  return value as Record<string, unknown>;
}

/** The values that occur more than once, each once, in first-occurrence order. */
function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) repeated.add(value);
    seen.add(value);
  }
  return [...repeated];
}
