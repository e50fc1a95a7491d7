import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitRequestFormParams,
  type ElicitResult,
  ErrorCode,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { MCP_CLIENT_INFO } from "./defaults.js";
import type { NormalisedRoot } from "./roots.js";
import type { McpSettings } from "./validate-mcp-options.js";
import type { ServerRequestCancels } from "./server-request-cancels.js";
import { ServerRequestRefusal } from "./server-request-refusal.js";

/** What the client offers the server beyond tools, and where the server's requests for it are answered. */
export interface ClientFeatures {
  /** The current roots, read at each `roots/list`; `undefined`: no roots capability. */
  readonly roots: (() => readonly NormalisedRoot[]) | undefined;
  /** Serves `sampling/createMessage` (cancelled by `signal`); `undefined`: no sampling capability. */
  readonly sampling?: (params: CreateMessageRequest["params"], signal: AbortSignal) => Promise<CreateMessageResult>;
  /** Serves form-mode `elicitation/create` (cancelled by `signal`); `undefined`: no elicitation capability. */
  readonly elicitation?: (params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;
}

/**
 * The SDK client of one session, with the capabilities the settings call
 * for and their handlers: `roots/list` answered with the current roots,
 * sampling and elicitation requests handed to their brokers (each cancelled
 * when the server cancels it, see `ServerRequestCancels`), log messages
 * forwarded to the host's logger.
 */
export function createClient(settings: McpSettings, features: ClientFeatures, cancels: ServerRequestCancels): Client {
  const capabilities: ClientCapabilities = {};
  if (features.roots) capabilities.roots = { listChanged: true };
  if (features.sampling) capabilities.sampling = {};
  // Form mode only: the SDK refuses URL-mode requests for a client that does not declare them.
  if (features.elicitation) capabilities.elicitation = { form: {} };
  const client = new Client(MCP_CLIENT_INFO, { capabilities });
  const { roots } = features;
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots().map((root) => ({ ...root })) }));
  // The SDK client checks these requests' params itself (the schema's check), as the protocol asks.
  const { sampling } = features;
  if (sampling)
    client.setRequestHandler(requestOf("sampling/createMessage"), (request, extra) =>
      cancels.serve(extra.requestId, extra.signal, (signal) =>
        sampling((request as CreateMessageRequest).params, signal),
      ),
    );
  const { elicitation } = features;
  if (elicitation)
    client.setRequestHandler(requestOf("elicitation/create"), (request, extra) => {
      const { params } = request as ElicitRequest;
      if (!("requestedSchema" in params))
        throw new ServerRequestRefusal(ErrorCode.InvalidParams, "elicitation refused: only form mode is supported");
      return cancels.serve(extra.requestId, extra.signal, (signal) =>
        elicitation(params as ElicitRequestFormParams, signal),
      );
    });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) =>
    forwardLogMessage(settings, notification.params),
  );
  return client;
}

/**
 * Any request of `method`, params unchecked. A handler registered with the
 * request's full schema would answer malformed params with an internal
 * error (-32603) carrying the schema's issue list, because that schema runs
 * before the SDK client's own check; with this one the SDK client's check
 * runs, and a malformed request is answered with Invalid params (-32602)
 * naming what is wrong, as the protocol asks.
 */
function requestOf<M extends string>(method: M) {
  return z.looseObject({ method: z.literal(method) });
}

/**
 * One server log message to the host's logger: `debug` for debug, info and
 * notice, `warn` for warning, `error` above. The text names the server (and
 * its logger); `attrs` carry the level, the logger and the data as sent.
 * A logger that throws is ignored.
 */
export function forwardLogMessage(settings: McpSettings, params: LoggingMessageNotification["params"]): void {
  const { logger } = settings;
  if (!logger) return;
  const method =
    params.level === "warning" ? "warn" : ["debug", "info", "notice"].includes(params.level) ? "debug" : "error";
  const source = params.logger ? ` (${params.logger})` : "";
  const text = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
  try {
    logger[method]?.(`MCP server "${settings.id}"${source}: ${text}`, {
      server: settings.id,
      level: params.level,
      ...(params.logger !== undefined && { logger: params.logger }),
      data: params.data,
    });
  } catch {
    // The host's logger failing is not the server's problem.
  }
}
