import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * Where an OAuth client keeps what it must not lose: the client the
 * authorization server registered, and the tokens. The SDK's types; each
 * method may be async (a file, a keychain, a database).
 */
export interface McpOAuthStore {
  /** The registered client, if it was registered before. */
  clientInformation(): OAuthClientInformationMixed | undefined | Promise<OAuthClientInformationMixed | undefined>;
  /** Keeps the client a registration returned. */
  saveClientInformation(client: OAuthClientInformationMixed): void | Promise<void>;
  /** The current tokens, if any. */
  tokens(): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  /** Keeps new tokens (after an authorization or a refresh). */
  saveTokens(tokens: OAuthTokens): void | Promise<void>;
}

/**
 * OAuth for a Streamable HTTP server, through the SDK's auth provider: on
 * the server's 401 the SDK discovers its authorization server, registers
 * a client (dynamic registration) and prepares an authorization URL with
 * PKCE; the host's `authorize` takes the person there and resolves with
 * the code from the redirect back to `redirectUrl`; the SDK exchanges it
 * for tokens and refreshes them with the refresh token when they expire.
 */
export interface McpOAuthOptions {
  /** Where the authorization server sends the person back (the host's callback URL), registered with the client. */
  readonly redirectUrl: string | URL;
  /**
   * The host's authorization step: lead the person to `authorizationUrl`
   * (open a browser), resolve with the `code` query parameter of the
   * redirect back to `redirectUrl`. A rejection fails the connect
   * (`connect_failed`, its message in the error).
   */
  readonly authorize: (authorizationUrl: URL) => string | Promise<string>;
  /** The scopes to ask for, space-separated; the server's choice when absent. */
  readonly scope?: string;
  /** Where the client and its tokens are kept; in memory for the extension's life when absent. */
  readonly store?: McpOAuthStore;
}
