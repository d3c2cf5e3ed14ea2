// The rulesets as the recorder resolves them: the shipped file is the recorder's own
// (`recorder rules --json`), and resolveRules gives the recorder's answer for every
// entry of schemas/vectors/resolve-1.json: every rule, or the recorder's refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPTIONS, PRESETS, RULESETS, Rules, RulesetError, resolveRules } from "../index.js";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { rulesets } = JSON.parse(readFileSync(here("../../../schemas/vectors/resolve-1.json"), "utf8"));

test("the library's rulesets file is the recorder's", () => {
  assert.equal(readFileSync(here("../rulesets.json"), "utf8"), readFileSync(here("../../../schemas/rulesets-1.json"), "utf8"));
  assert.equal(RULESETS.format, "domino-rulesets/1");
  assert.deepEqual(Object.keys(PRESETS), Object.keys(RULESETS.presets));
  assert.deepEqual(OPTIONS, RULESETS.options);
});

test("every ruleset of the vectors resolves, or is refused, as the recorder does", () => {
  let refused = 0;
  for (const v of rulesets) {
    const why = JSON.stringify(v.ruleset) + (v.players ? ` with ${v.players} players` : "");
    if (v.players !== undefined) {
      const rules = resolveRules(v.ruleset);
      if (v.error) {
        assert.throws(() => rules.checkPlayers(v.players), (err) => err instanceof RulesetError
          && err.message === v.error.message && err.pointer === v.error.pointer, why);
        refused += 1;
      } else {
        rules.checkPlayers(v.players);
        assert.equal(rules.tilesEach(v.players), v.tiles_each, why);
        assert.equal(rules.openingFor(v.players), v.opening, why);
      }
      continue;
    }
    if (v.error) {
      assert.throws(() => resolveRules(v.ruleset), (err) => {
        assert.ok(err instanceof RulesetError, `${why}: ${err}`);
        assert.equal(err.message, v.error.message, why);
        assert.equal(err.pointer, v.error.pointer, why);
        assert.equal(err.code, "ruleset/invalid");
        return true;
      }, why);
      refused += 1;
    } else {
      const rules = resolveRules(v.ruleset);
      assert.ok(rules instanceof Rules);
      assert.deepEqual(rules.toJSON(), v.rules, why);
    }
  }
  assert.ok(refused >= 40, `${refused} refusals`);
});

test("resolved rules are camelCase, complete and frozen", () => {
  const rules = resolveRules({ preset: "norwegian", options: { target: 50 } });
  assert.equal(rules.stockFloor, 2);
  assert.equal(rules.targetMode, "reach-wins");
  assert.equal(rules.blockedScoring, "difference");
  assert.equal(rules.target, 50);
  assert.deepEqual(rules.handSize, { 2: 7 });
  assert.deepEqual(rules.options, { target: 50 });
  const fields = Object.keys(RULESETS.presets.spilop).filter((f) => f !== "two_set_hand_size");
  for (const name of fields) {
    const camel = name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
    assert.ok(camel in rules, camel);
  }
  assert.ok(Object.isFrozen(rules));
  assert.throws(() => { rules.target = 1; }, TypeError);
  assert.equal(resolveRules(rules), rules);
  assert.deepEqual(PRESETS.kozel.sides(4), [[0], [1], [2], [3]]);
  assert.deepEqual(PRESETS["openspiel-team"].sides(4), [[0, 2], [1, 3]]);
  assert.equal(PRESETS.italian.openingFor(4), "highest-double");
  assert.equal(PRESETS.italian.openingFor(3), "free");
});
