import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import type { LlmConfig } from "../call-stack/llm-config.js";
import { HookAbandonedError, awaitHostCall } from "./host-calls.js";
import { TurnFailure, failTurn } from "./turn-failure.js";
import type { TurnState } from "./turn-state.js";

/** The two host callbacks of `llm` that the provider calls during a request, as handed to the Agent. */
export interface ProviderCallbacks {
  onPayload?: LlmConfig["payloadTransform"];
  onResponse?: LlmConfig["responseObserver"];
}

/**
 * `llm.payloadTransform` and `llm.responseObserver`, called through the
 * runner's one way of calling host code ({@link awaitHostCall}), so they
 * obey the same rules as every hook: never called once the turn settled,
 * given up on after the abort grace (an aborted response).
 *
 * The provider calls them in the middle of a request, and would report
 * their throw as its own failure, classified by its text ("429 ..." as a
 * rate limit, and retried). So a throw is recorded first, as the turn's
 * failure with code `internal` naming the callback, and the turn is aborted
 * before the throw reaches the provider: the request ends aborted, is never
 * retried, and the outcome is that failure.
 */
export function providerCallbacks(turn: TurnState): ProviderCallbacks {
  const { payloadTransform, responseObserver } = turn.input.llm;
  return {
    onPayload:
      payloadTransform &&
      ((payload, model) => callForProvider(turn, "payloadTransform", () => payloadTransform(payload, model))),
    onResponse:
      responseObserver &&
      ((response, model) => callForProvider(turn, "responseObserver", () => responseObserver(response, model))),
  };
}

async function callForProvider<T>(turn: TurnState, name: string, call: () => T | Promise<T>): Promise<T> {
  let answer: T | typeof ABANDONED;
  try {
    answer = await awaitHostCall(turn, name, call);
  } catch (error) {
    const failure = { code: ErrorCode.Internal, message: `The host callback ${name} failed: ${errorText(error)}` };
    failTurn(turn, failure, true);
    throw new TurnFailure(failure);
  }
  if (answer === ABANDONED) throw new HookAbandonedError(name);
  return answer;
}
