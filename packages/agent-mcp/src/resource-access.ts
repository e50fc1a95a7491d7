import {
  EmptyResultSchema,
  type ReadResourceResult,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { HiddenContextMessage } from "@turnkit/agent-core";
import type { McpConnection } from "./mcp-connection.js";
import { requiredFunction, requiredText } from "./request-arguments.js";
import { resourceContextMessage } from "./resource-context.js";
import { listAll } from "./server-lists.js";
import type { ServerSupervisor } from "./server-supervisor.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** The host's listeners of one URI, and the `resources/subscribe` that made it (settled or on its way). */
interface Subscription {
  readonly listeners: Set<(uri: string) => void>;
  readonly subscribed: Promise<unknown>;
}

/**
 * The server's resources for the host: listed, read, attached to a turn as
 * context, and subscribed to. Each request connects a server that is not
 * connected yet (as `connect()` does), runs within `callTimeoutMs`, and
 * rejects with an `McpServerError` (`server_unavailable` when the server is
 * down). Subscriptions outlive restarts: they are made again on every new
 * connection.
 */
export class ResourceAccess {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly never = new AbortController().signal;

  constructor(
    private readonly supervisor: ServerSupervisor,
    private readonly settings: McpSettings,
  ) {}

  /** Every resource of `resources/list` (all pages); the status's `resourcesOutdated` is cleared. */
  async list(): Promise<Resource[]> {
    return this.supervisor.outdated.fetching("resources", () =>
      this.supervisor.useConnection(
        (connection) => listAll(connection, "resources", this.settings.callTimeoutMs, this.never),
        true,
      ),
    );
  }

  /**
   * Every resource template of `resources/templates/list` (all pages): the
   * URI patterns (`file:///{path}`) the host may expand and read.
   */
  async listTemplates(): Promise<ResourceTemplate[]> {
    return this.supervisor.useConnection(
      (connection) => listAll(connection, "resourceTemplates", this.settings.callTimeoutMs, this.never),
      true,
    );
  }

  /** `resources/read` of `uri`, as the server answered it. Rejects with `McpConfigError` (`uri`) for a URI that is not a non-empty string, before anything is sent. */
  async read(uri: string, where = "readResource"): Promise<ReadResourceResult> {
    requiredText(uri, "uri", where);
    return this.supervisor.useConnection(
      (connection) =>
        this.request(connection, `resources/read "${uri}"`, (signal) =>
          connection.client.request({ method: "resources/read", params: { uri } }, ReadResourceResultSchema, {
            timeout: this.settings.callTimeoutMs,
            signal,
          }),
        ),
      true,
    );
  }

  /** `uri` read and made a hidden message for `RunTurnInput.beforeUserMessages` (see `resourceContextMessage`). */
  async asContext(uri: string): Promise<HiddenContextMessage> {
    return resourceContextMessage(this.settings.id, await this.read(uri, "resourceAsContext"));
  }

  /**
   * Calls `listener` whenever the server says the resource `uri`, or a
   * sub-resource of it, changed (`notifications/resources/updated`), with
   * the URI the server named; the first listener of a URI sends
   * `resources/subscribe`, and every listener of it resolves or rejects
   * with that request's answer (a later one at once, once it came).
   * Resolves, once subscribed, to the function that removes the listener
   * (the last one sends `resources/unsubscribe`, best effort). Rejects when
   * the server refuses or is down (the listener is then not kept); with
   * `McpConfigError` (`uri`, `listener`) for a URI that is not a non-empty
   * string or a listener that is not a function, before anything is sent.
   */
  async subscribe(uri: string, listener: (uri: string) => void): Promise<() => Promise<void>> {
    requiredText(uri, "uri", "subscribeResource");
    requiredFunction(listener, "listener", "subscribeResource");
    let subscription = this.subscriptions.get(uri);
    if (subscription === undefined) {
      const made: Subscription = {
        listeners: new Set(),
        subscribed: this.supervisor.useConnection(
          (connection) => this.send(connection, "resources/subscribe", uri),
          true,
        ),
      };
      made.subscribed.catch(() => {
        if (this.subscriptions.get(uri) === made) this.subscriptions.delete(uri);
      });
      this.subscriptions.set(uri, made);
      subscription = made;
    }
    const { listeners } = subscription;
    listeners.add(listener);
    try {
      await subscription.subscribed;
    } catch (error) {
      listeners.delete(listener);
      throw error;
    }
    return async () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      if (this.subscriptions.get(uri) === subscription) this.subscriptions.delete(uri);
      // Best effort: a server that is down has forgotten the subscription anyway.
      await this.supervisor
        .useConnection((connection) => this.send(connection, "resources/unsubscribe", uri))
        .catch(() => {});
    };
  }

  /**
   * A new connection is ready: the subscriptions are made again on it. A
   * refusal drops nothing (the next connection asks again); it is the
   * status's `lastError`.
   */
  resubscribe(): void {
    for (const uri of this.subscriptions.keys()) {
      void this.supervisor.useConnection((current) => this.send(current, "resources/subscribe", uri)).catch(() => {});
    }
  }

  /**
   * The server says `uri` changed: the listeners of `uri`, and of every
   * subscribed URI that `uri` is a sub-resource of (the protocol lets a
   * server name the part that changed: `file:///project/src/a.ts` for a
   * subscription to `file:///project`), hear it, each once, with `uri`.
   * A listener that throws is ignored.
   */
  updated(uri: string): void {
    const listeners = new Set<(uri: string) => void>();
    for (const [subscribed, subscription] of this.subscriptions) {
      if (isWithin(uri, subscribed)) for (const listener of subscription.listeners) listeners.add(listener);
    }
    for (const listener of listeners) {
      try {
        listener(uri);
      } catch {
        // The listener's failure is its own.
      }
    }
  }

  private send(connection: McpConnection, method: "resources/subscribe" | "resources/unsubscribe", uri: string) {
    return this.request(connection, `${method} "${uri}"`, (signal) =>
      connection.client.request({ method, params: { uri } }, EmptyResultSchema, {
        timeout: this.settings.callTimeoutMs,
        signal,
      }),
    );
  }

  private request<T>(connection: McpConnection, name: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return connection.request(name, this.settings.callTimeoutMs, [this.never], run);
  }
}

/** Whether `uri` is `subscribed` or one of its sub-resources: `subscribed` followed by a `/` (or by anything, when it ends in one). */
function isWithin(uri: string, subscribed: string): boolean {
  if (uri === subscribed) return true;
  const base = subscribed.endsWith("/") ? subscribed : `${subscribed}/`;
  return uri.startsWith(base);
}
