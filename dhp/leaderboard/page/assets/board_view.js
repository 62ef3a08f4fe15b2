// The board's page load and views come from GET dhp/view (dhp/leaderboard/page/serving.py), not from
// Gradio events: the server renders each view once per board version and sends the same bytes to
// every reader, so a crowd costs it almost nothing. While the server still reads the results (a cold
// start) the page shows its progress in the table's place and asks again each second.
(() => {
  const host = () => document.querySelector("#leaderboard-table .dhp-board-host");
  const update = (props) => ({ __type__: "update", ...props });
  const pairs = (xs) => xs.map((x) => [x, x]);

  function showStatus(text) {
    const h = host();
    if (!h) return;
    const note = document.createElement("div");
    note.className = "dhp-empty dhp-loading";
    note.setAttribute("role", "status");
    note.textContent = text;
    h.replaceChildren(note);
  }

  async function getView(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null) q.set(k, typeof v === "string" ? v : JSON.stringify(v));
    const r = await fetch("dhp/view" + (q.size ? "?" + q : ""), { credentials: "same-origin" });
    if (!r.ok) throw new Error(`dhp/view answered ${r.status}`);
    return r.json();
  }

  async function fetchView(inputs) {
    for (;;) {
      const j = await getView({ v: inputs });
      if (!j.loading) return j;
      showStatus(j.status);
      await new Promise((done) => setTimeout(done, 1000));
    }
  }

  // A name from the address, as HTML text (the judge info is an HTML block): no markup of its own.
  const plain = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  // Views asked for so far (filters, toggles and the timer's refresh). Replies can arrive out of order
  // (the server renders views on several threads): a reply to an older question is dropped, so two
  // quick clicks never end on the first one's table. The newest question carries every input as it is.
  let asked = 0;
  const keep = (n) => Array(n).fill(update({}));

  // A filter, sort, search or toggle: [table payload, CSV file, user-task section] of that view.
  // window.dhpViewsAnswered counts the replies (shown or dropped), for a test to wait on.
  window.dhpViewsAnswered = 0;
  window.dhpView = async (inputs) => {
    const mine = ++asked;
    const j = await fetchView(inputs);
    window.dhpViewsAnswered += 1;
    return mine === asked ? [j.board, j.csv, j.tasks] : keep(3);
  };

  // The page load (app._wire_page's outputs, in order): board version, known families (JSON), problems,
  // weights versions, families, the table, its CSV, user tasks, the judge link box (a ?judge= link is
  // followed as a click on the judge's name is: the server lists the judges and opens the page), tabs,
  // judge info, linked judge.
  window.dhpPage = async () => {
    const j = await fetchView(null);
    const p = j.page;
    window.dhpJudgeNames = p.judges; // the Judge tab's choices (judge_view.js)
    const wanted = new URLSearchParams(window.location.search).get("judge");
    const known = wanted && p.judges.includes(wanted) ? wanted : null;
    return [
      j.version,
      JSON.stringify(p.families),
      p.problems,
      update({ choices: p.weights, value: "default", info: p.survey }),
      update({ choices: pairs(p.families), value: p.families }),
      j.board,
      j.csv,
      j.tasks,
      known ? `${known}\t${Date.now()}` : update({}),
      update(wanted ? { selected: "judge" } : {}),
      wanted && !known ? `<p><b>Unknown judge</b> “${plain(wanted)}”: no result names it. Pick one above.</p>` : update({}),
      wanted || "",
    ];
  };

  // The timer (and Refresh, fresh: the store listed now): the outputs board version, known families,
  // problems, families, table, CSV, user tasks; all left alone unless the board version changed.
  // Families that appeared since are shown (ticked); the reader's other choices are kept.
  // A tick that a filter or toggle overtook (its inputs are older) changes nothing: the next tick
  // sees the new version again. A tick that only finds the same version asks no view and drops none.
  // The view keeps the name the reader's own choices gave it (``a``): families a tick ticked are not
  // the reader's, so a later tick on the inputs a tick left (the rank ranges filled in) is still the
  // same view, and keeps the reader's place (it went back to the top and to one chunk of rows).
  let ticked = null; // {inputs: what the last tick set (JSON), reader: the name it kept}
  window.dhpTick = async (fresh, gen, knownJson, ...view) => {
    const same = keep(7);
    const before = asked;
    const j = await getView({ fresh: fresh ? "1" : null });
    if (j.loading || (!fresh && (gen < 0 || j.version === gen))) return same;
    const p = j.page;
    window.dhpJudgeNames = p.judges;
    const known = JSON.parse(knownJson || "[]");
    const chosen = p.families.filter((f) => (view[3] || []).includes(f) || !known.includes(f));
    const reader = ticked && ticked.inputs === JSON.stringify(view) ? ticked.reader : [...view];
    const inputs = [...view];
    inputs[3] = chosen;
    if (before !== asked) return same;
    const mine = ++asked;
    const v = await getView({ v: inputs, a: reader });
    if (mine !== asked) return same;
    ticked = { inputs: JSON.stringify(inputs), reader };
    return [j.version, JSON.stringify(p.families), p.problems, update({ choices: pairs(p.families), value: chosen }),
      v.board, v.csv, v.tasks];
  };
})();
