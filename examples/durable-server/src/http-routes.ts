import { serveStatic } from "@hono/node-server/serve-static";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Authenticate } from "./auth.js";
import { mountChatRoutes } from "./chat-routes.js";
import { type RouteDeps, type ServerEnv, notFound, problem } from "./route-context.js";
import { mountSessionRoutes } from "./session-routes.js";
import { mountTurnRoutes } from "./turn-routes.js";

export type { WorkerInfo } from "./route-context.js";

/** Options of {@link createRoutes}. */
export interface RouteOptions extends RouteDeps {
  /** Who is asking; runs first, on headers only. */
  authenticate: Authenticate;
  /** Largest request body, in bytes; larger ones are answered 413 (before they are read when they say their size). */
  maxBodyBytes: number;
  /** A directory of static files served at `/` without login (the web chat's build), if any. */
  webRoot?: string;
}

/**
 * The example's HTTP API. Every request to `/sessions`, `/chat` and
 * `/workers` goes through, in this order: **login** (`authenticate` on
 * the headers; nobody is 401, and no body is read), the **body limit**
 * (413), and **ownership** (a session of another user, or none, is 404 on
 * every route, streams included). Then the turn routes (Turnkit's own SSE),
 * the session routes (turns, history, fork, rewind, labels) and the chat
 * routes (the AI SDK's UI message stream).
 */
export function createRoutes(options: RouteOptions): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const { store } = options;

  // Step 1: who is asking, from the headers alone.
  const login: MiddlewareHandler<ServerEnv> = async (c, next) => {
    const user = await Promise.resolve()
      .then(() => options.authenticate(c.req.raw))
      .catch(() => undefined);
    if (!user) {
      c.header("WWW-Authenticate", 'Bearer realm="durable-server"');
      return problem(c, 401, "unauthenticated", "send Authorization: Bearer <token>");
    }
    c.set("user", user);
    await next();
  };
  // Step 2: a body larger than the limit is refused; one that announces its size is refused unread.
  const limit = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: (c) => problem(c, 413, "body_too_large", `request bodies are limited to ${options.maxBodyBytes} bytes`),
  });
  // Step 3: a session is its owner's; anyone else is told it does not exist.
  const owned: MiddlewareHandler<ServerEnv> = async (c, next) => {
    const owner = await store.ownerOf(c.req.param("session")!);
    const creating = owner === undefined && c.req.method === "POST" && /\/turns$/.test(c.req.path);
    if (owner !== c.get("user").id && !creating) return notFound(c);
    await next();
  };
  for (const path of ["/sessions", "/sessions/*", "/chat", "/chat/*", "/workers"]) app.use(path, login, limit);
  app.use("/sessions/:session/*", owned);
  app.use("/chat/:session/*", owned);

  app.get("/workers", (c) => c.json(options.workers()));
  mountTurnRoutes(app, options);
  mountSessionRoutes(app, options);
  mountChatRoutes(app, options);
  if (options.webRoot) app.use("/*", serveStatic({ root: options.webRoot }));
  return app;
}
