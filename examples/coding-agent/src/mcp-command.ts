import { HostError } from "./host-error.js";

/** One `--mcp` value: the command of a stdio MCP server and its arguments. */
export interface McpCommand {
  command: string;
  args: string[];
}

/**
 * Splits a `--mcp` value into words as a shell would, without running a
 * shell: spaces separate words, single or double quotes keep spaces inside
 * one word. Throws `HostError` (`usage`) for an empty value or an unclosed quote.
 */
export function parseMcpCommand(value: string): McpCommand {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (const char of value) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote) throw new HostError("usage", `--mcp has an unclosed ${quote} in "${value}"`);
  if (word !== undefined) words.push(word);
  const [command, ...args] = words;
  if (command === undefined)
    throw new HostError(
      "usage",
      '--mcp expects a command, e.g. --mcp "npx -y @modelcontextprotocol/server-everything"',
    );
  return { command, args };
}
