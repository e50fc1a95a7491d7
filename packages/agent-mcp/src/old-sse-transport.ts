import { httpStatusOf } from "./classify-mcp-failure.js";
import { OLD_SSE_PROBE_TIMEOUT_MS } from "./defaults.js";
import { McpServerError } from "./mcp-server-error.js";

/** The statuses an old HTTP+SSE server answers a POST to its URL with: its `/sse` route takes only GET (405), other paths are none (404), or 400. */
const REFUSED_POST = new Set([400, 404, 405]);

/**
 * `failure` (a failed connect), saying that the server speaks the old
 * HTTP+SSE transport, when its `initialize` was refused with 400, 404 or
 * 405 (`refusal`, the classified failure of `initialize`) and a GET of
 * `url` shows it is such a server (see {@link oldSseEndpoint}); else
 * `failure` itself. Never rejects.
 */
export async function explainOldSseServer(
  transport: { readonly url: URL; readonly headers: Readonly<Record<string, string>> },
  refusal: unknown,
  failure: McpServerError,
): Promise<McpServerError> {
  const status = httpStatusOf(refusal);
  if (status === undefined || !REFUSED_POST.has(status)) return failure;
  const endpoint = await oldSseEndpoint(transport.url, transport.headers);
  if (endpoint === undefined) return failure;
  const prefix = `MCP server "${failure.serverId}" `;
  const detail = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
  return new McpServerError({
    code: failure.code,
    serverId: failure.serverId,
    message: `${detail}; it speaks the HTTP+SSE transport of protocol 2024-11-05 (a GET of its URL opened an event stream naming its message endpoint ${JSON.stringify(endpoint.slice(0, 200))}), which this client does not: server.url must be its Streamable HTTP endpoint (often /mcp)`,
    cause: failure.cause,
  });
}

/**
 * Where a server of the HTTP+SSE transport of protocol 2024-11-05 (the
 * one Streamable HTTP replaced) wants its messages, when the server at
 * `url` is one: a GET there opens an event stream whose first event,
 * `endpoint`, names the URL to POST messages to. `undefined` when it is
 * none, or does not tell within {@link OLD_SSE_PROBE_TIMEOUT_MS}. Never
 * rejects.
 *
 * Such servers are still common (FastMCP's and the SDKs' `sse` transport,
 * typically at `/sse`). This client speaks Streamable HTTP only; to such a
 * server its `initialize` POST is refused (405 from the `/sse` route, 404
 * elsewhere), which alone does not tell the host what is wrong.
 */
export async function oldSseEndpoint(url: URL, headers: Readonly<Record<string, string>>): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), OLD_SSE_PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      headers: { ...headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    if (!response.ok || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return undefined;
    return endpointOf(await firstEvent(response));
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    // The stream stays open for as long as it is read: it is not.
    controller.abort();
  }
}

/** The text of a stream's first event (up to its blank line), read as it comes; at most 4 KiB. */
async function firstEvent(response: Response): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of response.body ?? []) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    const end = text.search(/\r?\n\r?\n/);
    if (end !== -1) return text.slice(0, end);
    if (text.length > 4_096) break;
  }
  return text;
}

/** The data of an `endpoint` event; `undefined` for any other event. */
function endpointOf(event: string): string | undefined {
  const lines = event.split(/\r?\n/);
  if (!lines.some((line) => /^event: ?endpoint$/.test(line))) return undefined;
  const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.replace(/^data: ?/, ""));
  return data.length > 0 ? data.join("\n") : undefined;
}
