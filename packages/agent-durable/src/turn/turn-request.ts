import type { TurnInputMessage } from "@turnkit/agent-core";
import { saysNothing } from "@turnkit/agent-core/internal";
import { assertStorableText, assertTurnInputMessage, jsonTextOf } from "../client-input.js";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { invalidInput } from "../errors.js";

/**
 * What starts a durable turn. Plain JSON: it is stored with the turn and
 * handed to the workers' `buildTurn` on every execution of the turn,
 * including recoveries in other processes.
 */
export interface DurableTurnRequest {
  /** The session; at most one turn of a session runs at a time, in start order. */
  sessionId: string;
  /** The turn; with `sessionId` it names the turn, so starting it twice returns the same turn. */
  turnId: string;
  /** The user's message; omit it with `startMode: "continue"`. */
  userMessage?: TurnInputMessage;
  /** `continue` answers the stored session history without a new user message. */
  startMode?: "prompt" | "continue";
  /** Anything JSON the host's `buildTurn` needs (a model name, a workspace, a user id). */
  metadata?: Record<string, unknown>;
  /** A name for the turn that session listings show (at most 200 characters); change it with `labelTurn`. */
  label?: string;
}

/** A durable turn as clients address it. */
export interface DurableTurnRef {
  /** The host's session id, as given to `start`. */
  readonly sessionId: string;
  /** The host's turn id, as given to `start`; with `sessionId` it names the turn and its workflow. */
  readonly turnId: string;
  /** The DBOS workflow id (and the key of the turn's rows): derived from the two ids. */
  readonly workflowId: string;
}

/** Both ids of a turn; every client API takes this (or a {@link DurableTurnRef}). */
export type TurnAddress = Pick<DurableTurnRef, "sessionId" | "turnId">;

/**
 * The workflow id of a turn: `turn:` + the two ids, each URI-encoded, so
 * distinct pairs never collide. Throws `invalid_input` for an empty or
 * non-string id, or one with a NUL character (Postgres cannot store it).
 */
export function turnRef(address: TurnAddress): DurableTurnRef {
  if (!isRecord(address as unknown))
    throw invalidInput(`the turn's address must be an object { sessionId, turnId }, got ${describeValue(address)}`);
  for (const field of ["sessionId", "turnId"] as const) {
    const value = (address as Partial<TurnAddress> | undefined)?.[field];
    if (typeof value !== "string" || value === "") throw invalidInput(`${field} must be a non-empty string`);
    assertStorableText(value, field);
  }
  return {
    sessionId: address.sessionId,
    turnId: address.turnId,
    workflowId: `turn:${encodeURIComponent(address.sessionId)}:${encodeURIComponent(address.turnId)}`,
  };
}

/**
 * The ids a workflow id made by {@link turnRef} names, or `undefined` for a
 * workflow id of another shape.
 */
export function turnRefOfWorkflowId(workflowId: string): DurableTurnRef | undefined {
  const parts = /^turn:([^:]+):([^:]+)$/.exec(workflowId);
  if (parts === null) return undefined;
  try {
    return { sessionId: decodeURIComponent(parts[1]!), turnId: decodeURIComponent(parts[2]!), workflowId };
  } catch {
    return undefined;
  }
}

/**
 * Checks a request before it is stored: ids, the user message (required
 * unless continuing, shaped as the runner takes it, and saying something:
 * text that is not only whitespace, or an image), the label, and
 * metadata (a plain JSON object). Throws `invalid_input` naming the field.
 */
export function assertValidTurnRequest(request: DurableTurnRequest): void {
  if (typeof request !== "object" || request === null) throw invalidInput("the turn request must be an object");
  turnRef(request);
  if (request.startMode !== undefined && request.startMode !== "prompt" && request.startMode !== "continue") {
    throw invalidInput(`startMode must be "prompt" or "continue", got ${JSON.stringify(request.startMode)}`);
  }
  const { userMessage } = request;
  if (request.startMode !== "continue" && (!isRecord(userMessage) || typeof userMessage.text !== "string")) {
    throw invalidInput('userMessage.text must be a string (or set startMode: "continue")');
  }
  if (request.userMessage !== undefined) assertTurnInputMessage(request.userMessage, "userMessage");
  // As the runner refuses it: a message that says nothing would be stored only for its turn to fail.
  if (request.startMode !== "continue" && request.userMessage !== undefined && saysNothing(request.userMessage)) {
    throw invalidInput(
      'userMessage.text is empty (or only whitespace) and there are no images (or set startMode: "continue")',
    );
  }
  if (request.label !== undefined) assertValidLabel(request.label);
  if (request.metadata !== undefined && !isRecord(request.metadata)) {
    throw invalidInput("metadata must be a plain object");
  }
  if (request.metadata !== undefined) jsonTextOf(request.metadata, "metadata");
}

/** Longest turn label, in characters. */
const MAX_LABEL_LENGTH = 200;

/** Checks a turn label: a string of at most 200 characters. Throws `invalid_input` naming the field. */
export function assertValidLabel(label: unknown): asserts label is string {
  if (typeof label !== "string" || label.length > MAX_LABEL_LENGTH)
    throw invalidInput(`label must be a string of at most ${MAX_LABEL_LENGTH} characters`);
  assertStorableText(label, "label");
}

/** Returns `value` when it is a non-empty string without NUL characters; throws `invalid_input` naming `field` otherwise. */
export function assertSessionId(value: unknown, field = "sessionId"): string {
  if (typeof value !== "string" || value === "") throw invalidInput(`${field} must be a non-empty string`);
  assertStorableText(value, field);
  return value;
}
