import { streamSimple } from "@mariozechner/pi-ai";
import { PROXY_DENY_STATUS, PROXY_MAX_BODY_BYTES } from "../defaults.js";
import type { ProxyRequestBody } from "../proxy/proxy-protocol.js";
import type { StreamFn } from "../types.js";
import {
  bearerToken,
  type ProxyAuthenticate,
  type ProxyAuthentication,
  type ProxyAuthorization,
  type ProxyAuthorize,
} from "./proxy-authorization.js";
import { ProxyRequestError, ProxyRequestErrorCode } from "./proxy-request-error.js";
import { proxyResponseBody } from "./proxy-response-body.js";
import { readJsonBody } from "./read-json-body.js";
import { validateProxyRequestBody } from "./validate-request-body.js";

/** Where an error reported to `onError` came from. */
export type ProxyErrorStage = "authenticate" | "authorize" | "upstream";

/** Options of {@link createStreamProxyHandler}. */
export interface StreamProxyHandlerOptions {
  /**
   * Decides who is asking from the headers, before the body is read; see
   * {@link ProxyAuthenticate}. Default: a request without an
   * `Authorization: Bearer` token is refused 401 unread (`streamProxy`
   * always sends one), any other goes on to `authorize`.
   */
  authenticate?: ProxyAuthenticate;
  /** Resolves each request's model and key from its checked body (and denies it if need be); see {@link ProxyAuthorize}. Required: the handler has no default policy. */
  authorize: ProxyAuthorize;
  /** How the provider is called. Default: pi-ai's `streamSimple` (any registered pi-ai provider, including `registerFauxProvider`). */
  streamFn?: StreamFn;
  /** Largest request body read, in bytes; a larger one is refused 413. Default `PROXY_MAX_BODY_BYTES`. */
  maxBodyBytes?: number;
  /** Told about a throwing `authorize` and a throwing or rejecting `streamFn`, for logging. Its own throws are ignored. */
  onError?: (error: unknown, stage: ProxyErrorStage) => void;
}

/** A web-standard request handler (`fetch`-style servers, Deno, Bun, Hono, or Node through `toNodeListener`). */
export type StreamProxyHandler = (request: Request) => Promise<Response>;

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

function jsonError(status: number, body: { error: string; code: string; field?: string }): Response {
  return Response.json(body, { status });
}

/**
 * The server side of `streamProxy`: a handler for `POST <proxyUrl>/api/stream`
 * (mount it on that path; it does not route) that serves pi's and our
 * `streamProxy` clients from any pi-ai model.
 *
 * Per request: `authenticate` decides who is asking from the headers
 * alone; only then is the body read (at most `maxBodyBytes`) and checked
 * field by field; `authorize` picks the model and key; the provider is
 * called with them; its events stream back as pi's proxy events.
 *
 * Answers, and never rejects:
 * - 200 `text/event-stream`, ending after `done` or `error`. A provider
 *   failure, a stream function that throws or rejects, or a stream that ends
 *   without a final event arrives as the wire `error` event, so the client
 *   records it like any provider error.
 * - 400 / 405 / 413 `{ error, code, field? }` for a bad request (see
 *   `ProxyRequestError`): no provider is called.
 * - the `deny` status with `{ error, code: "denied" }`, from `authenticate`
 *   (the body unread) or `authorize`.
 * - 500 `{ error, code: "authorization_failed" }` if `authenticate` or
 *   `authorize` throws.
 *
 * When the client goes away mid-stream (the response body is cancelled, or
 * the request's `signal` aborts), the provider request is aborted.
 */
export function createStreamProxyHandler(options: StreamProxyHandlerOptions): StreamProxyHandler {
  const streamFn = options.streamFn ?? streamSimple;
  const authenticate = options.authenticate ?? requireBearerToken;
  const maxBodyBytes = options.maxBodyBytes ?? PROXY_MAX_BODY_BYTES;
  const report = (error: unknown, stage: ProxyErrorStage) => {
    try {
      options.onError?.(error, stage);
    } catch {
      // A failing logger must not change the answer.
    }
  };

  return async function handleStreamProxyRequest(request) {
    // Step 1: only POST carries a proxy request.
    if (request.method !== "POST") {
      const error = new ProxyRequestError({
        code: ProxyRequestErrorCode.MethodNotAllowed,
        message: `Proxy requests are POST, not ${request.method}`,
      });
      return jsonError(error.status, { error: error.message, code: error.code });
    }
    // Step 2: who is asking, from the headers alone: nobody's body is never read.
    let authentication: ProxyAuthentication;
    try {
      authentication = await authenticate({ request, authToken: bearerToken(request) });
      if (authentication?.type !== "allow" && authentication?.type !== "deny")
        throw new TypeError('authenticate must return { type: "allow" } or { type: "deny", message }');
    } catch (error) {
      report(error, "authenticate");
      return jsonError(500, { error: "Proxy could not authorise the request", code: "authorization_failed" });
    }
    if (authentication.type === "deny") {
      await request.body?.cancel().catch(() => undefined);
      return jsonError(denyStatus(authentication.status), { error: String(authentication.message), code: "denied" });
    }
    // Step 3: read and check the body.
    let body: ProxyRequestBody;
    try {
      body = validateProxyRequestBody(await readJsonBody(request, maxBodyBytes));
    } catch (error) {
      if (!ProxyRequestError.isInstance(error))
        return jsonError(500, { error: "Proxy could not read the request", code: "internal" });
      return jsonError(error.status, {
        error: error.message,
        code: error.code,
        ...(error.field ? { field: error.field } : {}),
      });
    }
    // Step 4: the host picks the model and key (or denies).
    let decision: ProxyAuthorization;
    try {
      decision = await options.authorize({ request, authToken: bearerToken(request), body });
      if (!isDecision(decision))
        throw new TypeError('authorize must return { type: "allow", model } or { type: "deny", message }');
    } catch (error) {
      report(error, "authorize");
      return jsonError(500, { error: "Proxy could not authorise the request", code: "authorization_failed" });
    }
    if (decision.type === "deny")
      return jsonError(denyStatus(decision.status), { error: String(decision.message), code: "denied" });
    // Step 5: call the provider and relay its events; a client that goes away aborts it.
    const upstream = new AbortController();
    if (request.signal.aborted) upstream.abort();
    request.signal.addEventListener("abort", () => upstream.abort(), { once: true });
    const streamOptions = { ...body.options, ...decision.options, apiKey: decision.apiKey, signal: upstream.signal };
    const responseBody = proxyResponseBody({
      open: () => streamFn(decision.model, body.context, streamOptions),
      upstream,
      onUpstreamError: (error) => report(error, "upstream"),
    });
    return new Response(responseBody, { status: 200, headers: SSE_HEADERS });
  };
}

/** The default `authenticate`: a request must carry a bearer token; what it is worth is `authorize`'s call. */
function requireBearerToken({ authToken }: { authToken: string | undefined }): ProxyAuthentication {
  return authToken
    ? { type: "allow" }
    : { type: "deny", message: "Proxy requests need an Authorization: Bearer <token> header" };
}

function isDecision(value: unknown): value is ProxyAuthorization {
  if (typeof value !== "object" || value === null) return false;
  const decision = value as Partial<Record<string, unknown>>;
  if (decision.type === "deny") return true;
  return decision.type === "allow" && typeof decision.model === "object" && decision.model !== null;
}

function denyStatus(status: number | undefined): number {
  if (status === undefined) return PROXY_DENY_STATUS;
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : 403;
}
