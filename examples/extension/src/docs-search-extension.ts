import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createExtension } from "@turnkit/agent-runtime";

const DOCS: Record<string, string> = {
  enable: "profile.enable turns on optional additions; they follow the base extensions.",
  disable: "profile.disable leaves base extensions out.",
  replace: "profile.replace swaps a base extension for an addition, in the same position.",
};

/**
 * An addition built with `createExtension`: a system-prompt line and a tool
 * *factory*. The factory runs once per assembled turn, so the tool can
 * depend on the turn: here it searches the docs of `ctx.data.docsVersion`.
 */
export const docsSearch = createExtension({
  id: "docs-search",
  description: "Searches the bundled docs instead of the web",
  systemPrompt: "Search the bundled docs with docs_search before answering.",
  tools: (ctx) => {
    const version = typeof ctx.data?.docsVersion === "string" ? ctx.data.docsVersion : "latest";
    return defineRuntimeTool({
      name: "docs_search",
      description: `Searches the Turnkit ${version} docs for a keyword.`,
      parameters: Type.Object({ keyword: Type.String() }),
      executionMode: "parallel",
      execute: (_ctx, input) => {
        const hit = DOCS[input.keyword.toLowerCase()];
        return {
          content: [
            {
              type: "text",
              text: hit ? `[docs ${version}] ${hit}` : `[docs ${version}] nothing on "${input.keyword}"`,
            },
          ],
        };
      },
    });
  },
});
