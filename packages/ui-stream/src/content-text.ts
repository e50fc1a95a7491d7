/** The text of a message's content: a string as it is, text blocks joined, anything else (images) left out. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block?.type === "text" ? String(block.text) : "")).join("");
}
