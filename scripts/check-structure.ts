/**
 * `pnpm check:structure`: fails (exit code 1, with a list) when the
 * workspace breaks one of its structure rules. Files read: every `.ts` file
 * of every package listed in `pnpm-workspace.yaml` (`src/`, `test/` and the
 * rest), except `node_modules`, `dist` and `fixtures` folders.
 *
 * 1. No import cycle between files (type-only imports count: a cycle of
 *    types still ties the files together).
 * 2. No upward import between packages. The layer order is
 *    `@turnkit/protocol` < `@turnkit/agent-loop` < `@turnkit/agent-core` <
 *    `@turnkit/agent-runtime` < any other package under `packages/`; a
 *    package imports only packages on a lower layer (`LIBRARY_LAYERS` in
 *    `structure/workspace.ts`). Examples, bench, conformance, fuzz and
 *    scripts may import any library package, not each other.
 * 3. No deep import into another package: a package specifier must name an
 *    entry its `exports` lists (`@turnkit/agent-loop/testing`, not
 *    `@turnkit/agent-loop/src/...`), and a relative import never reaches
 *    into another package's `src/`.
 * 4. No source file (under a package's `src/`) over 350 lines unless one of
 *    its first 20 lines is a comment giving the reason:
 *
 *        // Why this file is long: <the reason, on the same line>
 *
 * Usage: `pnpm check:structure [workspace root]` (default: this repository).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runCheckStructure } from "./structure/cli.js";

const result = runCheckStructure(process.argv.slice(2), resolve(dirname(fileURLToPath(import.meta.url)), ".."));
process.stdout.write(result.stdout);
process.exitCode = result.code;
