import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { MCP_CLIENT_INFO } from "./defaults.js";
import type { McpOAuthOptions, McpOAuthStore } from "./oauth-options.js";

/**
 * The SDK's OAuth client provider for one Streamable HTTP server, kept for
 * the extension's life so every connection (and restart) reuses the
 * registered client and its tokens. The SDK does the protocol (discovery,
 * dynamic client registration, PKCE, the code exchange, refreshing an
 * expired token with the refresh token); this class keeps what it saves,
 * in the host's `store` when given, else in memory, and remembers the
 * authorization URL the SDK wants the person sent to, which the connection
 * hands to the host's `authorize` (see {@link authorizeAfterRedirect}).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private memory: { tokens?: OAuthTokens; client?: OAuthClientInformationMixed } = {};
  private verifier: string | undefined;
  private pendingAuthorization: URL | undefined;
  private readonly store: McpOAuthStore | undefined;

  constructor(private readonly options: McpOAuthOptions) {
    this.store = options.store;
  }

  get redirectUrl(): string {
    return String(this.options.redirectUrl);
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: MCP_CLIENT_INFO.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.options.scope !== undefined && { scope: this.options.scope }),
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return this.store ? await this.store.clientInformation() : this.memory.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.store) await this.store.saveClientInformation(client);
    else this.memory.client = client;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return this.store ? await this.store.tokens() : this.memory.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    if (this.store) await this.store.saveTokens(tokens);
    else this.memory.tokens = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.pendingAuthorization = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no authorization is in progress");
    return this.verifier;
  }

  /** The authorization URL the SDK asked the person to be sent to since the last call, if any (taken once). */
  takePendingAuthorization(): URL | undefined {
    const url = this.pendingAuthorization;
    this.pendingAuthorization = undefined;
    return url;
  }

  /** The host's authorization step: the person goes to `url`; resolves with the code of the redirect back. */
  authorize(url: URL): Promise<string> {
    return Promise.resolve(this.options.authorize(url));
  }
}

/**
 * After a connect that failed because the server wants authorization: asks
 * the host to authorize at the URL the SDK prepared and exchanges the code
 * for tokens (`finishAuth`), so the next connect carries them. Resolves
 * `false` when the failure was not that (nothing was asked).
 */
export async function authorizeAfterRedirect(
  provider: McpOAuthProvider,
  finishAuth: (code: string) => Promise<void>,
): Promise<boolean> {
  const url = provider.takePendingAuthorization();
  if (url === undefined) return false;
  const code = await provider.authorize(url);
  await finishAuth(code);
  return true;
}
