/**
 * Hook decisions one field of which cannot be read, as JavaScript hosts
 * make them: a getter that throws, a proxy whose `get` trap throws for
 * that field alone. The runner fuzz's hooks hand them out (`unreadable`).
 */

/** The text a read of an unreadable decision's field throws: an outcome carrying it must be a `hook` failure naming the field (invariant 27). */
export const UNREADABLE_DECISION_TEXT = "this decision cannot be read";

/** Well-formed decisions of each hook that reads one, each field of which is made unreadable in turn. */
const DECISIONS_TO_BREAK: Record<string, readonly Record<string, unknown>[]> = {
  beforeLlmCallHook: [
    { type: "respond", text: "answered" },
    { type: "replaceRequestMessages", messages: [] },
    { type: "replaceMessages", messages: [], metadata: {}, description: "compacted" },
    { type: "appendMessage", message: { content: "hidden", source: "fuzz" } },
    { type: "abort", reason: "stop" },
  ],
  afterLlmCallHook: [
    { type: "replaceText", text: "replaced" },
    { type: "retry", reason: "again", prompt: "answer again" },
    { type: "fail", reason: "rejected" },
  ],
  beforeToolCallHook: [{ block: true, reason: "refused", blockedBy: "permission" }],
  afterToolCallHook: [{ content: [], details: {}, isError: false, terminate: false, terminateAgent: false }],
};

/**
 * Decisions one field of which cannot be read, each hook's in turn: every
 * field of every decision above, behind a getter that throws, then behind
 * a proxy whose `get` trap throws for it alone (neither is a thenable, so
 * it is read only as a decision). The hook's failure by its kind's rule,
 * naming the field; never the provider's.
 */
export function unreadableDecisions(): (hook: string) => never {
  const made = new Map<string, number>();
  return (hook) => {
    const variants = DECISIONS_TO_BREAK[hook]!.flatMap((decision) =>
      Object.keys(decision).map((field) => ({ decision, field })),
    );
    const count = made.get(hook) ?? 0;
    made.set(hook, count + 1);
    const { decision, field } = variants[count % variants.length]!;
    const text = `${UNREADABLE_DECISION_TEXT} (${hook}, ${field})`;
    if (Math.floor(count / variants.length) % 2 === 0)
      return Object.defineProperty({ ...decision }, field, {
        enumerable: true,
        get: () => {
          throw new Error(text);
        },
      }) as never;
    return new Proxy(
      { ...decision },
      {
        get: (target, key) => {
          if (key === field) throw new Error(text);
          return Reflect.get(target, key);
        },
      },
    ) as never;
  };
}
