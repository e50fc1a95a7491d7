import type { ExtensionDegradedWarning } from "@turnkit/protocol";
import { describeValue, errorText } from "@turnkit/agent-loop/internal";
import { type ContributionKind, ExtensionContributionError } from "./extension-contribution-error.js";

/**
 * Reading what an extension's per-turn contribution hands the assembly (a
 * tool factory's tools, a prompt part's or reminder's text, a warning
 * provider's warnings). Each value is read once, inside the contribution's
 * failure rule: a throw or rejection of the contribution, and a value the
 * assembly cannot read (a revoked proxy, a getter that throws, a cycle or a
 * bigint where text is shown, a hole in a list), fail the assembly with an
 * `ExtensionContributionError` naming the extension and the contribution,
 * the original error as `cause`; never with an error of the assembly's own
 * reading.
 */

/** Names a contribution in errors: its extension, its kind and its words ("tool factory"). */
export interface ContributionSource {
  extensionId: string;
  kind: ContributionKind;
  what: string;
}

/**
 * What `produce` returns or resolves with. A throw or rejection fails as
 * `<what> failed: <its text>`; a returned value whose `then` cannot be read
 * (a revoked proxy) fails as unreadable.
 */
export async function produced(source: ContributionSource, produce: () => unknown): Promise<unknown> {
  let value: unknown;
  try {
    value = produce();
  } catch (error) {
    throw contributionFailed(source, error);
  }
  let then: unknown;
  try {
    then =
      (typeof value === "object" && value !== null) || typeof value === "function"
        ? (value as PromiseLike<unknown>).then
        : undefined;
  } catch (error) {
    throw unreadable(source, error);
  }
  if (typeof then !== "function") return value;
  try {
    return await value;
  } catch (error) {
    throw contributionFailed(source, error);
  }
}

/** Whether `value` is a list (then its entries are named by index); one that cannot be read fails as unreadable. */
export function isList(source: ContributionSource, value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch (error) {
    throw unreadable(source, error);
  }
}

/**
 * `value` as a list of its entries: a list copied entry by entry (a hole is
 * an `undefined` entry, for the caller to refuse), anything else a list of
 * one. A list that cannot be read fails as unreadable.
 */
export function entriesOf(source: ContributionSource, value: unknown): unknown[] {
  try {
    if (!Array.isArray(value)) return [value];
    const entries: unknown[] = [];
    for (let index = 0; index < value.length; index++) entries.push(value[index]);
    return entries;
  } catch (error) {
    throw unreadable(source, error);
  }
}

/**
 * The warnings a provider returned (one warning or a list; `undefined`,
 * `null` or `[]` for none) as `extension_degraded` payloads naming the
 * extension. An entry that is no `{ message, tools? }` (a hole, a message
 * that is no string, a tool name that is no string) fails, naming what it
 * got; one that cannot be read fails as unreadable.
 */
export function warningsFrom(source: ContributionSource, produced: unknown): ExtensionDegradedWarning[] {
  if (produced === undefined || produced === null) return [];
  const { extensionId } = source;
  const many = isList(source, produced);
  return entriesOf(source, produced).map((warning, index) => {
    let message: unknown;
    let tools: unknown[] | undefined;
    try {
      if (typeof warning === "object" && warning !== null) {
        const given = warning as { message?: unknown; tools?: unknown };
        message = given.message;
        const listed = given.tools ?? [];
        tools = Array.isArray(listed) ? entriesOf(source, listed) : undefined;
      }
    } catch (error) {
      if (ExtensionContributionError.isInstance(error)) throw error;
      throw unreadable(source, error);
    }
    if (typeof message !== "string" || !tools || tools.some((tool) => typeof tool !== "string")) {
      throw new ExtensionContributionError(
        extensionId,
        source.kind,
        `extension "${extensionId}": ${source.what} returned ${shown(warning)}${many ? ` at [${index}]` : ""}; expected { message, tools? }`,
      );
    }
    return { code: "extension_degraded", message, extensionId, tools: tools as string[] };
  });
}

function contributionFailed(source: ContributionSource, error: unknown): ExtensionContributionError {
  return new ExtensionContributionError(
    source.extensionId,
    source.kind,
    `extension "${source.extensionId}": ${source.what} failed: ${errorText(error)}`,
    { cause: error },
  );
}

function unreadable(source: ContributionSource, error: unknown): ExtensionContributionError {
  return new ExtensionContributionError(
    source.extensionId,
    source.kind,
    `extension "${source.extensionId}": ${source.what} returned a value that could not be read`,
    { cause: error },
  );
}

/** `value` for an error message: its JSON when it has one, else a short description; never throws. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? describeValue(value);
  } catch {
    try {
      return describeValue(value);
    } catch {
      return "a value that could not be read";
    }
  }
}
