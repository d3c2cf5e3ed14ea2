// The seeded shuffle sha256-fy-1 of domino-log/1: a SHA-256 counter stream,
// rejection sampling for below(n), Fisher-Yates from the canonical order.
// SHA-256 comes from globalThis.crypto.subtle (browsers, node 19+) or node:crypto,
// so every call that reads the stream is async.

const encoder = new TextEncoder();
const TWO32 = 2 ** 32;

let nodeHash = null;

async function sha256(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) {
    return new Uint8Array(await subtle.digest("SHA-256", bytes));
  }
  if (!nodeHash) {
    const { createHash } = await import("node:crypto");
    nodeHash = (b) => new Uint8Array(createHash("sha256").update(b).digest());
  }
  return nodeHash(bytes);
}

/** The byte stream of a seed: SHA-256(seed + ":" + k) for k = 0, 1, 2, ..., as big-endian u32 words. */
export class Stream {
  constructor(seed) {
    if (typeof seed !== "string") {
      throw new TypeError(`a seed is a string, not ${typeof seed}`);
    }
    this.seed = seed;
    this.block = 0;
    this.words = [];
    this.pos = 0;
  }

  /** The next 32-bit word of the stream. */
  async u32() {
    if (this.pos >= this.words.length) {
      const digest = await sha256(encoder.encode(`${this.seed}:${this.block}`));
      this.block += 1;
      const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
      this.words = [];
      for (let i = 0; i < 32; i += 4) this.words.push(view.getUint32(i, false));
      this.pos = 0;
    }
    return this.words[this.pos++];
  }

  /** A uniform integer in [0, n), without modulo bias. */
  async below(n) {
    if (!Number.isInteger(n) || n <= 0 || n > TWO32) {
      throw new RangeError(`below() needs a whole number from 1 to 2^32, got ${n}`);
    }
    const limit = TWO32 - (TWO32 % n);
    let x = await this.u32();
    while (x >= limit) x = await this.u32();
    return x % n;
  }
}

/** Fisher-Yates from the last index down; returns a new array. */
export async function shuffle(items, stream) {
  const out = Array.from(items);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    const t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
  return out;
}

/** The canonical order 0-0, 0-1, ..., 0-N, 1-1, ..., N-N; the whole list twice for two sets. */
export function canonical(maxPip = 6, sets = 1) {
  const one = [];
  for (let a = 0; a <= maxPip; a += 1) {
    for (let b = a; b <= maxPip; b += 1) one.push(`${a}-${b}`);
  }
  const out = [];
  for (let s = 0; s < sets; s += 1) out.push(...one);
  return out;
}
