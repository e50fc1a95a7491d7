import { assertFunctionArgument, assertObjectArgument } from "@turnkit/agent-loop/internal";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
} from "@mariozechner/pi-ai";
import {
  attachClassifiedError,
  classifyError,
  getAttachedClassifiedError,
  type ClassifiedError,
} from "./classify-error.js";
import { isVisibleOutputEvent } from "./llm-retry.js";
import { pipeUntilSettled, RelayStream } from "./relay-stream.js";
import {
  createFailureMessage,
  errorText,
  invokeStreamFn,
  pushTerminalError,
  type AnyModel,
  type StreamFn,
} from "./stream-fn.js";

/**
 * The once-per-turn memory of overflow recovery. Create one per turn with
 * {@link createOverflowRecoveryState} and share it by every stream function
 * of that turn: once a recovery has run, later overflows of the turn surface.
 */
export interface OverflowRecoveryState {
  /** True once a recovery ran in this turn (whatever its result). */
  attempted: boolean;
}

/** A fresh state: no recovery attempted yet. */
export function createOverflowRecoveryState(): OverflowRecoveryState {
  return { attempted: false };
}

/** What {@link OverflowRecover} receives. */
export interface OverflowRecoveryRequest {
  /** The failed message (stopReason `error`) that reported the overflow. */
  error: AssistantMessage;
  /** Its classification (`context_overflow`). */
  classified: ClassifiedError;
  /** The context that did not fit. Do not mutate it; return a new one. */
  context: Context;
  /** The model of the request. */
  model: AnyModel;
  /** The caller's signal; recovery should stop when it fires. */
  signal?: AbortSignal;
}

/**
 * Makes the context fit (typically by compaction through the host's hooks).
 * Returns the context to send instead, or `undefined` to give up (the
 * original error then surfaces). A throw counts as `undefined`: report your
 * own failure inside, if the host must see it.
 */
export type OverflowRecover = (request: OverflowRecoveryRequest) => Promise<Context | undefined> | Context | undefined;

/** Options of {@link withOverflowRecovery}. */
export interface OverflowRecoveryOptions {
  /** Produces the replacement context. */
  recover: OverflowRecover;
  /** The turn's shared state; recovery runs at most once per state. */
  state: OverflowRecoveryState;
}

/**
 * Context overflow recovery. When a request fails with a
 * `context_overflow` error (pi-ai's overflow detection, or an oversized
 * request, HTTP 413) before any visible output, and no recovery has run in
 * this turn yet, calls `recover` and sends the request once more with the
 * context it returns. The resend's outcome is final, so a second overflow
 * surfaces. In every other case the original events, error included, pass
 * through unchanged. Events before the failure are held back until the
 * request shows visible output, so a recovered request never shows a
 * half-started attempt.
 *
 * The caller's abort is `options.signal`; `recover` gets it too. Apply it
 * outside the retry layer (overflow is never retried). The returned
 * function never throws; wrapping throws a `TypeError` naming the argument
 * when `streamFn` or `options.recover` is no function, or `options` or
 * `options.state` no object.
 */
export function withOverflowRecovery(streamFn: StreamFn, options: OverflowRecoveryOptions): StreamFn {
  assertFunctionArgument(streamFn, "withOverflowRecovery", "streamFn");
  assertObjectArgument(options, "withOverflowRecovery", "options");
  assertFunctionArgument(options.recover, "withOverflowRecovery", "options.recover");
  assertObjectArgument(options.state, "withOverflowRecovery", "options.state");
  const { recover, state } = options;
  return (model, context, callOptions) => {
    const out = new RelayStream();
    const caller = callOptions?.signal;
    const first = invokeStreamFn(streamFn, model, context, callOptions);

    void (async () => {
      const failure = await pipeUntilEarlyFailure(first, out);
      if (!failure) return;
      const { message, held } = failure;
      const classified = classifyError(message);
      if (classified.code !== "context_overflow" || state.attempted || caller?.aborted) {
        return surface(out, held, message, classified);
      }
      state.attempted = true;
      let replacement: Context | undefined;
      try {
        replacement = await recover({ error: message, classified, context, model, signal: caller });
      } catch {
        replacement = undefined;
      }
      if (caller?.aborted) {
        return pushTerminalError(out, attachAborted(createFailureMessage(model, "aborted", "Request was aborted")));
      }
      if (!replacement) return surface(out, held, message, classified);
      await pipeAll(invokeStreamFn(streamFn, model, replacement, callOptions), out);
    })().catch((error: unknown) => {
      pushTerminalError(out, createFailureMessage(model, caller?.aborted ? "aborted" : "error", errorText(error)));
    });
    return out;
  };
}

/**
 * Passes `source` to `out`, holding events back until visible output. Resolves
 * to the failure and the held events when `source` fails before that point;
 * otherwise to `undefined` once everything has been passed through and `out`
 * has ended. Each event is handled as it arrives (see `pipeEvents`).
 */
function pipeUntilEarlyFailure(
  source: AssistantMessageEventStream,
  out: AssistantMessageEventStream,
): Promise<{ message: AssistantMessage; held: AssistantMessageEvent[] } | undefined> {
  return new Promise((resolve, reject) => {
    let held: AssistantMessageEvent[] | undefined = [];
    pipeUntilSettled(source, (settle) => ({
      event(event) {
        if (held !== undefined && event.type === "error") {
          settle();
          return resolve({ message: event.error, held });
        }
        if (held === undefined) {
          if (event.type === "error") classifyOnce(event.error);
          out.push(event);
        } else {
          held.push(event);
          if (event.type === "done" || isVisibleOutputEvent(event)) {
            for (const buffered of held) out.push(buffered);
            held = undefined;
          }
        }
        if (event.type === "done" || event.type === "error") {
          settle();
          out.end();
          resolve(undefined);
        }
      },
      end() {
        settle();
        if (held !== undefined) for (const buffered of held) out.push(buffered);
        out.end();
        resolve(undefined);
      },
      fail(error) {
        settle();
        reject(error);
      },
    }));
  });
}

/** Passes every event of `source` to `out`, classifying a final error that carries no classification yet. */
function pipeAll(source: AssistantMessageEventStream, out: AssistantMessageEventStream): Promise<void> {
  return new Promise((resolve, reject) => {
    pipeUntilSettled(source, (settle) => ({
      event(event) {
        if (event.type === "error") classifyOnce(event.error);
        out.push(event);
        if (event.type === "done" || event.type === "error") {
          settle();
          out.end();
          resolve();
        }
      },
      end() {
        settle();
        out.end();
        resolve();
      },
      fail(error) {
        settle();
        reject(error);
      },
    }));
  });
}

/** Attaches the classification to a failed message that has none yet. */
function classifyOnce(message: AssistantMessage): void {
  if (!getAttachedClassifiedError(message)) attachClassifiedError(message, classifyError(message));
}

function surface(
  out: AssistantMessageEventStream,
  held: AssistantMessageEvent[],
  message: AssistantMessage,
  classified: ClassifiedError,
): void {
  for (const event of held) out.push(event);
  if (!getAttachedClassifiedError(message)) attachClassifiedError(message, classified);
  pushTerminalError(out, message);
}

function attachAborted(message: AssistantMessage): AssistantMessage {
  return attachClassifiedError(message, classifyError(message));
}
