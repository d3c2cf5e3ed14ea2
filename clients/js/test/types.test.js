// The declarations agree with the code: the typed example (types.ts, which TypeScript
// checks against index.d.ts) imports every export and runs here; every value that
// index.d.ts declares is exported, and every export is declared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as lib from "../index.js";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const example = readFileSync(here("types.ts"), "utf8");
const declared = readFileSync(here("../index.d.ts"), "utf8");

test("every export is declared, every declared value exported, and the example imports them all", () => {
  const values = [...declared.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  const exported = Object.keys(lib).sort();
  assert.deepEqual([...new Set(values)].sort(), exported);
  const imported = example.match(/^import \{([^}]*)\} from "\.\.\/index\.js";/m)[1].split(",").map((s) => s.trim()).filter(Boolean);
  assert.deepEqual(imported.sort(), exported);
});

test("the typed example runs", async (t) => {
  let ts;
  try {
    ts = (await import("typescript")).default;
  } catch {
    if (process.env.CI === "true") throw new Error("typescript is missing (npm install in clients/js), and CI=true needs it");
    t.skip("typescript is not installed here (npm install in clients/js)");
    return;
  }
  const { outputText } = ts.transpileModule(example, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const path = here("types.generated.mjs");
  writeFileSync(path, outputText);
  try {
    const { run } = await import("./types.generated.mjs");
    const played = await run();
    assert.equal(played.replayed.status, "finished");
    assert.deepEqual(played.emptyArm, { shows: 6, counts: 0, empty: true, closed: false });
    assert.equal(played.report.attempts, 1);
  } finally {
    rmSync(path, { force: true });
  }
});
