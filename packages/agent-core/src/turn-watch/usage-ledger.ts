import type { Usage } from "@mariozechner/pi-ai";
import type { ProtocolUsage, TurnUsage } from "@turnkit/protocol";
import { countedCount } from "../call-stack/provider-usage.js";

/** Which kind of request spent the tokens: the agent loop's own, or a hook's (compaction, a classifier). */
export type RequestFamily = "main" | "auxiliary";

/** A usage with every count and cost at zero. */
export function zeroUsage(): ProtocolUsage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Adds `usage` into `into`; a missing or non-finite count adds nothing (a provider's usage is untrusted). */
export function addUsage(into: ProtocolUsage, usage: Usage | ProtocolUsage | undefined): void {
  if (!usage) return;
  into.input += countedCount(usage.input);
  into.output += countedCount(usage.output);
  into.cacheRead += countedCount(usage.cacheRead);
  into.cacheWrite += countedCount(usage.cacheWrite);
  into.totalTokens += countedCount(usage.totalTokens);
  const cost = usage.cost;
  if (!cost) return;
  into.cost.input += countedCount(cost.input);
  into.cost.output += countedCount(cost.output);
  into.cost.cacheRead += countedCount(cost.cacheRead);
  into.cost.cacheWrite += countedCount(cost.cacheWrite);
  into.cost.total += countedCount(cost.total);
}

/** A copy of one of the ledger's usages (its cost copied too). */
function copyUsage(usage: ProtocolUsage): ProtocolUsage {
  return { ...usage, cost: { ...usage.cost } };
}

/**
 * Tokens and cost of one turn, per request family, every provider attempt
 * included: a retried request is counted once per attempt that reported
 * usage; what its sub-agent calls spent is a third family. Also keeps the usage of the loop's current step (its request's
 * attempts since the previous step closed). Holds no usage it has not
 * counted yet: the auxiliary totals appear with the first hook request,
 * the step's with its first attempt (between steps there is none).
 */
export class UsageLedger {
  private readonly main = zeroUsage();
  private auxiliary: ProtocolUsage | undefined = undefined;
  private subAgents: ProtocolUsage | undefined = undefined;
  private step: ProtocolUsage | undefined = undefined;
  private mainAttempts = 0;
  private auxiliaryAttempts = 0;

  /** Counts one provider attempt of `family` as it is sent, also one the turn stops reading before its end. */
  countAttempt(family: RequestFamily): void {
    if (family === "main") this.mainAttempts++;
    else this.auxiliaryAttempts++;
  }

  /** Adds the usage an attempt of `family` reported in its final message. */
  addAttemptUsage(family: RequestFamily, usage: Usage | undefined): void {
    if (family === "main") {
      addUsage(this.main, usage);
      addUsage((this.step ??= zeroUsage()), usage);
    } else {
      addUsage((this.auxiliary ??= zeroUsage()), usage);
    }
  }

  /** Counts what one sub-agent call spent (its turn's `total`, its own sub-agents included). */
  addSubAgentCall(usage: TurnUsage | undefined): void {
    addUsage((this.subAgents ??= zeroUsage()), usage?.total);
  }

  /** The current step's usage; the next step starts from zero. */
  takeStep(): ProtocolUsage {
    const step = this.step ?? zeroUsage();
    this.step = undefined;
    return step;
  }

  /** Output tokens of every request so far, sub-agents' included. */
  outputTokens(): number {
    return this.main.output + (this.auxiliary?.output ?? 0) + (this.subAgents?.output ?? 0);
  }

  /** Cost of every request so far, sub-agents' included. */
  cost(): number {
    return this.main.cost.total + (this.auxiliary?.cost.total ?? 0) + (this.subAgents?.cost.total ?? 0);
  }

  /** The running totals, as a copy the caller may keep. */
  snapshot(): TurnUsage {
    const total = copyUsage(this.main);
    addUsage(total, this.auxiliary);
    addUsage(total, this.subAgents);
    return {
      main: copyUsage(this.main),
      auxiliary: this.auxiliary ? copyUsage(this.auxiliary) : zeroUsage(),
      ...(this.subAgents && { subAgents: copyUsage(this.subAgents) }),
      total,
      attempts: { main: this.mainAttempts, auxiliary: this.auxiliaryAttempts },
    };
  }
}
