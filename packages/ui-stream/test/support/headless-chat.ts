/*
 * The AI SDK's chat core (`AbstractChat`, what `useChat` wraps) with a
 * plain in-memory state, so a test drives a transport exactly as a page
 * would, without React.
 */
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus } from "ai";
import type { TurnkitUIMessage } from "../../src/index.js";

class MemoryChatState implements ChatState<TurnkitUIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  constructor(public messages: TurnkitUIMessage[] = []) {}
  pushMessage = (message: TurnkitUIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: TurnkitUIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A chat as `useChat` runs it, minus React. */
export class HeadlessChat extends AbstractChat<TurnkitUIMessage> {
  constructor(init: Omit<ChatInit<TurnkitUIMessage>, "messages"> & { messages?: TurnkitUIMessage[] }) {
    super({ ...init, state: new MemoryChatState(init.messages) });
  }
}
