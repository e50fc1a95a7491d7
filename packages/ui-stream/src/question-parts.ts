import type { ElicitationRequiredPayload } from "@turnkit/protocol";
import type { TurnkitUIMessageChunk } from "./turnkit-ui-message.js";

/**
 * The questions (elicitations) a turn asked, until their wait ends. A
 * question is a `data-turnkit-elicitation` part whose id is its request id;
 * when its wait ended (answered, timed out, aborted, withdrawn) the same
 * part is sent again with `outcome`, and the AI SDK replaces it in the
 * message: a page that reloads while the call that asked still runs shows
 * the question closed, not waiting for an answer it already has.
 */
export class QuestionParts {
  private readonly open = new Map<string, ElicitationRequiredPayload>();

  /** The part of a question just asked. */
  asked(question: ElicitationRequiredPayload): TurnkitUIMessageChunk {
    this.open.set(question.requestId, question);
    return { type: "data-turnkit-elicitation", id: question.requestId, data: question };
  }

  /** The question's part again with `outcome`, when `requestId` is a question still open; else nothing. */
  ended(requestId: string, outcome: string): TurnkitUIMessageChunk[] {
    const question = this.open.get(requestId);
    if (question === undefined) return [];
    this.open.delete(requestId);
    return [{ type: "data-turnkit-elicitation", id: requestId, data: { ...question, outcome } }];
  }
}
