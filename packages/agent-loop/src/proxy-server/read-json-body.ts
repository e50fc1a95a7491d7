import { ProxyRequestError, ProxyRequestErrorCode } from "./proxy-request-error.js";

function tooLarge(maxBytes: number): ProxyRequestError {
  return new ProxyRequestError({
    code: ProxyRequestErrorCode.BodyTooLarge,
    message: `Proxy request body exceeds ${maxBytes} bytes`,
  });
}

/**
 * Reads `request`'s body as JSON, never more than `maxBytes` of it: a
 * larger `Content-Length`, or more bytes than announced, stops the read at
 * once with `body_too_large`. An empty body or one that is not JSON gives
 * `invalid_json` with the parser's message. Never returns a partial value.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const announced = Number(request.headers.get("content-length") ?? Number.NaN);
  if (announced > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch((error: unknown) => {
        throw new ProxyRequestError({
          code: ProxyRequestErrorCode.UnreadableBody,
          message: `Proxy request body could not be read: ${describe(error)}`,
          cause: error,
        });
      });
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(concatBytes(chunks, total));
  if (text.trim() === "") {
    throw new ProxyRequestError({
      code: ProxyRequestErrorCode.InvalidJson,
      message: "Proxy request body is empty; expected JSON { model, context, options }",
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProxyRequestError({
      code: ProxyRequestErrorCode.InvalidJson,
      message: `Proxy request body is not JSON: ${describe(error)}`,
      cause: error,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
