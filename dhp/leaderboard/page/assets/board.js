() => {
  // Header clicks sort (on the server, so the CSV follows); judge links open the judge page in place.
  const send = (id, value) => {
    const el = document.querySelector(`#${id} textarea, #${id} input`);
    if (!el) return false;
    el.value = value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    return true;
  };
  // Headers are buttons: Enter or Space on a focused header sorts as a click does.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const th = e.target.closest && e.target.closest("#leaderboard-table th[data-sort], #tasks-table th[data-sort]");
    if (!th) return;
    e.preventDefault();
    send("board-sort", th.dataset.sort);
  });
  document.addEventListener("click", (e) => {
    const th = e.target.closest("#leaderboard-table th[data-sort], #tasks-table th[data-sort]");
    if (th) { send("board-sort", th.dataset.sort); return; }
    const a = e.target.closest("a.dhp-judge");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    if (send("judge-link", `${a.dataset.judge}\t${Date.now()}`)) e.preventDefault();
  });
}
