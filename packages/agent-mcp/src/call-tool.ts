import { type CallToolResult, CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { abortedResult, failedResult, progressText, toRuntimeToolResult } from "./call-result.js";
import type { McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { withoutNullFields } from "./null-fields.js";
import type { HostWaits } from "./calls-in-flight.js";
import type { McpToolCallRequest, McpToolCaller } from "./mcp-tool.js";
import type { OutputCheck } from "./output-schema.js";
import type { McpSettings } from "./validate-mcp-options.js";

/**
 * The protocol's schema of a call's result, reading a null `isError` or
 * `structuredContent`, and a null field of a content block (`annotations`,
 * `_meta`), as an absent one (see `withoutNullFields`).
 */
const CallToolResultWithNullsSchema = z.preprocess((result) => {
  const read = withoutNullFields(result, ["content"]) as { content?: unknown };
  return Array.isArray(read?.content)
    ? { ...read, content: read.content.map((block) => withoutNullFields(block)) }
    : read;
}, CallToolResultSchema);

/** What a tool call needs of the supervisor: its ready connection, and the tool's output-schema check. */
export interface ToolCallServer {
  /** Runs `operation` on the ready connection (see `ServerSupervisor.useConnection`). */
  useConnection<T>(operation: (connection: McpConnection) => Promise<T>): Promise<T>;
  /** The output-schema check of the server's tool `name`, if it has one. */
  outputCheck(name: string): OutputCheck | undefined;
  /** The calls in flight, when sampling or elicitation is allowed (they are served for the calls' turn). */
  calls?: CallTracking;
}

/** Notes the calls in flight, and says when the server waits for the host (see `CallsInFlight`). */
export interface CallTracking extends HostWaits {
  /** A call is in flight until the returned function is called. */
  track(call: McpToolCallRequest): () => void;
}

/**
 * How the server's bound tools run: each call on the supervisor's ready
 * connection (`server_unavailable` at once when it is down), progress as
 * tool updates, the result mapped for the model. A call the turn aborted
 * gets the loop's result for it (`interrupted` once sent, see
 * `abortedResult`); a failure of the server or the connection is an error
 * result whose text is the `McpServerError`'s message, naming the server,
 * and whose `details.error` is its code. Anything else rejects.
 */
export function toolCaller(server: ToolCallServer, settings: McpSettings): McpToolCaller {
  return async (call) => {
    const { name, args, signal, onUpdate } = call;
    const ref = { server: settings.id, tool: name };
    const untrack = server.calls?.track(call);
    const outputCheck = server.outputCheck(name);
    const onProgress = (progress: Progress) =>
      onUpdate({ content: [{ type: "text", text: progressText(progress) }], details: { ...ref, progress } });
    // The SDK sends no request on a signal that has fired already.
    let sent = false;
    try {
      const result = await server.useConnection((connection) => {
        sent = !signal.aborted;
        return callMcpTool(connection, settings, {
          name,
          args,
          signal,
          onProgress,
          outputCheck,
          hostWaits: server.calls,
        });
      });
      return toRuntimeToolResult(result, ref, settings.maxResultChars);
    } catch (error) {
      // A call that was sent got notifications/cancelled from the SDK.
      if (signal.aborted) return abortedResult(ref, sent);
      if (McpServerError.isInstance(error)) return failedResult(ref, error);
      throw error;
    } finally {
      untrack?.();
    }
  };
}

/** One `tools/call`: what to call and how to follow it. */
export interface ToolCall {
  /** The server's name of the tool. */
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The turn's signal for this call: cancels it on the server and rejects with its reason. */
  readonly signal: AbortSignal;
  /** Receives the server's progress notifications while the call runs (never after it settled). */
  readonly onProgress: (progress: Progress) => void;
  /** The tool's output-schema check, when it has an output schema. */
  readonly outputCheck: OutputCheck | undefined;
  /** Says when the server waits for the host (sampling, elicitation): `callTimeoutMs` does not run meanwhile. */
  readonly hostWaits: HostWaits | undefined;
}

/**
 * Calls one tool on `connection`. It ends with `call_timeout` (the server
 * gets `notifications/cancelled`) when the server sends nothing for
 * `callTimeoutMs`: a progress notification restarts that wait, and it does
 * not run while the server waits for the host (a person asked, a model
 * request served for it); and when it is still running after
 * `callMaxDurationMs` in all, whatever happened. Both are on the settings'
 * `clock`. A result that breaks the tool's output schema rejects with
 * `protocol_error`. Rejects with the signal's reason when the turn aborted
 * the call, else with an {@link McpServerError}.
 */
export async function callMcpTool(
  connection: McpConnection,
  settings: McpSettings,
  call: ToolCall,
): Promise<CallToolResult> {
  const request = `tools/call "${call.name}"`;
  const { clock } = settings;
  const limit = (message: string) => {
    const controller = new AbortController();
    const end = () =>
      controller.abort(new McpServerError({ code: McpServerErrorCode.CallTimeout, serverId: settings.id, message }));
    return { signal: controller.signal, end };
  };
  const overall = limit(
    `did not finish ${request} within callMaxDurationMs (${settings.callMaxDurationMs} ms in all, progress notwithstanding); it was cancelled`,
  );
  const idle = limit(`did not answer ${request} within ${settings.callTimeoutMs} ms`);
  const overallTimer = clock.setTimeout(overall.end, settings.callMaxDurationMs);
  let idleTimer: unknown;
  const waitIdle = (waiting: boolean) => {
    clock.clearTimeout(idleTimer);
    if (!waiting) idleTimer = clock.setTimeout(idle.end, settings.callTimeoutMs);
  };
  waitIdle(false);
  let hostWaiting = false;
  const unwatch = call.hostWaits?.watch((waiting) => {
    hostWaiting = waiting;
    waitIdle(waiting);
  });
  // Our own token rather than the SDK's onprogress, which drops progress read together with the answer.
  const progress = connection.progress.open((progress) => {
    waitIdle(hostWaiting);
    call.onProgress(progress);
  });
  try {
    const result = (await connection.request(
      request,
      settings.callTimeoutMs,
      [call.signal, overall.signal, idle.signal],
      (signal) =>
        connection.client.request(
          {
            method: "tools/call",
            params: { name: call.name, arguments: call.args, _meta: { progressToken: progress.token } },
          },
          CallToolResultWithNullsSchema,
          // The limits above end the call; the SDK's own timeout only backs them up (a Node timer holds 2^31 - 1 ms at most).
          { signal, timeout: Math.min(settings.callMaxDurationMs + settings.callTimeoutMs, 2 ** 31 - 1) },
        ),
    )) as CallToolResult;
    const problem = call.outputCheck?.(result);
    if (problem !== undefined) {
      throw new McpServerError({
        code: McpServerErrorCode.ProtocolError,
        serverId: settings.id,
        message: `answered ${request} with ${problem}`,
      });
    }
    return result;
  } finally {
    progress.close();
    unwatch?.();
    clock.clearTimeout(overallTimer);
    clock.clearTimeout(idleTimer);
  }
}
