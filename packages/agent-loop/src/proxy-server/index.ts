/**
 * `@turnkit/agent-loop/proxy-server`: the server side of `streamProxy`. A
 * web-standard handler that serves pi's and our `streamProxy` clients from
 * any pi-ai model, with authentication and model choice left to the host,
 * and an adapter for `node:http`.
 */
export {
  createStreamProxyHandler,
  type ProxyErrorStage,
  type StreamProxyHandler,
  type StreamProxyHandlerOptions,
} from "./stream-proxy-handler.js";
export {
  type ProxyAuthenticate,
  type ProxyAuthentication,
  type ProxyAuthenticationRequest,
  type ProxyAuthorization,
  type ProxyAuthorizationRequest,
  type ProxyAuthorize,
} from "./proxy-authorization.js";
export { ProxyRequestError, ProxyRequestErrorCode } from "./proxy-request-error.js";
export { toNodeListener, type NodeRequestListener } from "./node-listener.js";
export { validateProxyRequestBody } from "./validate-request-body.js";
export {
  PROXY_STREAM_PATH,
  type ProxyAssistantMessageEvent,
  type ProxyRequestBody,
  type ProxySerializableStreamOptions,
} from "../proxy/proxy-protocol.js";
export { PROXY_DENY_STATUS, PROXY_MAX_BODY_BYTES } from "../defaults.js";
