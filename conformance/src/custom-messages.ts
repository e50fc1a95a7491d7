import type { CustomAgentMessages as TurnkitCustomAgentMessages } from "@turnkit/agent-loop";

/**
 * A host-defined message used by the custom-message scenarios. The default
 * `convertToLlm` of both loops drops it; scenarios check that.
 */
export interface NoticeMessage {
  role: "notice";
  text: string;
  timestamp: number;
}

declare module "@turnkit/agent-loop" {
  interface CustomAgentMessages {
    notice: NoticeMessage;
  }
}

/**
 * pi's `CustomAgentMessages` extends ours, so in this program both loops know
 * the same host-defined messages: `notice` above, and whatever other
 * workspace packages merge into ours (e.g. agent-core's `hidden`). A host
 * declares its messages for the loop it uses; without this, one scenario
 * could not be typed against both loops at once.
 */
declare module "@mariozechner/pi-agent-core" {
  interface CustomAgentMessages extends TurnkitCustomAgentMessages {}
}

/** A notice message; `timestamp` is fixed because traces never show it. */
export function notice(text: string): NoticeMessage {
  return { role: "notice", text, timestamp: 0 };
}
