/**
 * References a tool's JSON Schema makes that no validator can follow.
 *
 * A `$ref` to another document (`"https://example.com/point.json"`), to a
 * pointer the document does not hold (`"#/$defs/Missing"`), or to an anchor
 * it does not declare resolves to nothing: the validator pi-ai uses then
 * treats that subschema as `false`, and every call of the tool fails with
 * "schema is false", whatever the model sends. Nothing is fetched over the
 * network to resolve one: the tool's author (often an MCP server, which
 * checks its own arguments) is the authority on what such a reference
 * allows, so it allows anything here, and the rest of the schema still
 * applies (the keywords beside the reference included).
 */

/** Keywords whose values are data, not subschemas: a `$ref` key inside them is no reference. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** What a schema document declares that references can point to. */
interface Targets {
  readonly ids: string[];
  readonly anchors: Set<string>;
  /** An `$id` below the root: a `#/...` pointer under it is relative to that resource, not the root. */
  nestedId: boolean;
}

/** Where a reference sits in the document: the keys from the root to the object holding it, and the keyword. */
interface ReferenceAt {
  readonly path: readonly string[];
  readonly keyword: "$ref" | "$dynamicRef";
}

/**
 * `schema` itself when every reference in it can be resolved within the
 * document, else a copy in which each one that cannot is removed (its
 * subschema then allows anything, constrained only by the keywords beside
 * the reference). A schema that cannot be copied (it holds functions) is
 * returned as it is. Never throws, never changes `schema`.
 */
export function withResolvableRefs(schema: object): object {
  const targets: Targets = { ids: [], anchors: new Set(), nestedId: false };
  const references: ReferenceAt[] = [];
  collect(schema, [], targets, references);
  const unresolvable = references.filter((at) => !resolves(schema, at, targets));
  if (unresolvable.length === 0) return schema;
  let copy: object;
  try {
    copy = structuredClone(schema);
  } catch {
    return schema;
  }
  for (const { path, keyword } of unresolvable) {
    let holder: unknown = copy;
    for (const key of path) holder = (holder as Record<string, unknown>)[key];
    delete (holder as Record<string, unknown>)[keyword];
  }
  return copy;
}

function collect(node: unknown, path: string[], targets: Targets, references: ReferenceAt[], depth = 0): void {
  if (typeof node !== "object" || node === null || depth > 64) return;
  if (Array.isArray(node)) {
    node.forEach((item, index) => collect(item, [...path, String(index)], targets, references, depth + 1));
    return;
  }
  const record = node as Record<string, unknown>;
  if (typeof record.$id === "string") {
    targets.ids.push(record.$id);
    if (path.length > 0) targets.nestedId = true;
  }
  if (typeof record.$anchor === "string") targets.anchors.add(record.$anchor);
  if (typeof record.$dynamicAnchor === "string") targets.anchors.add(record.$dynamicAnchor);
  if (typeof record.$ref === "string") references.push({ path, keyword: "$ref" });
  if (typeof record.$dynamicRef === "string") references.push({ path, keyword: "$dynamicRef" });
  for (const key of Object.keys(record)) {
    if (!DATA_KEYWORDS.has(key)) collect(record[key], [...path, key], targets, references, depth + 1);
  }
}

function resolves(root: object, { path, keyword }: ReferenceAt, targets: Targets): boolean {
  let holder: unknown = root;
  for (const key of path) holder = (holder as Record<string, unknown>)[key];
  const ref = (holder as Record<string, string>)[keyword]!;
  if (ref === "" || ref === "#") return true;
  if (ref.startsWith("#/")) return targets.nestedId || pointsInto(root, ref.slice(2));
  if (ref.startsWith("#")) return targets.anchors.has(ref.slice(1));
  // Another document: only one the schema itself declares by its `$id`.
  const base = ref.split("#")[0]!;
  return targets.ids.some((id) => sameDocument(id, base));
}

/** True when the JSON pointer `pointer` (without its leading `#/`) leads to a schema in `root`. */
function pointsInto(root: object, pointer: string): boolean {
  let node: unknown = root;
  for (const token of pointer.split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return false;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return (typeof node === "object" && node !== null) || typeof node === "boolean";
}

/** Where an `$id` that is itself relative is placed, only to compare it with a reference. */
const RELATIVE_BASE = "https://schema.invalid/";

/** Whether the reference base `base` names the resource declared with `$id` `id` (absolute, or relative to it). */
function sameDocument(id: string, base: string): boolean {
  const idBase = id.split("#")[0]!;
  if (idBase === base) return true;
  try {
    const resource = new URL(idBase, RELATIVE_BASE);
    return new URL(base, resource).href === resource.href;
  } catch {
    return idBase.endsWith(`/${base}`);
  }
}
