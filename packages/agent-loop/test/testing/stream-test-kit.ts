import type { AssistantMessageEvent, AssistantMessageEventStream, Context, Model } from "@mariozechner/pi-ai";

/** Reads a stream to its end. */
export async function collectEvents(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The `type` of each event, in order. */
export const typesOf = (events: readonly AssistantMessageEvent[]) => events.map((event) => event.type);

/** A one-message context. */
export function contextWith(text: string): Context {
  return { systemPrompt: "You are a test.", messages: [{ role: "user", content: text, timestamp: 1 }] };
}

/**
 * An abort controller whose signal counts its abort listeners through its
 * own add/removeEventListener, so a test can see what a stream left behind.
 */
export function countingAbortController() {
  const controller = new AbortController();
  const signal = controller.signal;
  const active = new Set<unknown>();
  let added = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: any, options?: any) => {
    if (type === "abort") {
      added += 1;
      active.add(listener);
    }
    add(type, listener, options);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: any, options?: any) => {
    if (type === "abort") active.delete(listener);
    remove(type, listener, options);
  }) as typeof signal.removeEventListener;
  return {
    controller,
    signal,
    /** Listeners added and not removed by a removeEventListener call. */
    activeListeners: () => active.size,
    addedListeners: () => added,
  };
}

/** Lets every queued microtask and promise chain run. */
export const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

export type AnyModel = Model<any>;
