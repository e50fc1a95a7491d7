import { randomFillSync } from "node:crypto";

/** Random bytes for this many ids are drawn at once, as `randomUUID` does. */
const IDS_PER_DRAW = 128;
const UUID_BYTES = 16;
const PREFIX = "msg_";
/** Where a UUID's dashes sit, after this many of its bytes. */
const DASH_AFTER = [4, 6, 8, 10];
const HEX = "0123456789abcdef";

const random = Buffer.alloc(UUID_BYTES * IDS_PER_DRAW);
let nextRandom = random.length;
/** The id being written, as its characters' bytes: the prefix and the dashes stay, the hex digits are written over. */
const text = Buffer.from(`${PREFIX}00000000-0000-0000-0000-000000000000`, "latin1");
const ID_LENGTH = text.length;

/**
 * A default message id, `msg_<uuid>` (a random, version 4 UUID, lower
 * case), as one flat string. The characters are written into one buffer
 * and read out as one string: `randomUUID()` builds its text from a dozen
 * joined pieces, a few hundred bytes of garbage per id.
 */
export function newMessageId(): string {
  if (nextRandom === random.length) {
    randomFillSync(random);
    nextRandom = 0;
  }
  const at = nextRandom;
  nextRandom += UUID_BYTES;
  let out = PREFIX.length;
  for (let index = 0; index < UUID_BYTES; index++) {
    if (DASH_AFTER.includes(index)) out++;
    let byte = random[at + index]!;
    // The version (4) and variant (10xx) bits of RFC 9562.
    if (index === 6) byte = (byte & 0x0f) | 0x40;
    else if (index === 8) byte = (byte & 0x3f) | 0x80;
    text[out++] = HEX.charCodeAt(byte >> 4);
    text[out++] = HEX.charCodeAt(byte & 0x0f);
  }
  return text.toString("latin1", 0, ID_LENGTH);
}
