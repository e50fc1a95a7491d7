import { getApiProvider } from "@mariozechner/pi-ai";

const COST_FIELDS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** How a value reads in a problem: its JSON when short, else its kind. */
function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value !== "object" || value === null) return typeof value === "bigint" ? `${value}n` : String(value);
  return Array.isArray(value) ? "a list" : "an object";
}

function isCountAbove0(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

/**
 * What is wrong with a model a turn sends to, as the rest of a sentence
 * that starts with the field's name (".input must be ..."), or `undefined`
 * when nothing is. `sentByPiAi`: no stream function of the host's, so pi-ai's
 * `streamSimple` sends the requests; its providers then read `id`, `api`
 * (a registered provider), `baseUrl`, `input`, `cost` and `maxTokens`, and
 * fail with the engine's own words when one is missing, so each must be
 * there. With a stream function of the host's only the fields present are
 * checked for their type. The model must be plain data: a getter that
 * throws is the caller's to catch.
 */
export function modelProblem(model: unknown, sentByPiAi: boolean): string | undefined {
  if (typeof model !== "object" || model === null)
    return ` must be a pi-ai Model (getModel(provider, id)), got ${shown(model)}`;
  const fields = model as Record<string, unknown>;
  const required = (name: string) => sentByPiAi || fields[name] !== undefined;
  if (typeof fields.provider !== "string" || fields.provider === "")
    return `.provider must be a non-empty string, got ${shown(fields.provider)}`;
  for (const name of ["id", "api"] as const) {
    if (required(name) && (typeof fields[name] !== "string" || fields[name] === ""))
      return `.${name} must be a non-empty string, got ${shown(fields[name])}`;
  }
  if (sentByPiAi && !getApiProvider(fields.api as string))
    return `.api ${shown(fields.api)} has no pi-ai provider registered (pass llm.streamFn to send it yourself)`;
  if (required("baseUrl") && typeof fields.baseUrl !== "string")
    return `.baseUrl must be a string, got ${shown(fields.baseUrl)}`;
  if (required("input")) {
    const input = fields.input;
    if (!Array.isArray(input) || input.some((kind) => kind !== "text" && kind !== "image"))
      return `.input must be a list of "text" and "image", got ${shown(input)}`;
  }
  if (required("cost")) {
    const cost = fields.cost;
    if (typeof cost !== "object" || cost === null)
      return `.cost must be an object of prices per million tokens, got ${shown(cost)}`;
    const prices = cost as Record<string, unknown>;
    for (const name of COST_FIELDS) {
      const price = prices[name];
      if (typeof price !== "number" || !Number.isFinite(price) || price < 0)
        return `.cost.${name} must be a number of at least 0, got ${shown(price)}`;
    }
  }
  // The option layers send it as a ceiling, and a provider refuses a fractional output limit.
  if (required("maxTokens") && !(Number.isSafeInteger(fields.maxTokens) && (fields.maxTokens as number) > 0))
    return `.maxTokens must be a positive integer, got ${shown(fields.maxTokens)}`;
  if (fields.contextWindow !== undefined && !isCountAbove0(fields.contextWindow))
    return `.contextWindow must be a number above 0, got ${shown(fields.contextWindow)}`;
  if (fields.reasoning !== undefined && typeof fields.reasoning !== "boolean")
    return `.reasoning must be a boolean, got ${shown(fields.reasoning)}`;
  return undefined;
}
