/**
 * `pnpm check:docs`: fails (exit code 1, with a list) when a public name of
 * a library package has no doc comment, one under four words
 * (`MIN_DOC_WORDS` in `docs/doc-comment.ts`), or one that names an outside
 * document's id (`behaviour L9`, `SPEC X3`, `issue 12`) instead of saying
 * the behaviour.
 *
 * Public names are those of every entry each package under `packages/`
 * lists in its package.json `exports` (the `source` file of `"."`,
 * `"./testing"`, ...), followed through re-exports to their declarations.
 * A name passes when one of its declarations has a doc comment whose
 * description (tags aside) has at least four words; for an overloaded
 * function only the overload signatures count, not the implementation.
 * Names declared in installed packages are not checked.
 *
 * `--properties` also lists the members (properties, methods) of public
 * interfaces, object types and classes without such a comment. That list is
 * a report: it never changes the exit code.
 *
 * Usage: `pnpm check:docs [--properties] [workspace root]` (default: this repository).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkDocs, isClean } from "./docs/check.js";
import { formatDocsReport } from "./docs/report.js";

const args = process.argv.slice(2);
const properties = args.includes("--properties");
const unknown = args.filter((arg) => arg.startsWith("--") && arg !== "--properties");
if (unknown.length > 0) {
  console.error(`check:docs: unknown option ${unknown.join(", ")} (the only option is --properties)`);
  process.exit(2);
}
const root = resolve(
  args.find((arg) => !arg.startsWith("--")) ?? resolve(dirname(fileURLToPath(import.meta.url)), ".."),
);
const report = checkDocs(root, { properties });
console.log(formatDocsReport(report));
process.exitCode = isClean(report) ? 0 : 1;
