import { defineSubAgent, type SubAgentDefinition } from "@turnkit/agent-core";
import { type ExtensionIdentity, type OneOrMany, createToolExtension } from "./extension-factories.js";
import { ExtensionConfigError, ExtensionConfigErrorCode, assertOptionsObject } from "./extension-config-error.js";
import type { Extension } from "./extension.js";

/** Options of {@link createSubAgentExtension}. */
export interface CreateSubAgentExtensionOptions extends ExtensionIdentity {
  /** The sub-agents the extension offers, each as a tool named after it. */
  readonly agents: OneOrMany<SubAgentDefinition>;
}

/**
 * An extension that offers sub-agents to every turn it is enabled for:
 * each definition becomes a tool (`defineSubAgent` of
 * `@turnkit/agent-core`) that the model calls with a task and that runs the
 * sub-agent as a child turn of the calling turn. Enable, disable or replace
 * it with a profile like any extension.
 *
 * Throws at once like `defineSubAgent` for an invalid definition, and like
 * `createToolExtension` for a bad id or two sub-agents with one name.
 */
export function createSubAgentExtension(options: CreateSubAgentExtensionOptions): Extension {
  assertOptionsObject(options, "createSubAgentExtension");
  if (options.agents === undefined) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      "createSubAgentExtension: agents is missing (a sub-agent definition or a list of them)",
    );
  }
  const agents = Array.isArray(options.agents) ? options.agents : [options.agents as SubAgentDefinition];
  return createToolExtension({
    id: options.id,
    description: options.description,
    tools: agents.map((agent) => defineSubAgent(agent)),
  });
}
