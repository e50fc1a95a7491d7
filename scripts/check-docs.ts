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
import { runCheckDocs } from "./docs/cli.js";

const result = runCheckDocs(process.argv.slice(2), resolve(dirname(fileURLToPath(import.meta.url)), ".."));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
