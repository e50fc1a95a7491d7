import { Type } from "@sinclair/typebox";
import type { WalkStats } from "./workspace-walk.js";

/** The `includeIgnored` argument `grep` and `glob` share. */
export const includeIgnoredParameter = Type.Optional(
  Type.Boolean({
    description:
      "Also search files that .gitignore, .git/info/exclude or .ignore hide (build output, dependencies, caches). Default false; set it only when you need such files on purpose",
  }),
);

/** How the tool descriptions explain ignore files to the model. */
export const IGNORE_FILES_DESCRIPTION =
  "In a git repository, files hidden by .gitignore (at any level), .git/info/exclude or .ignore are skipped unless includeIgnored is true; node_modules and .git are always skipped.";

/** A line telling the model that ignored paths were left out and how to get them, or `""` when none were. */
export function ignoredNote(stats: WalkStats): string {
  if (stats.ignored === 0) return "";
  const what = stats.ignored === 1 ? "1 ignored path was" : `${stats.ignored} ignored paths were`;
  return `\n\n[${what} skipped (.gitignore, .ignore or .git/info/exclude); pass includeIgnored: true to search them.]`;
}
