/* nvbench_compare HTML report: builds the table from the page's JSON data, sorts, filters
   and draws the plots of opened rows. Text from the data only ever enters the page through
   textContent and setAttribute, never as markup. */
"use strict";
(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("nvbench-data").textContent);
  const rows = data.rows;
  const columns = data.columns;
  const statuses = data.statuses;
  const statusByCode = new Map(statuses.map((s, rank) => [s.code, Object.assign({ rank: rank }, s)]));
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const plotted = new Set(["SLOW", "FAST", "AMBG"]);
  for (const row of rows) {
    // Shared texts are stored once (data.texts); resolve them for the table.
    if (row.message !== undefined) row.message = data.texts[row.message];
    if (row.device_name !== undefined) row.device_name = data.texts[row.device_name];
  }

  const state = {
    sortKey: null, // null: the comparison's own row order
    sortDir: 1,
    statuses: new Set(statuses.filter((s) => s.count > 0).map((s) => s.code)),
    benchmark: "",
    query: "",
    open: new Set(),
  };
  const rowElements = new Map();
  const detailElements = new Map();

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    }
    for (const child of children || []) {
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function svgEl(parent, tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    parent.append(node);
    return node;
  }

  // ---------------------------------------------------------------------------------
  // Number formatting for plot axes (the table's texts come formatted from Python)

  function fmtTime(seconds) {
    const units = [[1, "s"], [1e-3, "ms"], [1e-6, "us"], [1e-9, "ns"]];
    const abs = Math.abs(seconds);
    for (const [scale, symbol] of units) {
      if (abs >= scale || scale === 1e-9) return `${+(seconds / scale).toPrecision(4)} ${symbol}`;
    }
    return String(seconds);
  }

  function fmtPct(fraction, digits) {
    const value = fraction * 100;
    const text = value.toFixed(digits === undefined ? 1 : digits);
    return (value > 0 && Number(text) !== 0 ? "+" : "") + text + "%";
  }

  function niceTicks(lo, hi, count) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / count;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(t);
    return ticks;
  }

  // ---------------------------------------------------------------------------------
  // Plots: sample ECDFs of both sides (left), effect interval against the band (right)

  function quantileRange(dist, lo, hi) {
    // The x of the first point at or above fraction lo and the last at or below hi.
    let a = dist.x[0];
    let b = dist.x[dist.x.length - 1];
    for (let i = 0; i < dist.x.length; i++) if (dist.y[i] >= lo) { a = dist.x[i]; break; }
    for (let i = dist.x.length - 1; i >= 0; i--) if (dist.y[i] <= hi) { b = dist.x[i]; break; }
    return [a, b];
  }

  function drawDistributions(svg, plot, left, right, top, bottom) {
    const values = [];
    for (const side of ["ref", "cmp"]) {
      if (plot[side]) values.push(...quantileRange(plot[side], 0.01, 0.99));
      const interval = plot[side + "_interval"];
      if (interval) values.push(interval[0], interval[2]);
    }
    svgEl(svg, "text", { x: left, y: 14 }, "Sample times (ECDF)");
    if (values.length === 0) {
      svgEl(svg, "text", { x: left, y: (top + bottom) / 2, class: "muted" },
        "no sample times or intervals on either side");
      return;
    }
    let lo = Math.min(...values);
    let hi = Math.max(...values);
    if (!(hi > lo)) { lo *= 0.99; hi *= 1.01; }
    const pad = (hi - lo) * 0.04;
    lo -= pad; hi += pad;
    const sx = (v) => left + ((Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * (right - left);
    const sy = (f) => bottom - f * (bottom - top);
    for (const f of [0, 0.5, 1]) {
      svgEl(svg, "line", { x1: left, x2: right, y1: sy(f), y2: sy(f), class: "grid" });
      svgEl(svg, "text", { x: left - 4, y: sy(f) + 4, "text-anchor": "end", class: "muted" }, String(f));
    }
    svgEl(svg, "line", { x1: left, x2: right, y1: bottom, y2: bottom, class: "axis" });
    for (const t of niceTicks(lo, hi, 4)) {
      svgEl(svg, "line", { x1: sx(t), x2: sx(t), y1: bottom, y2: bottom + 4, class: "axis" });
      svgEl(svg, "text", { x: sx(t), y: bottom + 15, "text-anchor": "middle", class: "muted" }, fmtTime(t));
    }
    let legendX = left + 130;
    let missing = [];
    for (const side of ["ref", "cmp"]) {
      const dist = plot[side];
      if (!dist) { missing.push(side); continue; }
      let path = `M${left},${sy(0)} H${sx(dist.x[0])}`;
      for (let i = 0; i < dist.x.length; i++) {
        path += ` H${sx(dist.x[i]).toFixed(1)} V${sy(dist.y[i]).toFixed(1)}`;
      }
      path += ` H${right}`;
      svgEl(svg, "path", { d: path, class: side });
      svgEl(svg, "line", { x1: legendX, x2: legendX + 22, y1: 10, y2: 10, class: side });
      svgEl(svg, "text", { x: legendX + 26, y: 14 }, `${side} (n=${dist.n})`);
      legendX += 100;
    }
    if (missing.length) {
      svgEl(svg, "text", { x: left + 6, y: top + 12, class: "muted" },
        `no sample times: ${missing.join(", ")} (run with --jsonbin)`);
    }
    let y = bottom + 34;
    for (const side of ["ref", "cmp"]) {
      const interval = plot[side + "_interval"];
      svgEl(svg, "text", { x: left - 4, y: y + 4, "text-anchor": "end", class: "muted" }, side);
      if (interval) {
        svgEl(svg, "line", { x1: sx(interval[0]), x2: sx(interval[2]), y1: y, y2: y, class: side });
        svgEl(svg, "circle", { cx: sx(interval[1]), cy: y, r: 3.2, class: side + "-dot" });
      } else {
        svgEl(svg, "text", { x: left + 4, y: y + 4, class: "muted" }, "no interval");
      }
      y += 16;
    }
  }

  function label(svg, x, y, left, right, text) {
    // Centred on x, but kept inside [left, right]: a label near an edge hangs inward.
    const room = 70;
    const anchor = x > right - room ? "end" : x < left + room ? "start" : "middle";
    const at = anchor === "end" ? Math.min(x + 6, right) : anchor === "start" ? Math.max(x - 6, left) : x;
    svgEl(svg, "text", { x: at, y: y, "text-anchor": anchor }, text);
  }

  function drawEffect(svg, plot, left, right, top, bottom) {
    const effect = plot.effect;
    const cycles = plot.cycles;
    const confidence = effect ? `${Math.round(effect.confidence * 100)}% CI` : "centers";
    svgEl(svg, "text", { x: left, y: 14 }, `Change, compare vs. reference (${confidence})`);
    const points = [0];
    const tolerance = effect && effect.tolerance !== undefined ? effect.tolerance : null;
    const band = tolerance === null ? null : [1 / (1 + tolerance) - 1, tolerance];
    if (band) points.push(...band);
    for (const e of [effect, cycles]) if (e) points.push(e.lo - 1, e.hi - 1);
    if (!effect && plot.center_change !== undefined) points.push(plot.center_change);
    let lo = Math.min(...points);
    let hi = Math.max(...points);
    if (!(hi > lo)) { lo -= 0.01; hi += 0.01; }
    const pad = (hi - lo) * 0.12;
    lo -= pad; hi += pad;
    const sx = (v) => left + ((v - lo) / (hi - lo)) * (right - left);
    if (band) svgEl(svg, "rect", { x: sx(band[0]), y: top, width: sx(band[1]) - sx(band[0]), height: bottom - top, class: "band" });
    svgEl(svg, "line", { x1: sx(0), x2: sx(0), y1: top, y2: bottom, class: "zero" });
    svgEl(svg, "line", { x1: left, x2: right, y1: bottom, y2: bottom, class: "axis" });
    const span = hi - lo;
    const digits = span < 0.02 ? 2 : span < 0.2 ? 1 : 0;
    for (const t of niceTicks(lo, hi, 4)) {
      svgEl(svg, "line", { x1: sx(t), x2: sx(t), y1: bottom, y2: bottom + 4, class: "axis" });
      svgEl(svg, "text", { x: sx(t), y: bottom + 15, "text-anchor": "middle", class: "muted" }, fmtPct(t, digits));
    }
    const lanes = [["time", effect, top + (bottom - top) * 0.33], ["cycles", cycles, top + (bottom - top) * 0.7]];
    for (const [name, e, y] of lanes) {
      if (!e) continue;
      svgEl(svg, "text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "muted" }, name);
      svgEl(svg, "line", { x1: sx(e.lo - 1), x2: sx(e.hi - 1), y1: y, y2: y, class: name === "time" ? "effect" : "cycles" });
      svgEl(svg, "circle", { cx: sx(e.ratio - 1), cy: y, r: 4, class: name === "time" ? "effect-dot" : "cycles-dot" });
      label(svg, sx(e.ratio - 1), y - 8, left, right,
        `${fmtPct(e.ratio - 1)} [${fmtPct(e.lo - 1)}, ${fmtPct(e.hi - 1)}]`);
    }
    if (!effect && plot.center_change !== undefined) {
      const y = top + (bottom - top) * 0.4;
      svgEl(svg, "circle", { cx: sx(plot.center_change), cy: y, r: 4, class: "effect-dot" });
      label(svg, sx(plot.center_change), y - 8, left, right, fmtPct(plot.center_change));
    }
    const note = band
      ? `tolerance band (SAME inside): ${fmtPct(band[0], 2)} to ${fmtPct(band[1], 2)}`
      : "change of the centers (no interval from this method)";
    svgEl(svg, "text", { x: left, y: bottom + 34, class: "muted" }, note);
  }

  function plotElement(plot, row) {
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 780 200");
    svg.setAttribute("width", "780");
    svg.setAttribute("height", "200");
    svg.setAttribute("class", "plot");
    svg.setAttribute("role", "img");
    svgEl(svg, "title", {}, `Sample distributions and change of ${row.benchmark} ${row.state}`);
    drawDistributions(svg, plot, 64, 400, 26, 128);
    drawEffect(svg, plot, 480, 760, 26, 128);
    return svg;
  }

  // ---------------------------------------------------------------------------------
  // Table rows

  function sideLine(row, side, word) {
    const parts = [`${word}: ${row[side + "_text"]}`];
    if (row[side + "_spread"] !== undefined) parts.push(`spread ${row[side + "_spread"]}`);
    if (row[side + "_samples"] !== undefined) parts.push(`${row[side + "_samples"]} samples`);
    return el("p", {}, [parts.join(" · ")]);
  }

  function detailElement(row) {
    let node = detailElements.get(row.id);
    if (node) return node;
    const reason = data.reasons[row.reason] || { alias: row.reason, message: "" };
    const box = el("div", { class: "details" }, [
      el("p", {}, [el("code", {}, [row.reason]), ` (${reason.alias}): ${row.message || reason.message}`]),
    ]);
    if (row.device_name) box.append(el("p", {}, [`Device ${row.device} ${row.device_name}`]));
    if (row.ref !== null || row.ref_text !== "n/a") box.append(sideLine(row, "ref", "Reference"));
    if (row.cmp !== null || row.cmp_text !== "n/a") box.append(sideLine(row, "cmp", "Compare"));
    if (row.plot !== undefined) {
      box.append(plotElement(data.plots[row.plot], row));
    } else if (plotted.has(row.status) && data.plots.length >= data.plot_limit) {
      box.append(el("p", { class: "note" }, [
        `No plot: only ${data.plot_limit} rows get one, the most changed first (--html-plots).`]));
    }
    node = el("tr", { class: "details", id: `details-${row.id}` }, [
      el("td", { colspan: columns.length + 1 }, [box]),
    ]);
    detailElements.set(row.id, node);
    return node;
  }

  function toggle(row, open) {
    const wanted = open === undefined ? !state.open.has(row.id) : open;
    if (wanted) state.open.add(row.id); else state.open.delete(row.id);
    const tr = rowElement(row);
    tr.querySelector(".expander").setAttribute("aria-expanded", String(wanted));
    if (wanted) tr.after(detailElement(row)); else detailElement(row).remove();
  }

  function cell(row, column) {
    if (column.type === "status") {
      const info = statusByCode.get(row.status);
      return el("td", { class: `status st-${info.key}`, title: `${info.word}: ${info.meaning}` }, [info.label]);
    }
    if (column.type === "reason") {
      const reason = data.reasons[row.reason];
      return el("td", { class: "reason", title: row.message || reason.message }, [reason.alias]);
    }
    const text = row[column.text || column.key];
    const attrs = { class: column.type === "number" ? "num" : column.key };
    if (column.key === "device" && row.device_name) attrs.title = row.device_name;
    return el("td", attrs, [text === null || text === undefined ? "" : String(text)]);
  }

  function rowElement(row) {
    let tr = rowElements.get(row.id);
    if (tr) return tr;
    const button = el("button", {
      type: "button", class: "expander", "aria-expanded": "false",
      "aria-controls": `details-${row.id}`, "aria-label": "Details",
      title: row.plot !== undefined ? "Details and plot" : "Details",
    }, ["▸"]);
    button.addEventListener("click", () => toggle(row));
    tr = el("tr", { class: row.plot !== undefined ? "row has-plot" : "row", id: `row-${row.id}` }, [
      el("td", {}, [button]),
      ...columns.map((column) => cell(row, column)),
    ]);
    rowElements.set(row.id, tr);
    return tr;
  }

  // ---------------------------------------------------------------------------------
  // Sorting and filtering

  for (const row of rows) {
    const reason = data.reasons[row.reason];
    row._text = [row.candidate, row.file, row.benchmark, row.device, row.device_name, row.state,
      row.status, statusByCode.get(row.status).word, row.reason, reason && reason.alias,
      row.ref_text, row.cmp_text, row.change_text]
      .filter((part) => part !== undefined && part !== null).join("\n").toLowerCase();
  }

  function compareRows(column, dir) {
    return (a, b) => {
      let order = 0;
      if (column.type === "number") {
        const x = a[column.key];
        const y = b[column.key];
        if (x === null || y === null) order = x === y ? 0 : x === null ? 1 : -1; // n/a last
        else order = dir * (x - y);
      } else if (column.type === "status") {
        order = dir * (statusByCode.get(a.status).rank - statusByCode.get(b.status).rank);
      } else {
        order = dir * collator.compare(String(a[column.key] ?? ""), String(b[column.key] ?? ""));
      }
      return order || a.id - b.id;
    };
  }

  function visibleRows() {
    const query = state.query.trim().toLowerCase();
    const terms = query ? query.split(/\s+/) : [];
    const chosen = rows.filter((row) =>
      state.statuses.has(row.status) &&
      (!state.benchmark || row.benchmark === state.benchmark) &&
      terms.every((term) => row._text.includes(term)));
    if (state.sortKey !== null) {
      const column = columns.find((c) => c.key === state.sortKey);
      chosen.sort(compareRows(column, state.sortDir));
    }
    return chosen;
  }

  // ---------------------------------------------------------------------------------
  // Page structure

  const main = document.getElementById("results");
  const tbody = el("tbody");
  const shown = el("span", { class: "shown", role: "status", "aria-live": "polite" });
  const search = el("input", {
    type: "search", placeholder: "Filter by text", "aria-label": "Filter rows by text",
  });
  const benchmarks = [...new Set(rows.map((row) => row.benchmark))];
  const benchmarkSelect = el("select", { "aria-label": "Benchmark" }, [
    el("option", { value: "" }, [`all benchmarks (${benchmarks.length})`]),
    ...benchmarks.map((name) => {
      const option = el("option", {}, [name]);
      option.value = name;
      return option;
    }),
  ]);
  const statusBoxes = new Map();
  const statusFilter = el("fieldset", { class: "status-filter" }, [el("legend", {}, ["Statuses shown"])]);
  for (const info of statuses) {
    if (info.count === 0) continue;
    const box = el("input", { type: "checkbox", value: info.code });
    box.checked = true;
    box.addEventListener("change", () => {
      if (box.checked) state.statuses.add(info.code); else state.statuses.delete(info.code);
      render();
    });
    statusBoxes.set(info.code, box);
    statusFilter.append(el("label", { class: `st-${info.key}`, title: info.meaning }, [
      box, `${info.label} (${info.count})`]));
  }
  const expandAll = el("button", { type: "button" }, ["Open rows with plots"]);
  const collapseAll = el("button", { type: "button" }, ["Close all"]);
  const toolbar = el("div", { class: "toolbar" }, [
    statusFilter, benchmarkSelect, search, expandAll, collapseAll, shown,
  ]);

  const headerButtons = new Map();
  const headerCells = [];
  function header(key, label, hint) {
    const arrow = el("span", { class: "arrow", "aria-hidden": "true" }, [""]);
    const button = el("button", { type: "button", title: hint }, [label, arrow]);
    const th = el("th", { scope: "col", "aria-sort": "none" }, [button]);
    button.addEventListener("click", () => sortBy(key));
    headerButtons.set(key, { th: th, arrow: arrow });
    headerCells.push(th);
  }
  header(null, "#", "Sort in the comparison's order");
  for (const column of columns) {
    const hint = column.type === "number" ? "Sort by value (largest first; again: smallest first)"
      : column.type === "status" ? "Sort by status (regressions first; again: reversed)"
        : "Sort alphabetically (again: reversed)";
    header(column.key, column.label, hint);
  }
  const table = el("table", { class: "rows" }, [el("thead", {}, [el("tr", {}, headerCells)]), tbody]);
  main.append(toolbar, table);
  const empty = el("p", { class: "empty", hidden: "" }, [
    rows.length ? "No rows match the filters." : "The comparison has no rows."]);
  main.append(empty);

  function sortBy(key) {
    if (key === null) {
      state.sortKey = null;
      state.sortDir = 1;
    } else if (state.sortKey === key) {
      state.sortDir = -state.sortDir;
    } else {
      const column = columns.find((c) => c.key === key);
      state.sortKey = key;
      state.sortDir = column.type === "number" ? -1 : 1;
    }
    render();
  }

  function render() {
    const chosen = visibleRows();
    const fragment = document.createDocumentFragment();
    for (const row of chosen) {
      fragment.append(rowElement(row));
      if (state.open.has(row.id)) fragment.append(detailElement(row));
    }
    tbody.replaceChildren(fragment);
    shown.textContent = `${chosen.length} of ${rows.length} rows`;
    empty.hidden = chosen.length > 0;
    for (const [key, parts] of headerButtons) {
      const active = key === state.sortKey;
      parts.th.setAttribute("aria-sort", active ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
      parts.arrow.textContent = active ? (state.sortDir > 0 ? "▲" : "▼") : "";
    }
  }

  function resetFilters() {
    for (const [code, box] of statusBoxes) {
      box.checked = true;
      state.statuses.add(code);
    }
    state.benchmark = "";
    benchmarkSelect.value = "";
    state.query = "";
    search.value = "";
  }

  function reveal(id) {
    const row = rows[id];
    if (!row) return;
    resetFilters();
    render();
    toggle(row, true);
    const tr = rowElement(row);
    for (const other of document.querySelectorAll("tr.target")) other.classList.remove("target");
    tr.classList.add("target");
    tr.scrollIntoView({ block: "center" });
  }

  search.addEventListener("input", () => { state.query = search.value; render(); });
  benchmarkSelect.addEventListener("change", () => { state.benchmark = benchmarkSelect.value; render(); });
  expandAll.addEventListener("click", () => {
    for (const row of visibleRows()) if (row.plot !== undefined) state.open.add(row.id);
    render();
    for (const id of state.open) rowElement(rows[id]).querySelector(".expander").setAttribute("aria-expanded", "true");
  });
  collapseAll.addEventListener("click", () => {
    for (const id of state.open) rowElement(rows[id]).querySelector(".expander").setAttribute("aria-expanded", "false");
    state.open.clear();
    render();
  });
  for (const button of document.querySelectorAll("button.count[data-status]")) {
    button.addEventListener("click", () => {
      const code = button.getAttribute("data-status");
      resetFilters();
      for (const [other, box] of statusBoxes) {
        box.checked = other === code;
        if (other !== code) state.statuses.delete(other);
      }
      render();
      toolbar.scrollIntoView({ block: "start" });
    });
  }
  for (const link of document.querySelectorAll("a[data-row]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      reveal(Number(link.getAttribute("data-row")));
    });
  }
  function stickyOffset() {
    document.documentElement.style.setProperty("--toolbar-height", `${toolbar.offsetHeight}px`);
  }
  window.addEventListener("resize", stickyOffset);

  render();
  stickyOffset();
  const target = /^#row-(\d+)$/.exec(window.location.hash);
  if (target) reveal(Number(target[1]));
})();
