/**
 * The shape of each assistant message's `stream.resp` chunks:
 * at most one `finish`, and nothing after it; each tool call resolved
 * (`finished`/`failed`) at most once; a message that finished with
 * `toolUse` resolved every call it announced, before its `finish`.
 */
import type { RuntimeEvent, StreamChunk } from "@turnkit/protocol";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "stream chunks of a message";

export function checkStreamChunks(events: readonly RuntimeEvent[]): void {
  const byMessage = new Map<string, { seq: number; chunk: StreamChunk }[]>();
  for (const event of events) {
    if (event.type !== "stream.resp") continue;
    const list = byMessage.get(event.payload.messageId) ?? [];
    list.push({ seq: event.seq, chunk: event.payload.chunk });
    byMessage.set(event.payload.messageId, list);
  }
  for (const [messageId, chunks] of byMessage) {
    const fail = (detail: string): never => {
      throw new InvariantViolation(INVARIANT, `${messageId}: ${detail}`);
    };
    const finishes = chunks.filter(({ chunk }) => chunk.kind === "finish");
    if (finishes.length > 1) fail(`${finishes.length} finish chunks`);
    if (finishes.length === 1 && chunks[chunks.length - 1]!.chunk.kind !== "finish")
      fail("chunks after the finish chunk");
    const announced = new Set<string>();
    const resolved = new Set<string>();
    for (const { seq, chunk } of chunks) {
      if (chunk.kind !== "tool_call") continue;
      if (chunk.status === "preparing") announced.add(chunk.toolCallId);
      if (chunk.status === "finished" || chunk.status === "failed") {
        if (resolved.has(chunk.toolCallId)) fail(`tool call ${chunk.toolCallId} resolved twice (seq ${seq})`);
        resolved.add(chunk.toolCallId);
      }
    }
    const finish = finishes[0]?.chunk;
    if (finish?.kind === "finish" && finish.reason === "toolUse") {
      const unresolved = [...announced].filter((id) => !resolved.has(id));
      if (unresolved.length > 0) fail(`finished with toolUse but calls ${unresolved.join(", ")} were never resolved`);
    }
    if (finish?.kind === "finish" && finish.reason === "error" && typeof finish.error?.code !== "string")
      fail("an error finish without error.code");
  }
}
