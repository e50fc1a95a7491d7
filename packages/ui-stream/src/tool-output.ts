import type { StreamToolCallResult } from "@turnkit/protocol";

/** The text of a tool call's result (its text blocks, joined and trimmed): an error's words, a refusal's reason. */
export function resultText(result: StreamToolCallResult | undefined): string {
  return (result?.content ?? [])
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("")
    .trim();
}

/** A tool part's `output`: what the model saw (`content`, images as descriptors) and the host-only `details`. */
export function toolOutput(result: StreamToolCallResult | undefined): { content: unknown[]; details?: unknown } {
  return { content: result?.content ?? [], ...(result?.details !== undefined && { details: result.details }) };
}
