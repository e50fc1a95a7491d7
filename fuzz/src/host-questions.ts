/**
 * Asking the host in a generated turn: the tools' side (a call asks its
 * questions one after the other with `ctx.askHost`) and the host's side
 * (`answerActionRequest` answering as the scenario says), both recording
 * what happened on the virtual clock for invariant 17.
 */
import type { ActionRequestAnswerer, ActionRequestOutcome, AskHost, Clock } from "@turnkit/agent-core";
import type { AskSpec, HostAnswerSpec } from "./scenario.js";

/** The question every generated ask sends: a yes/no elicitation. */
export const FUZZ_QUESTION = {
  kind: "elicitation",
  serverName: "fuzz",
  message: "Go on?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
} as const;

/** A question a careless tool builds: a `serverName` that is no string, a bigint in its schema (refused at once, naming the field). */
export const MALFORMED_QUESTION = {
  ...FUZZ_QUESTION,
  serverName: 5,
  requestedSchema: { type: "object", maxLength: 10n },
} as unknown as typeof FUZZ_QUESTION;

/** The answer an `accept` gives. */
export const ACCEPTED = { action: "accept", content: { ok: true } } as const;

/** The kind of request an ask of `spec` makes (its request id's prefix): a malformed one is always the malformed elicitation, one that cannot be read `invalid`. */
export function askKind(spec: AskSpec): "elicitation" | "tool_approval" | "invalid" {
  if (spec.unreadable) return "invalid";
  return spec.approval && !spec.malformed ? "tool_approval" : "elicitation";
}

/** A question a hostile tool builds: a revoked proxy, which no code can read. */
function unreadableQuestion(): typeof FUZZ_QUESTION {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy as typeof FUZZ_QUESTION;
}

/** The host's answer of kind `answer` to a request of kind `kind`: yes or no, as that kind says it. */
export function hostAnswerOf(answer: "accept" | "decline", kind: string): unknown {
  if (kind === "tool_approval") return answer === "accept" ? { approved: true } : { approved: false, reason: "no" };
  return answer === "accept" ? ACCEPTED : { action: "decline" };
}

/** One `askHost` call of a tool, as the tool saw it. */
export interface AskRecord {
  callId: string;
  /** The call's key in the turn (`ToolExecutionContext.callKey`): its id, or `<id>#<k>` when the model reused the id. */
  callKey: string;
  /** The ids of the sub-agent calls the tool's turn runs under, each followed by `/`; `""` in the host's turn. */
  scope: string;
  /** 1 for the call's first question. */
  n: number;
  spec: AskSpec;
  askedAt: number;
  endedAt: number;
  outcome: ActionRequestOutcome;
}

/** One call of the host's `answerActionRequest`. */
export interface AnswerRecord {
  requestId: string;
  spec: HostAnswerSpec;
  calledAt: number;
  /** The turn had already settled when the host was asked (host code after the end). */
  afterSettle: boolean;
  /** When the host's signal fired (the turn stopped waiting without its answer), if it did. */
  signalFiredAt: number | undefined;
}

/** What the questions of one turn left behind. */
export interface QuestionProbe {
  answerer: "present" | "absent";
  /** When the host aborted the turn, on the virtual clock, if it did. */
  abortedAt?: number;
  asks: AskRecord[];
  answers: AnswerRecord[];
}

/**
 * Asks each question of `asks` in turn; resolves with the outcomes' kinds
 * as the tool's text. `call` is the asking call's id and key, `scope` that
 * of its turn (see `AskRecord`).
 */
export async function askQuestions(
  call: { callId: string; callKey: string },
  asks: readonly AskSpec[],
  askHost: AskHost,
  clock: Clock,
  probe: QuestionProbe,
  scope = "",
): Promise<string> {
  const kinds: string[] = [];
  for (const [index, spec] of asks.entries()) {
    const askedAt = clock.now();
    const question = spec.unreadable
      ? unreadableQuestion()
      : askKind(spec) === "tool_approval"
        ? { kind: "tool_approval" as const, toolCallId: call.callId, toolName: "ask", arguments: {} }
        : spec.malformed
          ? MALFORMED_QUESTION
          : FUZZ_QUESTION;
    const outcome = await askHost(question, spec.timeoutMs === "default" ? {} : { timeoutMs: spec.timeoutMs });
    probe.asks.push({ ...call, scope, n: index + 1, spec, askedAt, endedAt: clock.now(), outcome });
    kinds.push(outcome.kind);
  }
  return `${call.callId} asked: ${kinds.join(", ")}`;
}

/**
 * The host's `answerActionRequest` for `answers` (the n-th call takes the
 * n-th; past the end, `accept`), or undefined for `absent`. Its late
 * answers are timers on `clock`, listed in `timers` for the leak count.
 */
export function hostAnswerer(
  answers: readonly HostAnswerSpec[] | "absent",
  clock: Clock,
  probe: QuestionProbe,
  settled: () => boolean,
  timers: unknown[],
): ActionRequestAnswerer | undefined {
  if (answers === "absent") return undefined;
  let calls = 0;
  return (request, signal) => {
    const spec = answers[calls++] ?? { kind: "accept" };
    const record: AnswerRecord = {
      requestId: request.requestId,
      spec,
      calledAt: clock.now(),
      afterSettle: settled(),
      signalFiredAt: undefined,
    };
    probe.answers.push(record);
    signal.addEventListener("abort", () => (record.signalFiredAt = clock.now()), { once: true });
    switch (spec.kind) {
      case "accept":
      case "decline":
        return hostAnswerOf(spec.kind, request.kind) as never;
      case "invalid":
        return { action: "maybe" } as never;
      case "throw":
        throw new Error("the host failed to show the question");
      case "never":
        return new Promise(() => undefined);
      case "late":
        return new Promise((resolve, reject) => {
          const timer = clock.setTimeout(() => {
            if (spec.answer === "accept") resolve(hostAnswerOf("accept", request.kind) as never);
            else reject(new Error("the host lost the question"));
          }, spec.ms);
          timers.push(timer);
          // The turn stopped waiting: the host takes the question down.
          signal.addEventListener("abort", () => clock.clearTimeout(timer), { once: true });
        });
      default: {
        const unknown: never = spec;
        throw new Error(`Unknown host answer: ${JSON.stringify(unknown)}`);
      }
    }
  };
}
