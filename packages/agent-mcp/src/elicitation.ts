import { type ElicitRequestFormParams, type ElicitResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { ActionRequestOutcome } from "@turnkit/agent-core";
import type { CallsInFlight } from "./calls-in-flight.js";
import { ServerRequestRefusal } from "./server-request-refusal.js";

/**
 * Serves a server's `elicitation/create` requests (form mode) by asking the
 * person through the turn whose tool call is running: the request becomes
 * an `action.required` of kind `elicitation` on that turn's stream, answered
 * by the host's `answerActionRequest`.
 *
 * The SDK client has already checked the request (a flat object schema of
 * strings, numbers, booleans and enums; URL mode is not declared, so it is
 * refused). The person's `accept` content is checked against the server's
 * schema before it is sent: content that does not match is an error the
 * server receives, never a wrong answer.
 *
 * How the wait ended becomes the server's answer: the person's answer as
 * given; `cancel` when it timed out or the turn was aborted; `decline` when
 * nobody could be asked (the host answers no action requests, or the turn
 * ended).
 */
export class ElicitationBroker {
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(
    private readonly calls: CallsInFlight,
    private readonly serverName: string,
    private readonly timeoutMs: number | undefined,
  ) {}

  /**
   * Answers one elicitation (its wait ends when the server cancels it:
   * `serverSignal`). Throws a `ServerRequestRefusal` the server receives when no single
   * turn's call is running, or when accepted content does not match the
   * requested schema.
   */
  async elicit(params: ElicitRequestFormParams, serverSignal: AbortSignal): Promise<ElicitResult> {
    const running = this.calls.ofOneTurn();
    if ("refused" in running) {
      const why =
        running.refused === "none" ? "no tool call of this server is running" : "calls of several turns are running";
      throw new ServerRequestRefusal(
        ErrorCode.InvalidRequest,
        `elicitation refused: ${why}, so no turn can ask a person`,
      );
    }
    // Over stdio nothing says which call asks: the oldest running call of the turn carries the question.
    const call = running.calls[0]!;
    const { askHost } = call.ctx;
    if (askHost === undefined) return { action: "decline" };
    const outcome = await this.calls.serve(() =>
      askHost(
        {
          kind: "elicitation",
          message: params.message,
          requestedSchema: params.requestedSchema,
          serverName: this.serverName,
        },
        { signal: serverSignal, ...(this.timeoutMs !== undefined && { timeoutMs: this.timeoutMs }) },
      ),
    );
    return this.result(outcome, params);
  }

  private result(outcome: ActionRequestOutcome<"elicitation">, params: ElicitRequestFormParams): ElicitResult {
    switch (outcome.kind) {
      case "answered": {
        const { answer } = outcome;
        if (answer.action !== "accept") return { action: answer.action };
        const check = this.validator.getValidator(
          params.requestedSchema as Parameters<AjvJsonSchemaValidator["getValidator"]>[0],
        )(answer.content);
        if (!check.valid)
          throw new ServerRequestRefusal(
            ErrorCode.InvalidParams,
            `the answer does not match the requested schema: ${check.errorMessage}`,
          );
        return { action: "accept", content: answer.content };
      }
      case "timed_out":
      case "aborted":
        return { action: "cancel" };
      case "refused":
        return { action: "decline" };
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  }
}
