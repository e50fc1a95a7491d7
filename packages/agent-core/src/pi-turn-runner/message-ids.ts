import { randomUUID } from "node:crypto";

/** A default message id: `msg_<uuid>`, a random version 4 UUID in lower case. */
export function newMessageId(): string {
  return `msg_${randomUUID()}`;
}
