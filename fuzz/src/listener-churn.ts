import type { Agent, AgentEvent } from "@turnkit/agent-loop";
import type { ListenerChurnSpec } from "./scenario.js";

/**
 * Subscribes a listener that changes the listeners at its `churn.index`-th
 * event, and after it one that notes every event it gets; what each gets
 * goes to `notes`.
 */
export function churnListeners(agent: Agent, churn: ListenerChurnSpec, notes: string[]): void {
  let seen = 0;
  agent.subscribe((event) => {
    if (seen++ !== churn.index) return;
    notes.push(`churn at ${event.type}`);
    switch (churn.kind) {
      case "add":
        agent.subscribe((later) => void notes.push(`added ${later.type}`));
        return;
      case "remove":
        unsubscribeNext();
        return;
      case "move":
        unsubscribeNext();
        agent.subscribe(next);
        return;
    }
  });
  const next = (event: AgentEvent) => void notes.push(`next ${event.type}`);
  const unsubscribeNext = agent.subscribe(next);
}
