import { describe, expect, it } from "vitest";
import { ABANDONED } from "../src/abort-grace.js";
import { BatchGrace } from "../src/batch-grace.js";

/** The grace as it was before it made its promise lazily: a promise made at once, resolved when the timer fires. */
class EagerGrace {
  readonly promise: Promise<typeof ABANDONED>;
  private resolve!: (value: typeof ABANDONED) => void;
  constructor() {
    this.promise = new Promise((resolve) => (this.resolve = resolve));
  }
  onRunOut(listener: { graceRanOut(): void }): void {
    void this.promise.then(() => listener.graceRanOut());
  }
  runOut(): void {
    this.resolve(ABANDONED);
  }
}

type Step = "listen" | "race" | "run out";

/** Plays `steps` on a grace, firing its timer by hand, and stamps every reaction with the microtasks since the timer fired. */
async function play(kind: "lazy" | "eager", steps: readonly Step[]): Promise<string[]> {
  const seen: string[] = [];
  let timerCallback: (() => void) | undefined;
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((callback: () => void) => {
    timerCallback = callback;
    return { unref() {} };
  }) as unknown as typeof setTimeout;
  let ticks = -1;
  const lazy = new BatchGrace();
  const eager = new EagerGrace();
  try {
    if (kind === "lazy") lazy.arm();
    let listeners = 0;
    let races = 0;
    for (const step of steps) {
      if (step === "listen") {
        const name = `listener ${++listeners}`;
        const listener = { graceRanOut: () => void seen.push(`${name}@${ticks}`) };
        if (kind === "lazy") lazy.onRunOut(listener);
        else eager.onRunOut(listener);
      } else if (step === "race") {
        const name = `race ${++races}`;
        void Promise.race([new Promise(() => {}), kind === "lazy" ? lazy.promise : eager.promise]).then((value) =>
          seen.push(`${name}:${String(value === ABANDONED)}@${ticks}`),
        );
      } else {
        ticks = 0;
        const count = () => {
          if (ticks < 20) {
            ticks++;
            queueMicrotask(count);
          }
        };
        queueMicrotask(count);
        if (kind === "lazy") timerCallback!();
        else eager.runOut();
      }
    }
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  for (let wait = 0; wait < 30; wait++) await Promise.resolve();
  return seen;
}

describe("a tool batch's abort grace", () => {
  const scripts: Step[][] = [
    ["listen", "run out"],
    ["race", "run out"],
    ["listen", "race", "race", "run out"],
    ["race", "listen", "race", "run out"],
    ["listen", "run out", "race", "listen"],
    ["run out", "listen", "race"],
    ["listen", "listen", "run out"],
    ["run out"],
  ];
  for (const steps of scripts) {
    it(`tells listeners and races as one promise made at once would: ${steps.join(", ")}`, async () => {
      const eager = await play("eager", steps);
      expect(await play("lazy", steps)).toEqual(eager);
      expect(eager.length).toBe(steps.filter((step) => step !== "run out").length);
    });
  }

  it("never runs out once cleared", async () => {
    const grace = new BatchGrace();
    const told: string[] = [];
    grace.onRunOut({ graceRanOut: () => void told.push("ran out") });
    grace.arm();
    grace.clear();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(told).toEqual([]);
  });
});
