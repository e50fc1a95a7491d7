/**
 * The public surface of `@turnkit/agent-loop/proxy-server`: a name added,
 * removed or retyped fails this test until the lists below and the README
 * say so.
 */
import { describePublicSurface } from "../../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-loop/proxy-server",
  entry: new URL("../../src/proxy-server/index.ts", import.meta.url),
  readme: new URL("../../README.md", import.meta.url),
  readmeHeading: "### `@turnkit/agent-loop/proxy-server`",
  values: [
    "PROXY_DENY_STATUS",
    "PROXY_MAX_BODY_BYTES",
    "PROXY_STREAM_PATH",
    "ProxyRequestError",
    "ProxyRequestErrorCode",
    "createStreamProxyHandler",
    "toNodeListener",
    "validateProxyRequestBody",
  ],
  types: [
    "NodeRequestListener",
    "ProxyAssistantMessageEvent",
    "ProxyAuthenticate",
    "ProxyAuthentication",
    "ProxyAuthenticationRequest",
    "ProxyAuthorization",
    "ProxyAuthorizationRequest",
    "ProxyAuthorize",
    "ProxyErrorStage",
    "ProxyRequestBody",
    "ProxyRequestError",
    "ProxyRequestErrorCode",
    "ProxySerializableStreamOptions",
    "StreamProxyHandler",
    "StreamProxyHandlerOptions",
  ],
});
