/**
 * `over`'s headers with those of `under` whose name `over` does not set in
 * any case (header names are case-insensitive: `X-Title` is `x-title`), so
 * a name is sent once, with `over`'s value. Returns a new object; neither
 * argument is changed.
 */
export function mergeHeaders(
  under: Readonly<Record<string, string>> | undefined,
  over: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  if (over === undefined) return { ...under };
  const overNames = new Set(Object.keys(over).map((name) => name.toLowerCase()));
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(under ?? {})) if (!overNames.has(name.toLowerCase())) merged[name] = value;
  return { ...merged, ...over };
}
