import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import { failTurn } from "./turn-failure.js";
import { reportTrace } from "./turn-log.js";
import { emitWarning } from "./turn-watching.js";
import type { TurnState } from "./turn-state.js";

/**
 * The one way the runner calls host code of a turn (hooks, the input's
 * callbacks, the id allocator) and waits for its answer:
 *
 * - once the turn has settled, host code is never called: `ABANDONED`;
 * - once the turn is aborted, the answer races the turn's one shared abort
 *   grace; past it the call is given up (`ABANDONED`, reported as a `warn`
 *   naming `name`), and later calls take only an answer that is ready at
 *   once, so hung host code costs one grace per turn, not one per call;
 * - an answer that arrives after the turn settled is dropped: `ABANDONED`;
 * - with `RunTurnInput.hookTimeoutMs`, a call that has not answered by then
 *   (on the runner's clock) fails with a {@link HookTimeoutError}, and its
 *   late answer is dropped.
 *
 * A throw or rejection of the host code is rethrown as it is; what it means
 * is the caller's decision (each hook kind fails safe in its own way). The
 * rejection of a call given up on is handled, never unhandled.
 */
export async function awaitHostCall<T>(
  turn: TurnState,
  name: string,
  call: () => T | Promise<T>,
): Promise<T | typeof ABANDONED> {
  if (turn.settled) return ABANDONED;
  const result = call();
  if (!isThenable(result)) return result;
  const work = Promise.resolve(result);
  const timeoutMs = turn.input.hookTimeoutMs;
  let timer: unknown;
  const bounded =
    timeoutMs === undefined
      ? work
      : new Promise<T>((resolve, reject) => {
          timer = turn.defaults.clock.setTimeout(() => reject(new HookTimeoutError(name, timeoutMs)), timeoutMs);
          work.then(resolve, reject);
        });
  let answer: T | typeof ABANDONED;
  try {
    answer = await turn.abortGrace.race(bounded);
  } finally {
    if (timer !== undefined) turn.defaults.clock.clearTimeout(timer);
  }
  if (answer !== ABANDONED && !turn.settled) return answer;
  bounded.then(undefined, () => undefined);
  if (!turn.settled) {
    reportTrace(turn, "hook", "warn", `${name} did not return within the abort grace; it is abandoned`, {
      callback: name,
    });
    emitWarning(turn, {
      code: "hook_abandoned",
      message: `${name} did not return after the turn was aborted; the turn went on without it`,
      hook: name,
    });
  }
  return ABANDONED;
}

/**
 * Asks one of the input's host callbacks (`getSteeringMessages`,
 * `tryBeginClose`, `shouldStopAfterTurn`, `shouldStopAfterSteering`)
 * through {@link awaitHostCall}. An abandoned call answers `fallback`. A
 * callback that throws fails the turn with code `internal` and a message
 * naming it (whatever its text says: a host's "429" is not a provider's),
 * and answers `fallback`; the turn then stops after the current step.
 */
export async function askHost<T>(turn: TurnState, name: string, call: () => T | Promise<T>, fallback: T): Promise<T> {
  try {
    const answer = await awaitHostCall(turn, name, call);
    return answer === ABANDONED ? fallback : answer;
  } catch (error) {
    failTurn(turn, { code: ErrorCode.Internal, message: `The host callback ${name} failed: ${errorText(error)}` });
    return fallback;
  }
}

/**
 * What a hook or host callback that did not answer within
 * `RunTurnInput.hookTimeoutMs` fails with; the hook's own failure rule then
 * applies (a before-LLM hook fails the turn, a before-tool hook blocks the
 * call, an observer is ignored, ...), and its message names the hook.
 */
export class HookTimeoutError extends Error {
  constructor(hookName: string, timeoutMs: number) {
    super(`${hookName} did not answer within ${timeoutMs} ms (RunTurnInput.hookTimeoutMs)`);
    this.name = "HookTimeoutError";
  }
}

/** Thrown into the loop when a hook was given up on after an abort; the loop then records an aborted response. */
export class HookAbandonedError extends Error {
  constructor(hookName: string) {
    super(`${hookName} did not return after the turn was aborted`);
    this.name = "HookAbandonedError";
  }
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof value === "object" && value !== null && typeof (value as Promise<T>).then === "function";
}
