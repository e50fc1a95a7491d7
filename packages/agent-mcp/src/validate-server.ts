import { McpConfigError } from "./mcp-config-error.js";
import type { McpOAuthOptions } from "./oauth-options.js";
import type { McpTransportSettings } from "./mcp-options.js";
import { McpOAuthProvider } from "./oauth-provider.js";
import { isList } from "@turnkit/agent-loop/internal";
import {
  isRecord,
  kindOf,
  optionalString,
  parsedUrl,
  quotedText,
  rejectUnknownKeys,
  stringRecord,
} from "./option-checks.js";

/**
 * Validates the `server` option: a stdio command or a Streamable HTTP URL
 * (with its headers and OAuth), as transport settings. An HTTP server with
 * `auth` gets its OAuth provider here, once per extension.
 */
export function validateServer(server: unknown): McpTransportSettings {
  if (!isRecord(server))
    throw new McpConfigError({
      field: "server",
      problem: `must be { command, args? } or { url, headers? }, got ${kindOf(server)}`,
    });
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new McpConfigError({
      field: "server",
      problem: "must have exactly one of command (a stdio server) or url (a Streamable HTTP server)",
    });
  }
  if (hasCommand) {
    rejectUnknownKeys(server, { command: true, args: true, env: true, cwd: true, url: true }, "server.");
    if (typeof server.command !== "string" || server.command.trim() === "") {
      throw new McpConfigError({
        field: "server.command",
        problem: `must be a non-empty string, got ${kindOf(server.command)}`,
      });
    }
    const args = server.args ?? [];
    if (!isList(args))
      throw new McpConfigError({ field: "server.args", problem: `must be an array of strings, got ${kindOf(args)}` });
    args.forEach((arg, index) => {
      if (typeof arg !== "string")
        throw new McpConfigError({ field: `server.args[${index}]`, problem: `must be a string, got ${kindOf(arg)}` });
    });
    if (server.cwd !== undefined && typeof server.cwd !== "string") {
      throw new McpConfigError({ field: "server.cwd", problem: `must be a string, got ${kindOf(server.cwd)}` });
    }
    return {
      kind: "stdio",
      command: server.command,
      args: [...(args as string[])],
      env: stringRecord(server.env, "server.env"),
      cwd: server.cwd,
    };
  }
  rejectUnknownKeys(server, { url: true, headers: true, auth: true, command: true }, "server.");
  const url = parsedUrl(server.url);
  if (!url) {
    throw new McpConfigError({
      field: "server.url",
      problem: `must be an http: or https: URL, got ${quotedText(server.url)}`,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new McpConfigError({
      field: "server.url",
      problem: `must be an http: or https: URL, got ${JSON.stringify(url.href)}`,
    });
  }
  return {
    kind: "http",
    url,
    headers: stringRecord(server.headers, "server.headers"),
    auth: validateOAuth(server.auth),
  };
}

function validateOAuth(auth: unknown): McpOAuthProvider | undefined {
  if (auth === undefined) return undefined;
  if (!isRecord(auth))
    throw new McpConfigError({
      field: "server.auth",
      problem: `must be an object { redirectUrl, authorize, scope?, store? }, got ${kindOf(auth)}`,
    });
  rejectUnknownKeys(auth, { redirectUrl: true, authorize: true, scope: true, store: true }, "server.auth.");
  if (!parsedUrl(auth.redirectUrl)) {
    throw new McpConfigError({
      field: "server.auth.redirectUrl",
      problem: `must be a URL, got ${quotedText(auth.redirectUrl)}`,
    });
  }
  if (typeof auth.authorize !== "function")
    throw new McpConfigError({
      field: "server.auth.authorize",
      problem: "must be a function (authorizationUrl) => code",
    });
  optionalString(auth.scope, "server.auth.scope");
  const { store } = auth;
  const methods = ["clientInformation", "saveClientInformation", "tokens", "saveTokens"] as const;
  if (store !== undefined && (!isRecord(store) || methods.some((name) => typeof store[name] !== "function")))
    throw new McpConfigError({ field: "server.auth.store", problem: `must have the functions ${methods.join(", ")}` });
  return new McpOAuthProvider(auth as unknown as McpOAuthOptions);
}
