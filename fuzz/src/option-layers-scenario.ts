/**
 * Generated request options through agent-core's option layers
 * (`composeStreamFn`): a host cap (valid, or of a kind it refuses), the
 * turn's `maxTokens` (positive, or one that is ignored), the request's own
 * `maxTokens` (positive, zero, negative, `NaN`, a fraction), the model's
 * limit, `cacheRetention` and `timeoutMs` set by the turn, the request or
 * neither, and headers of the turn and of the request whose names repeat
 * in other letter cases. The options the stream function receives are
 * compared with the rules written plainly: the request's own value wins
 * wherever the request sets one (a header name in any case), the host cap
 * is a ceiling (the smallest positive of the cap, the value so far and the
 * model's limit), so is the model's limit without a cap, a request's value
 * that is no positive integer is not sent (the turn's fills it), a refused cap or turn `maxTokens` (not a positive safe
 * integer) throws `TurnkitConfigError` naming it at once.
 */
import { collectStream, createScriptedModel } from "@turnkit/agent-loop/testing";
import { TurnkitConfigError, composeStreamFn } from "@turnkit/agent-core";
import fc from "fast-check";

/** One request through the layers. */
export interface OptionLayersCase {
  hostCap: number | undefined;
  turnMaxTokens: number | undefined;
  requestMaxTokens: number | undefined;
  modelMaxTokens: number;
  turnCache: "none" | "short" | "long" | undefined;
  requestCache: "short" | undefined;
  requestTimeoutMs: number | undefined;
  turnHeaders: Record<string, string> | undefined;
  requestHeaders: Record<string, string> | undefined;
}

/** Header names that are one name in several spellings, and one of their own. */
const HEADER_NAMES = ["x-team", "X-Team", "X-TEAM", "authorization", "Authorization", "x-solo"];

const headersArbitrary = (side: string) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc
        .subarray(HEADER_NAMES, { maxLength: 4 })
        .map((names) => Object.fromEntries(names.map((name) => [name, `${side}:${name}`]))),
    },
  );

export const optionLayersArbitrary: fc.Arbitrary<OptionLayersCase> = fc.record({
  hostCap: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constantFrom(1, 100, 4096) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, Number.NaN, 2 ** 53) },
  ),
  turnMaxTokens: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(undefined, 1, 300, 100_000) },
    { weight: 1, arbitrary: fc.constantFrom(0, -5, 1.5, 1e21) },
  ),
  requestMaxTokens: fc.constantFrom(undefined, 0, -1, Number.NaN, 0.5, 50, 5000),
  modelMaxTokens: fc.constantFrom(0, 100, 8192, 300.5),
  turnCache: fc.constantFrom(undefined, "none" as const, "short" as const, "long" as const),
  requestCache: fc.constantFrom(undefined, "short" as const),
  requestTimeoutMs: fc.constantFrom(undefined, 5000),
  turnHeaders: headersArbitrary("turn"),
  requestHeaders: headersArbitrary("request"),
});

const REQUEST_TIMEOUT_MS = 20 * 60 * 1000;

/** A token count the turn's options take: a positive safe integer. */
const validCount = (value: number) => Number.isSafeInteger(value) && value > 0;

/** `value` when it is a token count, else `undefined`. */
const counted = (value: number | undefined) => (value !== undefined && validCount(value) ? value : undefined);

const positive = (value: number | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value) && value > 0;

/** What the stream function is sent, by the rules; `refused` when the layers must not be built. */
export function expectedOptions(scenario: OptionLayersCase): { refused: string[] } | Record<string, unknown> {
  const { hostCap } = scenario;
  const refused = [
    ...(scenario.turnMaxTokens !== undefined && !validCount(scenario.turnMaxTokens) ? ["llm.maxTokens"] : []),
    ...(hostCap !== undefined && !validCount(hostCap) ? ["llm.hostMaxOutputTokens"] : []),
  ];
  if (refused.length > 0) return { refused };
  // A request's own value that is no token count is not sent; the turn's fills its place.
  let maxTokens: number | undefined = counted(scenario.requestMaxTokens);
  if (maxTokens === undefined && positive(scenario.turnMaxTokens)) maxTokens = scenario.turnMaxTokens;
  const modelLimit = counted(scenario.modelMaxTokens);
  if (hostCap !== undefined) maxTokens = Math.min(...[hostCap, maxTokens, modelLimit].filter(positive));
  // The model's own limit is a ceiling too, cap or none.
  if (maxTokens !== undefined && modelLimit !== undefined) maxTokens = Math.min(maxTokens, modelLimit);
  let headers = scenario.requestHeaders;
  const turnHeaders = scenario.turnHeaders ?? {};
  if (Object.keys(turnHeaders).length > 0) {
    const own = new Set(Object.keys(headers ?? {}).map((name) => name.toLowerCase()));
    headers = {
      ...Object.fromEntries(Object.entries(turnHeaders).filter(([name]) => !own.has(name.toLowerCase()))),
      ...headers,
    };
  }
  const cacheRetention = scenario.requestCache ?? scenario.turnCache;
  return {
    timeoutMs: scenario.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    ...(maxTokens !== undefined && { maxTokens }),
    ...(cacheRetention !== undefined && { cacheRetention }),
    ...(headers !== undefined && { headers }),
  };
}

/** Sends one request through the layers and compares what the stream function got with {@link expectedOptions}. */
export async function checkOptionLayers(scenario: OptionLayersCase): Promise<void> {
  const expected = expectedOptions(scenario);
  const scripted = createScriptedModel(["ok"], { model: { maxTokens: scenario.modelMaxTokens } });
  let layered: ReturnType<typeof composeStreamFn>;
  try {
    layered = composeStreamFn({
      model: scripted.model,
      streamFn: scripted.streamFn,
      ...(scenario.hostCap !== undefined && { hostMaxOutputTokens: scenario.hostCap }),
      ...(scenario.turnMaxTokens !== undefined && { maxTokens: scenario.turnMaxTokens }),
      ...(scenario.turnCache !== undefined && { cacheRetention: scenario.turnCache }),
      ...(scenario.turnHeaders !== undefined && { headers: scenario.turnHeaders }),
    });
  } catch (error) {
    const fields = "refused" in expected ? (expected.refused as string[]) : [];
    // A refusal names a field the rules refuse (the first one checked, when both are).
    if (TurnkitConfigError.isInstance(error) && fields.some((field) => error.message.includes(`${field} must be`)))
      return;
    throw new Error(`option layers: building them threw ${String(error)}; the rules say ${JSON.stringify(expected)}`);
  }
  if ("refused" in expected)
    throw new Error(`option layers: ${JSON.stringify(expected.refused)} accepted (${JSON.stringify(scenario)})`);
  await collectStream(
    await layered(
      scripted.model,
      { messages: [] },
      {
        ...(scenario.requestMaxTokens !== undefined && { maxTokens: scenario.requestMaxTokens }),
        ...(scenario.requestCache !== undefined && { cacheRetention: scenario.requestCache }),
        ...(scenario.requestTimeoutMs !== undefined && { timeoutMs: scenario.requestTimeoutMs }),
        ...(scenario.requestHeaders !== undefined && { headers: scenario.requestHeaders }),
      },
    ),
  );
  const sent = scripted.requests[0]?.options ?? {};
  const seen: Record<string, unknown> = {};
  for (const key of ["timeoutMs", "maxTokens", "cacheRetention", "headers"] as const)
    if (sent[key] !== undefined) seen[key] = sent[key];
  const sorted = (value: Record<string, unknown>) =>
    JSON.stringify(value, (_key, inner) =>
      inner && typeof inner === "object" && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
        : inner,
    );
  if (sorted(seen) !== sorted(expected))
    throw new Error(`option layers: the request was sent ${sorted(seen)}; the rules say ${sorted(expected)}`);
}
