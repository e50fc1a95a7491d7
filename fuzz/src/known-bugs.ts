/**
 * Bugs the properties found that are not fixed yet. The CI budget steers the
 * generators around each one (so the suite stays green while the owner fixes
 * it); `pnpm fuzz --include-known-bugs` generates them again, so a fix can be
 * confirmed by running that until it passes. Remove an entry, and its
 * exclusion in `scenario-arbitraries.ts`, once the fix lands.
 */
export interface KnownBug {
  /** Stable name, used in comments and the fuzz report. */
  id: string;
  /** What breaks, in one line. */
  summary: string;
  /** The generator branch left out while the bug is open. */
  excludedBranch: string;
}

/**
 * Open bugs: none. (`listener-failure-leaves-work-running`, a failed run
 * that left its request or tool calls running, was fixed in the Agent;
 * `tool-call-arguments-not-object`, tool-call arguments that are no object
 * reaching events as they were, was fixed in the runner, which carries them
 * as `{ rawArguments }`. Both generator branches are back in the CI budget.)
 */
export const KNOWN_BUGS: Readonly<Record<string, KnownBug>> = {};

/** How the generators treat known bugs. */
export interface GenerationOptions {
  /** Steer around every bug in {@link KNOWN_BUGS} (the CI budget). */
  avoidKnownBugs: boolean;
}
