import type { Context } from "@mariozechner/pi-ai";
import { userMessage } from "@turnkit/agent-loop/testing";

/** A request context holding one user message (timestamp 0, so contexts compare equal). */
export function userContext(text = "hi"): Context {
  return { messages: [userMessage(text, { timestamp: 0 })] };
}
