import { randomBytes } from "node:crypto";

/** Who made a request, as the server's `authenticate` hook says. */
export interface User {
  /** Stable id of the user; sessions belong to it. */
  id: string;
}

/**
 * The server's login hook: who made `request`, from its headers only (it
 * runs before any body is read), or `undefined` for nobody (answered 401).
 * Plug a real verifier here: a JWT checked with `jose`, a session cookie
 * looked up in your auth library. A throw is answered 401 too.
 */
export type Authenticate = (request: Request) => User | undefined | Promise<User | undefined>;

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function bearerToken(request: Request): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
}

/**
 * An {@link Authenticate} for fixed bearer tokens (`tokens` maps each token
 * to its user id): the local demo's login. Tokens are compared as whole
 * strings; an unknown or missing one is nobody.
 */
export function bearerTokens(tokens: Readonly<Record<string, string>>): Authenticate {
  const users = new Map(Object.entries(tokens));
  return (request) => {
    const token = bearerToken(request);
    const id = token === undefined ? undefined : users.get(token);
    return id === undefined ? undefined : { id };
  };
}

/** A fresh random token per user id (`token → user id`), for a demo run. */
export function demoTokens(userIds: readonly string[]): Record<string, string> {
  return Object.fromEntries(userIds.map((id) => [randomBytes(18).toString("base64url"), id]));
}
