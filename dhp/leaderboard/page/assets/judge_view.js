// The judge page comes from GET dhp/judge (dhp/leaderboard/page/judge_pages.py), not from Gradio events:
// the server draws each judge's page once per version of its results, in a child process, and sends
// the same bytes to every reader. Choosing a judge, a dataset or a perturbation fills the Judge tab's
// components here; the missed pairs of every perturbation come with their dataset, so picking one asks
// the server nothing.
(() => {
  const update = (props) => ({ __type__: "update", ...props });
  const keep = (n) => Array(n).fill(update({}));
  const pairs = (xs) => xs.map((x) => [x, x]);
  const plain = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  async function getPage(name, dataset) {
    const q = new URLSearchParams({ name });
    if (dataset) q.set("dataset", dataset);
    for (;;) {
      const r = await fetch("dhp/judge?" + q, { credentials: "same-origin" });
      if (!r.ok) throw new Error(`dhp/judge answered ${r.status}`);
      const j = await r.json();
      if (!j.loading) return j;
      await new Promise((done) => setTimeout(done, 1000)); // the results are still being read
    }
  }

  // The dataset part shown now (its missed pairs answer the perturbation picker).
  let shown = null;
  let asked = 0;
  const nothing = () => ["", update({ visible: false }), "", "", update({ choices: [], value: null, visible: false }), "",
    update({ value: null, visible: false })];

  // A dataset's part: score distributions, per-perturbation table, prompts, misses and tertiles,
  // the perturbation picker (the most missed first), its missed pairs, the CSV of every miss.
  function datasetOutputs(name, d) {
    if (!d || d.missing || d.error) {
      shown = null;
      const out = nothing();
      if (d && d.error) out[3] = plain(d.error);
      return out;
    }
    shown = { name, dataset: d.dataset, part: d };
    const first = d.choices.length ? d.choices[0][1] : null;
    return [
      d.dist,
      update({ value: d.perturbations, visible: true }),
      d.prompts,
      d.detail,
      update({ choices: d.choices, value: first, visible: d.choices.length > 0 }),
      first === null ? d.no_misses : d.misses[first],
      update({ value: d.csv, visible: !!d.csv }),
    ];
  }

  // window.dhpJudgePages counts the pages drawn (a test waits on it).
  window.dhpJudgePages = 0;

  // A judge chosen (select.change): header, bars, per-dataset table, dataset list, then the first
  // dataset's part (ui.wire_judge's outputs, in order). A reply overtaken by a newer choice is dropped.
  window.dhpJudge = async (name) => {
    if (!name) return keep(11);
    const mine = ++asked;
    const j = await getPage(name, null);
    if (mine !== asked) return keep(11);
    window.dhpJudgePages += 1;
    if (j.error) return [`<p>${plain(j.error)}</p>`, "", update({ visible: false }), update({ choices: [], value: null }), ...nothing()];
    return [
      j.info,
      j.bars,
      j.has_results ? update({ value: j.summary, visible: true }) : update({ visible: false }),
      update({ choices: pairs(j.datasets), value: j.datasets.length ? j.datasets[0] : null }),
      ...datasetOutputs(name, j.first),
    ];
  };

  // Another dataset chosen (dataset.change): its part; nothing asked when it is the one shown.
  window.dhpJudgeDataset = async (name, dataset) => {
    if (!name || !dataset) return nothing();
    if (shown && shown.name === name && shown.dataset === dataset) return keep(7);
    const mine = ++asked;
    const d = await getPage(name, dataset);
    if (mine !== asked) return keep(7);
    return datasetOutputs(name, d);
  };

  // A perturbation picked: its missed pairs, from the dataset part shown.
  window.dhpJudgeMisses = async (name, dataset, pid) => {
    if (!shown || shown.name !== name || shown.dataset !== dataset) {
      const d = await getPage(name, dataset);
      if (d.missing || d.error) return "";
      shown = { name, dataset, part: d };
    }
    return (pid && shown.part.misses[pid]) || shown.part.no_misses;
  };

  // A click on a judge's name in the table (board.js writes "<name>\t<nonce>"), or a ?judge=
  // link: the Judge tab opened on that judge (a name no result has leaves the page as it is).
  window.dhpFollow = (value) => {
    const name = (value || "").split("\t", 1)[0];
    const names = window.dhpJudgeNames || [];
    if (!names.includes(name)) return keep(2);
    return [update({ choices: pairs(names), value: name }), update({ selected: "judge" })];
  };

  // The Judge tab opened with no judge chosen: the first judge by name (not when a link named one).
  window.dhpFirstJudge = (current, named) => {
    const names = window.dhpJudgeNames || [];
    if (current || named || !names.length) return update({});
    return update({ choices: pairs(names), value: names[0] });
  };
})();
