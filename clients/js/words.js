// How the recorder writes values in its messages, so that the library's refusals read
// word for word as the recorder's: Python's repr() of a JSON value, Python's names of
// JSON types, and difflib's closest match ("did you mean ...?").
//
// A value is taken as the log will carry it once serialized with JSON.stringify: a
// whole number is an int (JSON has no 7.0 apart from 7), anything else a float.

const PLAIN = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function reprString(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (PLAIN.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0);
      if (code < 0x100) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
      else out += `\\U${code.toString(16).padStart(8, "0")}`;
    }
  }
  return out + quote;
}

function reprFloat(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  // the shortest digits that read back as x (what both languages print), laid out as
  // Python does: positional from 1e-4 up to 1e16, else d.ddde+XX
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (e >= -4 && e < 16) {
    if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
    const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
    const frac = digits.slice(e + 1);
    return `${sign}${whole}.${frac || "0"}`;
  }
  const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${body}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** A value as Python's repr() writes it once the recorder has read it from JSON. */
export function repr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return reprString(value);
  if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
    return reprFloat(value);
  }
  if (typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map(repr).join(", ")}]`;
  if (typeof value === "object") {
    const items = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${items.map(([k, v]) => `${repr(k)}: ${repr(v)}`).join(", ")}}`;
  }
  return String(value);
}

/** str() of a value, as the recorder formats names it did not expect. */
export function str(value) {
  return typeof value === "string" ? value : repr(value);
}

/** Python's name of a JSON value's type: int, float, str, bool, list, dict, NoneType. */
export function typeName(value) {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 1e21 ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Whether `value` is a JSON object (a Python Mapping once read): not an array, not null. */
export function isMapping(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------- difflib
// SequenceMatcher(None, a, b).ratio() over code points, with difflib's "autojunk" (a
// b of 200 or more elements drops its popular ones), and get_close_matches(n, 0.6).

function matcher(a, b) {
  const b2j = new Map();
  b.forEach((elt, j) => {
    if (!b2j.has(elt)) b2j.set(elt, []);
    b2j.get(elt).push(j);
  });
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (const [elt, idxs] of [...b2j]) if (idxs.length > ntest) b2j.delete(elt);
  }
  function longest(alo, ahi, blo, bhi) {
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map();
    for (let i = alo; i < ahi; i += 1) {
      const next = new Map();
      for (const j of b2j.get(a[i]) || []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) || 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti -= 1;
      bestj -= 1;
      bestsize += 1;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize += 1;
    }
    return [besti, bestj, bestsize];
  }
  let matches = 0;
  const queue = [[0, a.length, 0, b.length]];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop();
    const [i, j, k] = longest(alo, ahi, blo, bhi);
    if (k) {
      matches += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
  }
  const total = a.length + b.length;
  return total ? (2 * matches) / total : 1;
}

/** difflib.get_close_matches(word, possibilities, n, 0.6): the closest names, best first. */
export function closeMatches(word, possibilities, n = 1, cutoff = 0.6) {
  const b = Array.from(word);
  const scored = [];
  for (const x of possibilities) {
    const score = matcher(Array.from(x), b);
    if (score >= cutoff) scored.push([score, x]);
  }
  scored.sort((p, q) => q[0] - p[0] || (p[1] < q[1] ? 1 : p[1] > q[1] ? -1 : 0));
  return scored.slice(0, n).map(([, x]) => x);
}
