/**
 * What a generated MCP server answers a `tools/call` with (the
 * `mcp-server` property): content of every kind the protocol has, with odd
 * values (image types models do not take, empty or broken base64, huge
 * text, resources without a URI), kinds it does not have, structured
 * content, `isError` that is no boolean. Mostly answers the protocol
 * takes, now and then one broken field.
 */
import fc from "fast-check";

/** Words the generated texts are made of: never an engine's words, so any such text in a result is ours. */
const WORD = fc.constantFrom("alpha", "beta", "ünïcödé", "名前", "😀", "", " ", "\n", "<b>", "%s", "{}", "null");
export const generatedText = fc.array(WORD, { maxLength: 6 }).map((words) => words.join(" "));

const base64 = fc.constantFrom(
  "iVBORw0KGgo=",
  "",
  "not base64!",
  "/9j/4AAQ",
  Buffer.from("a".repeat(200)).toString("base64"),
);

/** Base64 image bytes: a PNG, JPEG, GIF and WebP start, nothing, and bytes that are no image. */
const imageData = fc.constantFrom(
  "iVBORw0KGgo=",
  "/9j/4AAQ",
  Buffer.from("GIF89a\x01\x00", "latin1").toString("base64"),
  Buffer.from("RIFF\x1a\x00\x00\x00WEBPVP8L", "latin1").toString("base64"),
  "",
  Buffer.from("not an image").toString("base64"),
);

/** One item of a resource's `contents` (text, a blob, or an item missing or breaking a field). */
export const resourceContents = fc.oneof(
  fc.record({
    uri: fc.constantFrom("mem://a", "file:///x.txt", "urn:x"),
    mimeType: fc.constantFrom("text/plain", undefined),
    text: generatedText,
  }),
  fc.record({
    uri: fc.constantFrom("mem://b", "file:///x.bin"),
    mimeType: fc.constantFrom("image/png", "application/octet-stream", "image/x-odd", undefined),
    blob: base64,
  }),
  fc.constantFrom({ uri: "mem://c" }, { text: "no uri" }, { uri: "mem://d", text: 5 }),
);

/** A content block the protocol takes. */
function validBlock(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: generatedText.map((value) => ({ type: "text", text: value })) },
    fc.record({
      type: fc.constant("image"),
      data: imageData,
      mimeType: fc.constantFrom("image/png", "image/jpeg", "image/svg+xml", "IMAGE/PNG", "image/x-odd", ""),
    }),
    fc.record({
      type: fc.constant("audio"),
      data: fc.constant("UklGRg=="),
      mimeType: fc.constantFrom("audio/wav", ""),
    }),
    fc.record({
      type: fc.constant("resource"),
      resource: fc.oneof(
        fc.record({ uri: fc.constantFrom("mem://a", "file:///x.txt"), text: generatedText }),
        fc.record({
          uri: fc.constantFrom("mem://b", "file:///x.bin"),
          mimeType: fc.constantFrom("image/png", "application/octet-stream", "image/x-odd", ""),
          blob: imageData,
        }),
      ),
    }),
    fc.record(
      {
        type: fc.constant("resource_link"),
        uri: fc.constant("mem://linked"),
        name: generatedText,
        description: generatedText,
      },
      { requiredKeys: ["type", "uri", "name"] },
    ),
    fc.nat({ max: 3 }).map((size) => ({ type: "text", text: "z".repeat([5_000, 70_000, 300_000, 1][size]!) })),
  );
}

/** One content block: every kind the protocol has, odd values in them, and kinds it does not have. */
export const contentBlock: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: generatedText.map((value) => ({ type: "text", text: value })) },
  fc.record({
    type: fc.constant("image"),
    data: base64,
    mimeType: fc.constantFrom(
      "image/png",
      "image/jpeg",
      "image/webp",
      "image/gif",
      "image/svg+xml",
      "IMAGE/PNG",
      "image/x-odd",
      "",
    ),
  }),
  fc.record({ type: fc.constant("audio"), data: base64, mimeType: fc.constantFrom("audio/wav", "audio/x-odd") }),
  fc.record({ type: fc.constant("resource"), resource: resourceContents }),
  fc.record(
    {
      type: fc.constant("resource_link"),
      uri: fc.constantFrom("mem://linked", "https://example.com/x"),
      name: generatedText,
      description: generatedText,
      mimeType: fc.constant("text/plain"),
    },
    { requiredKeys: ["type", "uri", "name"] },
  ),
  fc.constantFrom(
    { type: "video", url: "mem://v" },
    { type: "text" },
    { type: "text", text: 5 },
    { type: "image", data: "iVBORw0KGgo=" },
    { text: "no type" },
    null,
    "text",
  ),
  fc.nat({ max: 3 }).map((size) => ({ type: "text", text: "z".repeat([5_000, 70_000, 300_000, 1][size]!) })),
);

const structured: fc.Arbitrary<unknown> = fc.constantFrom(
  { n: 1 },
  { n: "one" },
  { s: "x", extra: true },
  {},
  [1],
  "s",
  null,
);

/** A call's answer as JSON: mostly one the protocol takes, now and then one field broken. */
const validResult: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    content: fc.array(validBlock(), { maxLength: 4 }),
    structuredContent: fc.constantFrom({ n: 1 }, { s: "x" }, { n: "one" }, {}),
    isError: fc.boolean(),
  },
  { requiredKeys: [] },
);

const brokenResult: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      content: fc.oneof(
        { weight: 5, arbitrary: fc.array(contentBlock, { maxLength: 4 }) },
        fc.constantFrom(null, "text", {}),
      ),
      structuredContent: structured,
      isError: fc.oneof({ weight: 3, arbitrary: fc.boolean() }, fc.constantFrom("yes", 1)),
      _meta: fc.constant({ "x.example/k": 1 }),
    },
    { requiredKeys: [] },
  )
  .map((result) => result as Record<string, unknown>);

/** A call's answer as JSON, sent as it is. */
export const callResultArbitrary = fc.oneof({ weight: 3, arbitrary: validResult }, brokenResult);

/**
 * A result the protocol takes, written as a server in Python writes one:
 * every optional field present, the absent ones as null (`isError`,
 * `structuredContent`, the result's `_meta`, a text block's `annotations`
 * and `_meta`). The case's server sends it with `"error": null` beside it.
 */
export const resultWithNulls: fc.Arbitrary<Record<string, unknown>> = fc
  .array(generatedText, { minLength: 1, maxLength: 3 })
  .map((texts) => ({
    content: texts.map((value) => ({ type: "text", text: value, annotations: null, _meta: null })),
    isError: null,
    structuredContent: null,
    _meta: null,
  }));
