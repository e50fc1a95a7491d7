// Why this file is long: the history generator, the turn it feeds and the plain rules its requests are held to are one case; split, the rules would be read apart from the shapes they judge.
/**
 * Histories as stores keep them, handed to a `PiTurnRunner` turn: tool
 * results missing, repeated, placed after a user message, answering an
 * earlier response's call or one never made; `error` and `aborted`
 * responses with calls and their results; hidden, host and batched user
 * messages; images everywhere (user messages, tool results, the turn's
 * own user message and the images its tools answer with) of every size
 * (1 px, 7 px thin, exactly 8 px, large, unreadable data, empty data), more
 * than a request may carry. Each request the model gets is held to the
 * rules written plainly: every tool result answers a call of the response
 * right before it, once (what providers accept), and exactly those results
 * of the history that do so are there; each image is where its message put
 * it, as itself or as a placeholder naming it, the tiny ones and those
 * whose bytes are no image never sent, and of the rest exactly the newest 20;
 * each tool is told its turn and the assistant message id its call's
 * chunks carry; the caller's history is never
 * changed; the turn completes.
 */
import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assistantMessage,
  createScriptedModel,
  response,
  toolCall,
  toolResultMessage,
} from "@turnkit/agent-loop/testing";
import { PiTurnRunner, TurnkitConfigError, defineRuntimeTool, type RunTurnInput } from "@turnkit/agent-core";
import type { RuntimeEvent } from "@turnkit/protocol";
import fc from "fast-check";
import { checkEventsPersistable } from "./invariants/events-persistable.js";
import { oneIn } from "./response-arbitraries.js";

/** An image's header: its size decides whether a request may carry it. */
type ImageKind = "pixel" | "thin" | "edge" | "large" | "unreadable" | "empty";

/** The images a request keeps at most (the agent-core README's default, written out). */
const MAX_IMAGES = 20;
/** Smaller than this in either dimension, an image is never sent. */
const MIN_IMAGE_PX = 8;

const SIZES: Record<ImageKind, [number, number] | undefined> = {
  pixel: [1, 1],
  thin: [64, 7],
  edge: [8, 8],
  large: [640, 480],
  unreadable: undefined,
  empty: undefined,
};

type ResultSpec = { present: boolean; images: ImageKind[]; twice: boolean };

/** One entry of a generated history. */
type HistoryEntry =
  | { kind: "user"; images: ImageKind[]; batch: boolean }
  | { kind: "hidden" }
  | { kind: "host" }
  /** A user or hidden message that says nothing (whitespace only, no image): never sent, as if it were not there. */
  | { kind: "blank"; hidden: boolean; batch: boolean; text: string }
  | { kind: "response"; stop: "toolUse" | "stop" | "error" | "aborted"; results: ResultSpec[]; sameIds: boolean }
  /** A result for an earlier call (`pick` chooses which), or for a call never made when there is none. */
  | { kind: "strayResult"; pick: number };

/** A generated case. */
export interface OddHistoryCase {
  history: HistoryEntry[];
  /** Images of the turn's own user message. */
  userImages: ImageKind[];
  /** Per model response before the last, the images each of its calls answers with. */
  rounds: ImageKind[][][];
  /** A hook the host installs (the runner then looks at every message again on every request). */
  withHook: boolean;
  /** The turn continues the history (`startMode: "continue"`) instead of sending a message of its own. */
  continues: boolean;
}

const imageKind = fc.oneof(
  { weight: 4, arbitrary: fc.constant<ImageKind>("large") },
  { weight: 1, arbitrary: fc.constantFrom<ImageKind>("pixel", "thin", "edge", "unreadable", "empty") },
);
const images = (max: number) => fc.array(imageKind, { maxLength: max });

const entryArbitrary: fc.Arbitrary<HistoryEntry> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("user" as const), images: images(3), batch: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constantFrom<HistoryEntry>({ kind: "hidden" }, { kind: "host" }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("blank" as const),
      hidden: fc.boolean(),
      batch: fc.boolean(),
      text: fc.constantFrom("", " ", "\n\t ", "\u00a0"),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("response" as const),
      stop: fc.oneof(
        { weight: 6, arbitrary: fc.constant("toolUse" as const) },
        { weight: 1, arbitrary: fc.constantFrom("stop" as const, "error" as const, "aborted" as const) },
      ),
      results: fc.array(
        fc.record({
          present: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
          images: images(2),
          twice: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
        { maxLength: 3 },
      ),
      // Every call of the response under one id, as some OpenAI-compatible servers name each call call_0.
      sameIds: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("strayResult" as const), pick: fc.nat(20) }) },
);

/** Cases: up to 14 history entries, up to 3 images of the turn's own, one or two rounds of up to 3 calls with up to 8 images each. */
export const oddHistoryArbitrary: fc.Arbitrary<OddHistoryCase> = fc.record({
  history: fc.array(entryArbitrary, { maxLength: 14 }),
  userImages: images(3),
  rounds: fc.array(fc.array(images(8), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
  withHook: fc.boolean(),
  continues: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/** One image as a message carries it: a PNG header of its size (or data no reader knows), made unique by trailing bytes. */
interface MadeImage {
  name: string;
  kind: ImageKind;
  block: ImageContent;
}

function makeImage(name: string, kind: ImageKind): MadeImage {
  const size = SIZES[kind];
  let data: string;
  if (kind === "empty") data = "";
  else if (!size) data = Buffer.from(`no image at all: ${name}`).toString("base64");
  else {
    const bytes = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
    bytes.writeUInt32BE(13, 8);
    bytes.write("IHDR", 12, "latin1");
    bytes.writeUInt32BE(size[0], 16);
    bytes.writeUInt32BE(size[1], 20);
    bytes.writeUInt8(8, 24);
    bytes.writeUInt8(6, 25);
    data = Buffer.concat([bytes, Buffer.from(name)]).toString("base64");
  }
  return { name, kind, block: { type: "image", data, mimeType: "image/png", fileName: name } as ImageContent };
}

function remember(made: Made, image: MadeImage): void {
  if (image.block.data !== "") made.byData.set(image.block.data, image);
  made.byName.set(image.name, image);
}

/** What the case's messages carry, by the marker text each message starts with. */
interface Made {
  history: AgentMessage[];
  /** Marker of each message (user, hidden, tool result) to the images it carries, in order. */
  imagesOf: Map<string, MadeImage[]>;
  /** Image data and file name to the image. */
  byData: Map<string, MadeImage>;
  byName: Map<string, MadeImage>;
  /** Markers of the history's tool results a provider takes (the first result of a call, right after its response). */
  keptResults: Set<string>;
  /** Markers of every tool result of the history. */
  allResults: Set<string>;
  /** The role of the last message a model is sent of the history (`none`: it sends none). */
  viewTail: "none" | "user" | "assistant" | "toolResult";
  /** A turn may continue the history: a model is sent a user message or a tool result last. */
  continuable: boolean;
}

/** Builds the history, and says plainly which of its results a request keeps. */
function buildHistory(scenario: OddHistoryCase): Made {
  const made: Made = {
    history: [],
    imagesOf: new Map(),
    byData: new Map(),
    byName: new Map(),
    keptResults: new Set(),
    allResults: new Set(),
    viewTail: "none",
    continuable: false,
  };
  let images = 0;
  let markers = 0;
  const imagesFor = (marker: string, kinds: readonly ImageKind[]) => {
    const list = kinds.map((kind) => makeImage(`h${++images}.png`, kind));
    for (const image of list) remember(made, image);
    made.imagesOf.set(marker, list);
    return list.map((image) => image.block);
  };
  const calls: string[] = [];
  // The rules, plainly: results answer the calls of the last kept response, each once, until a user message (calls
  // named alike are answered one by one).
  let open: string[] = [];
  const result = (id: string, kinds: readonly ImageKind[]) => {
    const marker = `«r${++markers}»`;
    made.allResults.add(marker);
    if (open.includes(id)) {
      open.splice(open.indexOf(id), 1);
      made.keptResults.add(marker);
      made.viewTail = "toolResult";
    }
    const content: (TextContent | ImageContent)[] = [{ type: "text", text: marker }, ...imagesFor(marker, kinds)];
    made.history.push(toolResultMessage(id, "shot", content, { timestamp: markers }));
  };
  let batch = 0;
  for (const entry of scenario.history) {
    switch (entry.kind) {
      case "user": {
        const marker = `«u${++markers}»`;
        const content = [{ type: "text" as const, text: marker }, ...imagesFor(marker, entry.images)];
        const message = { role: "user", content, timestamp: markers } as AgentMessage;
        if (entry.batch) Object.assign(message, { batchId: `batch${batch}` });
        else batch++;
        made.history.push(message);
        open = [];
        made.viewTail = "user";
        break;
      }
      case "hidden": {
        const marker = `«u${++markers}»`;
        made.imagesOf.set(marker, []);
        made.history.push({ role: "hidden", content: marker, timestamp: markers } as AgentMessage);
        open = [];
        made.viewTail = "user";
        break;
      }
      case "host":
        made.history.push({ role: "host", kind: "note", timestamp: ++markers } as AgentMessage);
        break;
      case "blank": {
        // Left out of every request: the results after it still answer the response before it.
        const content = entry.hidden ? entry.text : [{ type: "text" as const, text: entry.text }];
        const message = { role: entry.hidden ? "hidden" : "user", content, timestamp: ++markers } as AgentMessage;
        if (!entry.hidden && entry.batch) Object.assign(message, { batchId: `batch${batch}` });
        made.history.push(message);
        break;
      }
      case "response": {
        const ids = entry.results
          .map(() => `h_call${calls.length + 1}`)
          .map((id, index) => (entry.sameIds ? id : `${id}_${index}`));
        calls.push(...ids);
        const text = `«a${++markers}»`;
        const dropped = entry.stop === "error" || entry.stop === "aborted";
        made.history.push(
          assistantMessage([{ type: "text" as const, text }, ...ids.map((id) => toolCall("shot", {}, { id }))], {
            stopReason: entry.stop === "toolUse" && ids.length === 0 ? "stop" : entry.stop,
            ...(dropped && { errorMessage: "503 Service Unavailable" }),
            timestamp: markers,
          }),
        );
        // A dropped response leaves the one before it open.
        if (!dropped) {
          open = [...ids];
          made.viewTail = "assistant";
        }
        entry.results.forEach((spec, index) => {
          if (spec.present) result(ids[index]!, spec.images);
        });
        entry.results.forEach((spec, index) => {
          if (spec.present && spec.twice) result(ids[index]!, []);
        });
        break;
      }
      case "strayResult":
        result(calls.length > 0 ? calls[entry.pick % calls.length]! : "h_never_called", []);
        break;
    }
  }
  // The loop continues from no response, a failed one included, whatever the model would see.
  const last = made.history[made.history.length - 1];
  made.continuable = last?.role !== "assistant" && (made.viewTail === "user" || made.viewTail === "toolResult");
  return made;
}

/** A request's messages as slots: each user or tool-result message's marker and the images (or placeholders) it holds. */
interface RequestSlots {
  /** Markers in request order, each with what stands at its images' places. */
  messages: { markers: string[]; images: ({ sent: MadeImage } | { placeholder: string })[] }[];
}

function textOf(block: TextContent | ImageContent): string | undefined {
  return block.type === "text" ? block.text : undefined;
}

/** Checks one request against the rules; throws naming the first break. */
function checkRequest(messages: readonly Message[], made: Made, number: number): void {
  const fail = (detail: string): never => {
    throw new Error(`odd history, request ${number}: ${detail}`);
  };
  // No message that says nothing: a provider drops it or refuses the request.
  for (const [index, message] of messages.entries()) {
    if (message.role !== "user") continue;
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (blocks.every((block) => block.type === "text" && block.text.trim() === ""))
      fail(`message ${index}: a user message that says nothing (${JSON.stringify(message.content)})`);
  }
  // Every tool result answers a call of the response right before it, once (calls named alike one by one).
  let pending: string[] = [];
  const seenResults = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "toolResult") {
      if (!pending.includes(message.toolCallId))
        fail(
          `message ${index}: a result for ${message.toolCallId} that answers no open call of the response before it`,
        );
      pending.splice(pending.indexOf(message.toolCallId), 1);
      const marker = textOf(message.content[0]!) ?? "";
      if (made.allResults.has(marker)) seenResults.add(marker);
      continue;
    }
    pending =
      message.role === "assistant"
        ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
        : [];
  }
  const missing = [...made.keptResults].filter((marker) => !seenResults.has(marker));
  const extra = [...seenResults].filter((marker) => !made.keptResults.has(marker));
  if (missing.length > 0 || extra.length > 0)
    fail(`history results: missing ${JSON.stringify(missing)}, not to be sent ${JSON.stringify(extra)}`);

  // Each image where its message put it; tiny ones never sent; of the others exactly the newest 20.
  const slots: { image: MadeImage; sent: boolean }[] = [];
  for (const message of messages) {
    if (message.role === "assistant" || typeof message.content === "string") continue;
    const expected: MadeImage[] = [];
    const seen: { image: MadeImage; sent: boolean }[] = [];
    for (const block of message.content) {
      const text = textOf(block);
      if (text !== undefined) {
        for (const marker of text.match(/«(?:[ur]\d+|t[\d_]+|now)»/g) ?? [])
          expected.push(...(made.imagesOf.get(marker) ?? []));
        const placeholder = /^\[image omitted[^:]*: (.*)\]$/.exec(text);
        if (placeholder) {
          const image = made.byName.get(placeholder[1]!);
          if (!image) fail(`a placeholder names ${placeholder[1]}, no image of the case`);
          seen.push({ image: image!, sent: false });
        }
        continue;
      }
      // Empty data is the same for every empty image: those are told apart by the file name they carry.
      const { data, fileName } = block as ImageContent & { fileName?: string };
      const image = data === "" ? made.byName.get(fileName ?? "") : made.byData.get(data);
      if (!image) return fail("an image the case never made");
      seen.push({ image, sent: true });
    }
    const names = (list: readonly MadeImage[]) => list.map((image) => image.name);
    if (JSON.stringify(names(seen.map((slot) => slot.image))) !== JSON.stringify(names(expected)))
      fail(
        `a message's images are ${JSON.stringify(names(seen.map((slot) => slot.image)))}, its source held ${JSON.stringify(names(expected))}`,
      );
    slots.push(...seen);
  }
  let kept = 0;
  for (let index = slots.length - 1; index >= 0; index--) {
    const { image, sent } = slots[index]!;
    const size = SIZES[image.kind];
    // Bytes that are no image (or none) are never sent: no provider takes them. Nor is a tiny one.
    const tiny = size === undefined || size[0] < MIN_IMAGE_PX || size[1] < MIN_IMAGE_PX;
    const shouldSend = !tiny && kept < MAX_IMAGES;
    if (shouldSend) kept++;
    if (sent !== shouldSend)
      fail(`image ${image.name} (${image.kind}) was ${sent ? "sent" : "left out"}; ${kept} newer images are sent`);
  }
}

/** Runs the case: a turn on its history whose model calls the image tool for each round, then answers. */
export async function checkOddHistory(scenario: OddHistoryCase): Promise<void> {
  const made = buildHistory(scenario);
  const before = JSON.stringify(made.history);
  const userImages = scenario.userImages.map((kind, index) => makeImage(`u${index + 1}.png`, kind));
  for (const image of userImages) remember(made, image);
  made.imagesOf.set("«now»", userImages);
  const toolImages = new Map<string, MadeImage[]>();
  const script = scenario.rounds.map((round, roundIndex) =>
    response(
      round.map((kinds, callIndex) => {
        const id = `m${roundIndex + 1}_${callIndex}`;
        const list = kinds.map((kind, index) => makeImage(`t${roundIndex + 1}_${callIndex}_${index}.png`, kind));
        for (const image of list) remember(made, image);
        made.imagesOf.set(`«t${roundIndex + 1}_${callIndex}»`, list);
        toolImages.set(id, list);
        return toolCall("shot", { id }, { id });
      }),
    ),
  );
  const model = createScriptedModel([...script, "«done»"]);
  const contexts: { sessionId: string; turnId: string; toolCallId: string; assistantMessageId: string | undefined }[] =
    [];
  const shot = defineRuntimeTool({
    name: "shot",
    description: "Answers with images",
    parameters: { type: "object", properties: { id: { type: "string" } } } as const,
    executionMode: "parallel",
    execute: async (ctx) => {
      contexts.push({ ...ctx });
      const marker = `«t${ctx.toolCallId.slice(1)}»`;
      return {
        content: [
          { type: "text", text: marker },
          ...(toolImages.get(ctx.toolCallId) ?? []).map((image) => image.block),
        ],
      };
    },
  });
  const events: RuntimeEvent[] = [];
  const input: RunTurnInput = {
    sessionId: "session-odd-history",
    turnId: "turn-odd-history",
    systemPrompt: "",
    history: made.history,
    ...(scenario.continues
      ? { startMode: "continue" as const }
      : { userMessage: { text: "«now»", images: userImages.map((image) => image.block) } }),
    eventWriter: { push: (event) => void events.push(event) },
    llm: { model: model.model, streamFn: model.streamFn, firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 },
    llmRetry: false,
    tools: [shot],
    disableBuiltinToolFallback: true,
    ...(scenario.withHook && { hooks: { onHistoryChangedHook: () => {} } }),
  };
  if (scenario.continues && !made.continuable) {
    // Nothing a model could answer: refused in words before any event and any request.
    const refused = await new PiTurnRunner().runTurn(input).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!TurnkitConfigError.isInstance(refused))
      throw new Error(`odd history: continuing a history whose model view ends ${made.viewTail} was not refused`);
    if (events.length > 0 || model.requests.length > 0)
      throw new Error("odd history: a refused turn emitted events or sent a request");
    return;
  }
  const outcome = await new PiTurnRunner().runTurn(input);
  if (outcome.kind !== "completed") throw new Error(`odd history: the turn ended ${JSON.stringify(outcome)}`);
  if (JSON.stringify(made.history) !== before) throw new Error("odd history: the turn changed the caller's history");
  if (model.requests.length !== scenario.rounds.length + 1)
    throw new Error(`odd history: ${model.requests.length} requests, the script has ${scenario.rounds.length + 1}`);
  model.requests.forEach((request, index) => checkRequest(request.context.messages, made, index + 1));
  checkEventsPersistable(events);
  checkToolContexts(contexts, events, scenario.rounds);
}

/**
 * Each call's tool was told its turn and the id of the assistant message
 * that made the call: the message id its `stream.resp` chunks carry.
 */
function checkToolContexts(
  contexts: readonly {
    sessionId: string;
    turnId: string;
    toolCallId: string;
    assistantMessageId: string | undefined;
  }[],
  events: readonly RuntimeEvent[],
  rounds: readonly (readonly unknown[])[],
): void {
  const calls = rounds.reduce((count, round) => count + round.length, 0);
  if (contexts.length !== calls) throw new Error(`odd history: ${contexts.length} tool runs for ${calls} calls`);
  for (const ctx of contexts) {
    if (ctx.sessionId !== "session-odd-history" || ctx.turnId !== "turn-odd-history")
      throw new Error(
        `odd history: the tool of ${ctx.toolCallId} was told session ${ctx.sessionId}, turn ${ctx.turnId}`,
      );
    const ids = new Set<string | undefined>(
      events.flatMap((event) =>
        event.type === "stream.resp" &&
        event.payload.chunk.kind === "tool_call" &&
        event.payload.chunk.toolCallId === ctx.toolCallId
          ? [event.payload.messageId]
          : [],
      ),
    );
    if (ids.size !== 1 || !ids.has(ctx.assistantMessageId))
      throw new Error(
        `odd history: the tool of ${ctx.toolCallId} was told assistant message ${ctx.assistantMessageId}; its chunks carry ${JSON.stringify([...ids])}`,
      );
  }
}

/** One case in eight without any history, as a fresh session. */
export const oddHistoryCaseArbitrary: fc.Arbitrary<OddHistoryCase> = fc
  .tuple(oddHistoryArbitrary, oneIn(8, fc.constant(true)))
  .map(([scenario, fresh]) => (fresh ? { ...scenario, history: [] } : scenario));
