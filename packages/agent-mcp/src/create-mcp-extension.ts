import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type {
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { HiddenContextMessage, TurnInputMessage } from "@turnkit/agent-core";
import type { Extension, ExtensionAPI, TurnContext } from "@turnkit/agent-runtime";
import { McpConfigError } from "./mcp-config-error.js";
import type { McpExtensionOptions, McpRoot } from "./mcp-options.js";
import { normaliseRoots } from "./roots.js";
import type { McpServerStatus, McpToolHints } from "./mcp-status.js";
import { PromptAccess } from "./prompt-access.js";
import { ResourceAccess } from "./resource-access.js";
import { CallsInFlight } from "./calls-in-flight.js";
import { ElicitationBroker } from "./elicitation.js";
import { SamplingBroker } from "./sampling.js";
import { ServerSupervisor } from "./server-supervisor.js";
import { TurnContribution } from "./turn-contribution.js";
import { validateMcpOptions } from "./validate-mcp-options.js";

/**
 * An agent-runtime extension whose tools are an MCP server's tools, plus
 * the handles a host needs to watch and steer the server's lifecycle.
 * One instance belongs to one runtime at a time.
 */
export interface McpExtension extends Extension {
  /** The server's current status (a fresh frozen snapshot on every read). */
  readonly status: McpServerStatus;
  /**
   * The connected SDK client of the current session, for anything this
   * package does not cover (completions, custom requests), so no one needs
   * a second connection; `undefined` unless the server is `ready`. A new
   * client after each restart: do not keep it. Owned by the extension: do
   * not close it or replace its handlers. Requests made on it have none of
   * the extension's supervision (timeouts classified, restarts).
   */
  readonly client: Client | undefined;
  /**
   * Replaces the roots (see the `roots` option) and tells a connected server
   * (`notifications/roots/list_changed`). Throws {@link McpConfigError}
   * (`roots`) for bad roots, or when the extension was created without
   * `roots` (the capability is declared in the handshake).
   */
  setRoots(roots: readonly McpRoot[]): void;
  /**
   * The server's resources (`resources/list`, every page); clears
   * `status.resourcesOutdated`. Like every resource and prompt request it
   * connects a server not connected yet, runs within `callTimeoutMs`, and
   * rejects with an `McpServerError` (`server_unavailable` while the server
   * is down, `server_error` for what the server refuses); an argument the
   * protocol does not take (a URI or name that is not a non-empty string,
   * prompt arguments that are not strings, a listener that is not a
   * function) rejects with {@link McpConfigError} naming it, before
   * anything is sent.
   */
  listResources(): Promise<Resource[]>;
  /**
   * The server's resource templates (`resources/templates/list`, every
   * page): URI patterns (RFC 6570, `file:///{path}`) the host expands and
   * reads with `readResource`.
   */
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  /** `resources/read` of `uri`, as the server answered it. */
  readResource(uri: string): Promise<ReadResourceResult>;
  /**
   * The resource `uri` read and made a hidden message to attach to a turn
   * (`RunTurnInput.beforeUserMessages`): text as text headed by its URI,
   * images as images, other binary data as a line naming it; `source` is
   * the extension id. Which resources a turn gets is the host's choice.
   */
  resourceAsContext(uri: string): Promise<HiddenContextMessage>;
  /**
   * Calls `listener` whenever the server says the resource `uri`, or a
   * sub-resource of it (`uri` followed by `/`), changed, with the URI the
   * server named (`resources/subscribe`, made again after each restart).
   * Resolves to the function that ends it (`resources/unsubscribe` with the
   * last listener).
   */
  subscribeResource(uri: string, listener: (uri: string) => void): Promise<() => Promise<void>>;
  /** The server's prompts (`prompts/list`, every page); clears `status.promptsOutdated`. */
  listPrompts(): Promise<Prompt[]>;
  /** `prompts/get` of `name` with `args`, as the server answered it. */
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  /**
   * The prompt `name` (a slash command the user picked) with `args`,
   * expanded into a user message for `RunTurnInput.userMessage`: its
   * messages' text joined by blank lines, its images as images, embedded
   * text resources as text headed by their URI.
   */
  expandPrompt(name: string, args?: Record<string, string>): Promise<TurnInputMessage>;
  /** Calls `listener` with every new status (as `onStatus` does) until the returned function is called. */
  subscribe(listener: (status: McpServerStatus) => void): () => void;
  /**
   * What the server says about the effects of the tool the model calls
   * `toolName` (the exposed name, as in `toolCall.name`): read-only,
   * destructive, idempotent, open-world, with the protocol's defaults.
   * `undefined` for a tool that is not this server's, including one of its
   * tools that a turn left out because another extension's tool (a clash
   * that appeared mid-session) or a host tool (given to `toRunTurnInput`)
   * keeps the name: the hints always describe the
   * tool the turn runs under that name. Pass the hook's `ctx` to ask about
   * that turn (the tools it got, even if the server's list has changed
   * since); without it, the latest assembled turn's. For permission hooks:
   * `before_tool_call` handlers decide with it whether to ask a person.
   */
  toolHints(toolName: string, ctx?: TurnContext): McpToolHints | undefined;
  /**
   * Connects now rather than at the first turn, e.g. to list the tools at
   * start-up or to fail fast on a wrong command. Resolves to the status once
   * ready; rejects with the `McpServerError` that kept the server from being
   * ready (`connect_failed`, ...). Calling it on a failed server restarts it
   * at once, without the restart policy's wait (counted as a restart); on a
   * server that was given up, the count starts over.
   */
  connect(): Promise<McpServerStatus>;
  /** What `runtime.dispose()` calls: closes the connection and every process or socket it holds. Never rejects. */
  dispose(): Promise<void>;
}

/**
 * Makes an MCP server one entry of a runtime's extension list:
 *
 * ```ts
 * createMcpExtension({ id: "files", server: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } })
 * ```
 *
 * - **Lazy.** Nothing starts when the extension is made or the runtime
 *   built: the first turn assembly in which the extension is enabled (or
 *   `connect()`) starts the process or opens the HTTP session and lists the
 *   tools; that assembly waits for it (at most `connectTimeoutMs` per step).
 * - **Tools.** Each tool of `tools/list` is a `RuntimeTool` with the
 *   server's JSON Schema as `parameters`; read-only tools (`readOnlyHint`)
 *   run in parallel. `notifications/tools/list_changed` makes the next turn
 *   list them again.
 * - **Every call answered.** A call the server fails, a server that exits,
 *   hangs past `callTimeoutMs` or writes garbage: that call gets an error
 *   result naming the server, and the turn goes on. An aborted turn cancels
 *   the call with `notifications/cancelled` and records the loop's result
 *   for a call interrupted after it started.
 * - **Restarts.** A lost connection is re-made at a later turn by the
 *   restart policy (`restart`): the first restart at the next turn, further
 *   ones after a growing wait, at most `maxRestarts` in a row, the count
 *   forgiven after a healthy period. While it is down the tools stay listed
 *   and their calls are answered with `server_unavailable`. A server that
 *   never connected contributes no tools. Neither case fails the turn's
 *   assembly; the turn starts with an `extension_degraded`
 *   `runtime.warning` naming the server and the tools concerned.
 * - **Dispose.** `runtime.dispose()` closes the connection: no child process
 *   or socket outlives it. After that the extension's assembly rejects.
 *
 * Throws {@link McpConfigError} (`invalid_mcp_options`, naming the field)
 * for bad options, synchronously, before anything starts.
 */
export function createMcpExtension(options: McpExtensionOptions): McpExtension {
  const settings = validateMcpOptions(options);
  let roots = settings.roots;
  const calls = new CallsInFlight();
  const sampling = settings.sampling && new SamplingBroker(calls, settings.sampling.maxTokens);
  const elicitation = settings.elicitation && new ElicitationBroker(calls, settings.id, settings.elicitation.timeoutMs);
  const supervisor: ServerSupervisor = new ServerSupervisor(settings, {
    roots: roots && (() => roots ?? []),
    ...(sampling && { sampling: (params, signal) => sampling.createMessage(params, signal) }),
    ...(elicitation && { elicitation: (params, signal) => elicitation.elicit(params, signal) }),
    ...((sampling || elicitation) && { calls }),
    onConnected: () => resources.resubscribe(),
    onResourceUpdated: (uri) => resources.updated(uri),
  });
  const resources = new ResourceAccess(supervisor, settings);
  const prompts = new PromptAccess(supervisor, settings);
  const turns = new TurnContribution(supervisor);
  let runtimeApi: ExtensionAPI | undefined;
  return {
    id: settings.id,
    description: settings.description,
    get status() {
      return supervisor.status;
    },
    get client() {
      return supervisor.client;
    },
    setRoots(next) {
      if (settings.roots === undefined)
        throw new McpConfigError({
          field: "roots",
          where: "setRoots",
          problem: "cannot be set: the extension was created without roots (the capability is declared at connect)",
        });
      roots = normaliseRoots(next, "roots", "setRoots");
      // A server that misses the notification reads the new roots at its next roots/list.
      void supervisor.client?.sendRootsListChanged().catch(() => {});
    },
    subscribe: (listener) => supervisor.subscribe(listener),
    toolHints: (toolName, ctx) => turns.hints(toolName, runtimeApi?.keptTools(ctx) ?? runtimeApi?.keptTools(), ctx),
    listResources: () => resources.list(),
    listResourceTemplates: () => resources.listTemplates(),
    readResource: (uri) => resources.read(uri),
    resourceAsContext: (uri) => resources.asContext(uri),
    subscribeResource: (uri, listener) => resources.subscribe(uri, listener),
    listPrompts: () => prompts.list(),
    getPrompt: (name, args) => prompts.get(name, args),
    expandPrompt: (name, args) => prompts.expand(name, args),
    connect: () => supervisor.connect(),
    dispose: () => supervisor.dispose(),
    init(api) {
      runtimeApi = api;
      supervisor.attach();
      api.registerTool((ctx) => turns.tools(ctx));
      api.registerWarningProvider((ctx) => turns.warning(ctx));
      if (sampling) {
        // Each turn lends its auxiliary stream function to the server's sampling while its calls run.
        api.on("before_llm_call", (event) => void sampling.remember(event));
        api.on("turn_end", (_event, ctx) => sampling.forget(ctx));
      }
      api.onDispose(() => supervisor.dispose());
    },
  };
}
