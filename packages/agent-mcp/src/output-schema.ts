import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** Checks one `tools/call` result against the tool's output schema: the problem in words, or `undefined` when it conforms. */
export type OutputCheck = (result: CallToolResult) => string | undefined;

/**
 * Output-schema checks for a tool list, by the server's tool name; tools
 * without an `outputSchema` have none. One validator compiles the whole
 * list. A schema that does not compile gives a check that reports it for
 * every call of that tool (its other tools stay usable).
 *
 * The SDK's `callTool` makes the same checks but reports a failure as a
 * JSON-RPC error (-32602), indistinguishable from the server's own errors;
 * checking here makes it what it is, a protocol error of the server.
 */
export function compileOutputChecks(tools: readonly Tool[]): ReadonlyMap<string, OutputCheck> {
  const validator = new AjvJsonSchemaValidator();
  const checks = new Map<string, OutputCheck>();
  for (const tool of tools) {
    if (tool.outputSchema === undefined) continue;
    let validate: ReturnType<typeof validator.getValidator>;
    try {
      validate = validator.getValidator(tool.outputSchema as Parameters<typeof validator.getValidator>[0]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const problem = `a result that cannot be checked: the tool's output schema does not compile (${reason})`;
      checks.set(tool.name, () => problem);
      continue;
    }
    checks.set(tool.name, (result) => {
      if (result.isError === true) return undefined;
      if (result.structuredContent === undefined) return "no structuredContent, which its output schema requires";
      const outcome = validate(result.structuredContent);
      return outcome.valid
        ? undefined
        : `a result that does not match the tool's output schema: ${outcome.errorMessage}`;
    });
  }
  return checks;
}
