/**
 * A host-defined message used by the custom-message scenarios, merged into
 * both implementations' `CustomAgentMessages` so one scenario compiles
 * against either `AgentMessage` type. The default `convertToLlm` of both
 * drops it; scenarios check that.
 */
export interface NoticeMessage {
  role: "notice";
  text: string;
  timestamp: number;
}

declare module "@mariozechner/pi-agent-core" {
  interface CustomAgentMessages {
    notice: NoticeMessage;
  }
}

declare module "@turnkit/agent-loop" {
  interface CustomAgentMessages {
    notice: NoticeMessage;
  }
}

/** A notice message; `timestamp` is fixed because traces never show it. */
export function notice(text: string): NoticeMessage {
  return { role: "notice", text, timestamp: 0 };
}
