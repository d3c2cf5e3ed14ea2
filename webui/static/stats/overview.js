// The statistics overview: a headline figure on each dashboard's card, and the list of
// JSON URLs from GET /api/stats. Both follow the filters in the address.

import {
  API, el, fmtInt, fmtShare, getJSON, startPage, statsIndex, withQuery,
} from "./common.js";

function card(name, figure, detail) {
  const box = document.querySelector(`[data-card="${name}"]`);
  if (!box) return;
  box.querySelector(".card-figure").textContent = figure;
  box.querySelector(".card-detail").textContent = detail;
}

async function endpoints(params) {
  const index = await statsIndex();
  const list = document.getElementById("endpoints");
  list.replaceChildren(...(index?.endpoints ?? []).map((e) => {
    const url = withQuery(e.url, params);
    // A URL template (".../<id>", "?a=<variant>...") is shown, not linked.
    const template = e.url.includes("<") || e.needs;
    return el("li", {},
      template ? el("code", {}, e.needs ? `${e.url}${e.needs}` : url) : el("a", { href: url }, url),
      el("span", { class: "endpoint-title" }, ` ${e.title ?? ""}`),
      e.description ? el("span", { class: "hint" }, `: ${e.description}`) : null);
  }));
}

startPage({
  // The overview's own numbers are the blocked dashboard's (every game has rounds); the
  // bonus, variants and players load beside.
  api: (params) => withQuery(`${API}/blocked`, params),
  isEmpty: (data) => !data.rounds,
  async render(blocked, { params }) {
    card("blocked", fmtShare(blocked.share), `of ${fmtInt(blocked.rounds)} rounds ended blocked`);
    const [bonus, variants, players] = await Promise.all([
      getJSON(withQuery(`${API}/bonus`, params)).catch(() => null),
      getJSON(withQuery(`${API}/variants`, params)).catch(() => null),
      getJSON(withQuery(`${API}/players`, params)).catch(() => null),
      endpoints(params),
    ]);
    if (bonus?.scope?.reason) {
      card("bonus", "–", bonus.scope.reason);
    } else if (bonus) {
      const n = bonus.scope?.variants?.length ?? 0;
      card("bonus", fmtShare(bonus.share), `of ${fmtInt(bonus.plays)} plays scored a bonus, in ` +
        `the ${n === 1 ? "variant" : `${fmtInt(n)} variants`} with a bonus rule`);
    }
    if (variants) {
      const n = (variants.variants ?? []).length;
      card("variants", fmtInt(n), `variant${n === 1 ? "" : "s"} under these filters`);
    }
    if (players) {
      const n = (players.players ?? []).length;
      card("players", fmtInt(n), `player${n === 1 ? "" : "s"} under these filters`);
    }
  },
});
