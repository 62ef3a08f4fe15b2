// The main table's component code (gr.HTML js_on_load; `element`, `props` and `watch` come from Gradio).
// The server sends the view in parts (board_html.BoardParts.payload): the head, one string per row,
// the tail, and how many rows to draw at once. The browser lays out that many rows and appends the
// next ones as the table box is scrolled near its end (or all at once with "Show all"), so a filter
// over 500 judges never lays out 500 rows. A live refresh of the same view (new results) keeps the rows
// drawn and the scroll position; another view starts at the top. Header clicks and judge links: board.js.
const host = element.querySelector(".dhp-board-host") || element;
let rows = [];
let drawn = 0;
let chunk = 0;
let shown = null; // the name of the view on screen: a live refresh of it keeps the reader's place

function note() {
  const more = host.querySelector(".dhp-more");
  if (!more) return;
  if (drawn >= rows.length) { more.remove(); return; }
  more.querySelector("span").textContent =
    `Showing ${drawn} of ${rows.length} judges: scroll the table for more, or`;
}

function drawMore(n) {
  const body = host.querySelector("tbody");
  if (!body || drawn >= rows.length) return;
  const next = rows.slice(drawn, drawn + n);
  drawn += next.length;
  body.insertAdjacentHTML("beforeend", next.join(""));
  note();
}

function draw() {
  let view = null;
  try { view = props.value ? JSON.parse(props.value) : null; } catch (e) { view = null; }
  if (!view) { host.innerHTML = ""; rows = []; drawn = 0; shown = null; return; }
  const before = host.querySelector(".dhp-board-wrap");
  const same = Boolean(view.view) && view.view === shown && before !== null;
  const top = same ? before.scrollTop : 0;
  const left = same ? before.scrollLeft : 0;
  const had = !same ? 0 : drawn >= rows.length ? Infinity : drawn; // all drawn stays all drawn
  shown = view.view || null;
  rows = view.rows;
  chunk = view.chunk > 0 ? view.chunk : rows.length;
  drawn = Math.min(Math.max(chunk, had), rows.length);
  const more = drawn < rows.length
    ? '<div class="dhp-more" role="status"><span></span> <button type="button" class="dhp-show-all">show all</button></div>'
    : "";
  host.innerHTML = view.head + rows.slice(0, drawn).join("") + view.tail + more;
  note();
  const wrap = host.querySelector(".dhp-board-wrap");
  if (wrap) {
    wrap.scrollTop = top;
    wrap.scrollLeft = left;
    wrap.addEventListener("scroll", () => {
      if (wrap.scrollTop + wrap.clientHeight > wrap.scrollHeight - 400) drawMore(chunk);
    }, { passive: true });
  }
}

host.addEventListener("click", (e) => { if (e.target.closest(".dhp-show-all")) drawMore(rows.length); });
watch("value", draw);
draw();
