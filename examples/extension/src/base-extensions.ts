import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import {
  createPromptExtension,
  createReminderExtension,
  createToolExtension,
  type Extension,
} from "@turnkit/agent-runtime";

/** System-prompt text: who the assistant is. */
export const persona = createPromptExtension({
  id: "persona",
  description: "Who the assistant is",
  systemPrompt: "You are the Turnkit docs assistant. Answer in one short paragraph.",
});

/**
 * A reminder computed per turn from the host's `ctx.data`. Silent (no
 * reminder at all) when the host passes no date.
 */
export const dateReminder = createReminderExtension({
  id: "date-reminder",
  description: "Tells the model today's date",
  provide: (ctx) => (typeof ctx.data?.today === "string" ? `Today is ${ctx.data.today}.` : undefined),
});

/** A tool pack with one static tool. The offline profile replaces it. */
export const webSearch = createToolExtension({
  id: "web-search",
  description: "Searches the web",
  tools: defineRuntimeTool({
    name: "web_search",
    description: "Searches the web.",
    parameters: Type.Object({ query: Type.String() }),
    execute: (_ctx, input) => ({ content: [{ type: "text", text: `(web results for ${input.query})` }] }),
  }),
});

/** A style rule some profiles do not want. */
export const emojiStyle = createPromptExtension({
  id: "emoji-style",
  description: "Asks for a cheerful tone",
  systemPrompt: "Use plenty of emoji.",
});

/** The host's base extensions, on unless a profile disables or replaces them, in this order. */
export const baseExtensions: readonly Extension[] = [persona, dateReminder, webSearch, emojiStyle];
