import type { TurnLogger } from "./runner-options.js";

/** A host logger whose calls can never throw, reject or change what the runner does. */
export type GuardedLogger = Required<TurnLogger>;

/**
 * The one place the runner calls the host's logger: every method exists,
 * a throw is swallowed and a returned promise's rejection is handled, so a
 * failing log sink never changes a turn (it is an observer, like metrics).
 */
export function guardLogger(logger: TurnLogger | undefined): GuardedLogger {
  const call = (level: keyof TurnLogger) => (message: string, attrs?: Record<string, unknown>) => {
    try {
      const result: unknown = logger?.[level]?.(message, attrs);
      if (result && typeof (result as Promise<void>).then === "function")
        (result as Promise<void>).then(undefined, () => undefined);
    } catch {
      // A log sink's failure is never the turn's.
    }
  };
  return { debug: call("debug"), warn: call("warn"), error: call("error") };
}
