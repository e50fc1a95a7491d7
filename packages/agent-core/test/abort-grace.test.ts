import { ABANDONED } from "@turnkit/agent-loop/internal";
import { describe, expect, it } from "vitest";
import { collectGarbageLater } from "./support/garbage.js";
import { AbortGrace } from "../src/aborts.js";

describe("the turn's abort grace", () => {
  it("a race answers with the work's outcome, and with ABANDONED for work still pending when the grace ends", async () => {
    const grace = new AbortGrace();
    await expect(grace.race(Promise.resolve("answer"))).resolves.toBe("answer");
    await expect(grace.race(Promise.reject(new Error("hook failed")))).rejects.toThrow("hook failed");
    const hung = grace.race(new Promise(() => {}));
    grace.begin();
    grace.end();
    await expect(hung).resolves.toBe(ABANDONED);
    // Once the grace is over, only an answer ready at once is taken.
    await expect(grace.race(Promise.resolve("ready"))).resolves.toBe("ready");
    await expect(grace.race(new Promise(() => {}))).resolves.toBe(ABANDONED);
  });

  it("a settled race leaves nothing on the grace: a long turn's many host calls do not pile up until it ends", async () => {
    const grace = new AbortGrace();
    const answers: WeakRef<object>[] = [];
    const answerOnce = async (index: number) => {
      const answer = { index, payload: new Array(100).fill(index) };
      answers.push(new WeakRef(answer));
      return (await grace.race(Promise.resolve(answer))) === answer;
    };
    for (let i = 0; i < 50; i++) expect(await answerOnce(i)).toBe(true);
    await collectGarbageLater();
    expect(answers.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(grace.isOver).toBe(false);
    grace.end();
  });
});
