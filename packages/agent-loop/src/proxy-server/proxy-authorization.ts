import type { Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { ProxyRequestBody } from "../proxy/proxy-protocol.js";

/** What the host's `authenticate` hook sees of one proxy request: its headers, never its body. */
export interface ProxyAuthenticationRequest {
  /** The incoming request: read its headers, URL or client address here. Its body has not been read; leave it. */
  request: Request;
  /** The token of an `Authorization: Bearer <token>` header (what `streamProxy`'s `authToken` sends), else `undefined`. */
  authToken: string | undefined;
}

/**
 * The host's answer to who is asking, before the body is read: `allow`
 * goes on to read the body and to `authorize`; `deny` answers `status`
 * (default 401; anything outside 400–599 becomes 403) with
 * `{ "error": message }`, the body unread.
 */
export type ProxyAuthentication = { type: "allow" } | { type: "deny"; status?: number; message: string };

/**
 * The host's login check, on headers alone: called once per request before
 * its body is read, so a caller who is nobody costs no body read (a body
 * can be up to `maxBodyBytes`). If it throws or rejects, the request is
 * answered 500 with a generic message (the error goes to `onError` with
 * stage `authenticate`).
 */
export type ProxyAuthenticate = (
  input: ProxyAuthenticationRequest,
) => ProxyAuthentication | Promise<ProxyAuthentication>;

/** What the host's `authorize` hook sees of one proxy request. */
export interface ProxyAuthorizationRequest {
  /** The incoming request: read its headers, URL or client address here (its body has been read). */
  request: Request;
  /** The token of an `Authorization: Bearer <token>` header (what `streamProxy`'s `authToken` sends), else `undefined`. */
  authToken: string | undefined;
  /**
   * The checked body. `body.model` is what the client asked for and is not
   * to be trusted as is: its `baseUrl` and `headers` say where the request
   * would go. Resolve the model you serve from its `provider` and `id`.
   */
  body: ProxyRequestBody;
}

/**
 * The host's decision about one proxy request:
 *
 * - `allow`: serve it with `model` (the one the provider is called with;
 *   the client still stamps its own model's identity on the messages),
 *   `apiKey` (without one, pi-ai falls back to the provider's environment
 *   variable) and `options`, which replace the client's fields of the same
 *   name (set a field to `undefined` to drop the client's value; `signal`
 *   and `apiKey` are the server's own).
 * - `deny`: answer `status` (default 401; anything outside 400–599 becomes
 *   403) with `{ "error": message }`; pi's client reports
 *   `Proxy error: <message>`. No provider is called.
 */
export type ProxyAuthorization =
  | { type: "allow"; model: Model<any>; apiKey?: string; options?: Omit<SimpleStreamOptions, "signal" | "apiKey"> }
  | { type: "deny"; status?: number; message: string };

/**
 * The host's hook: authenticates the caller and resolves the model and key.
 * Called once per request, after the body was read and checked, before any
 * provider is called. If it throws or rejects, the request is answered 500
 * with a generic message (the error goes to `onError`, never to the client).
 */
export type ProxyAuthorize = (input: ProxyAuthorizationRequest) => ProxyAuthorization | Promise<ProxyAuthorization>;

/** The bearer token of `request`'s `Authorization` header, or `undefined`. */
export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer\s+(.*)$/i.exec(request.headers.get("authorization") ?? "");
  return match ? match[1] : undefined;
}
