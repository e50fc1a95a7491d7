import { type GetPromptResult, GetPromptResultSchema, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { TurnInputMessage } from "@turnkit/agent-core";
import { promptUserMessage } from "./prompt-message.js";
import { promptArguments, requiredText } from "./request-arguments.js";
import { listAll } from "./server-lists.js";
import type { ServerSupervisor } from "./server-supervisor.js";
import type { McpSettings } from "./validate-mcp-options.js";

/**
 * The server's prompts for the host: listed, fetched with arguments, and
 * expanded into a turn's user message. Each request connects a server that
 * is not connected yet (as `connect()` does), runs within `callTimeoutMs`,
 * and rejects with an `McpServerError` (`server_error` for a prompt or
 * arguments the server refuses, `server_unavailable` when it is down).
 */
export class PromptAccess {
  private readonly never = new AbortController().signal;

  constructor(
    private readonly supervisor: ServerSupervisor,
    private readonly settings: McpSettings,
  ) {}

  /** Every prompt of `prompts/list` (all pages); the status's `promptsOutdated` is cleared. */
  async list(): Promise<Prompt[]> {
    return this.supervisor.outdated.fetching("prompts", () =>
      this.supervisor.useConnection(
        (connection) => listAll(connection, "prompts", this.settings.callTimeoutMs, this.never),
        true,
      ),
    );
  }

  /**
   * `prompts/get` of `name` with `args`, as the server answered it.
   * Rejects with `McpConfigError` (`name`, `args`, `args.<key>`) for a name
   * that is not a non-empty string or arguments that are not an object of
   * strings, before anything is sent.
   */
  async get(name: string, args?: Record<string, string>, where = "getPrompt"): Promise<GetPromptResult> {
    requiredText(name, "name", where);
    const checked = promptArguments(args, where);
    return this.supervisor.useConnection(
      (connection) =>
        connection.request(`prompts/get "${name}"`, this.settings.callTimeoutMs, [this.never], (signal) =>
          connection.client.request(
            { method: "prompts/get", params: { name, arguments: checked } },
            GetPromptResultSchema,
            { timeout: this.settings.callTimeoutMs, signal },
          ),
        ),
      true,
    );
  }

  /** The prompt `name` with `args`, expanded into a user message for `RunTurnInput.userMessage` (see `promptUserMessage`). */
  async expand(name: string, args?: Record<string, string>): Promise<TurnInputMessage> {
    return promptUserMessage(await this.get(name, args, "expandPrompt"));
  }
}
