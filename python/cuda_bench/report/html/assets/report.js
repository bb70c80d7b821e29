/* nvbench_compare HTML report: builds the table from the page's JSON data, sorts, filters
   and draws the plots of opened rows. Text from the data only ever enters the page through
   textContent and setAttribute, never as markup. Two layouts: one row per comparison row
   (pairwise), or with data.layout "matrix" one row per state whose cells hold each
   candidate's verdict; a column with a "candidate" reads its key from that cell. */
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
  const matrix = data.layout === "matrix";
  const candidateNames = data.candidates.map((c) => c.name);
  for (const row of rows) {
    // Shared texts are stored once (data.texts); resolve them for the table.
    if (row.message !== undefined) row.message = data.texts[row.message];
    if (row.device_name !== undefined) row.device_name = data.texts[row.device_name];
    // A matrix's cells come as columns per candidate: make each row's cell objects.
    if (matrix) row.cells = data.cells.map((fields) => cellOf(fields, row.id));
  }

  function cellOf(fields, index) {
    if (fields.status[index] === null) return null;
    const verdict = {};
    for (const [name, values] of Object.entries(fields)) {
      if (values[index] !== null) verdict[name] = values[index];
    }
    if (verdict.message !== undefined) verdict.message = data.texts[verdict.message];
    return verdict;
  }

  // A column's name for sorting: its key, with the candidate's position in a matrix.
  function columnId(column) {
    return column.candidate === undefined ? column.key : `${column.key}@${column.candidate}`;
  }

  // What a column reads: the row itself, or (matrix) one candidate's cell, maybe null.
  function source(row, column) {
    return column.candidate === undefined ? row : row.cells[column.candidate];
  }

  // The verdicts of a row the status filter looks at: every candidate's, or the chosen one's.
  function verdicts(row) {
    if (!matrix) return [row];
    const chosen = state.candidate < 0 ? row.cells : [row.cells[state.candidate]];
    return chosen.filter((verdict) => verdict);
  }

  function hasPlot(row) {
    return matrix ? row.cells.some((verdict) => verdict && verdict.plot !== undefined)
      : row.plot !== undefined;
  }

  const state = {
    sortKey: null, // null: the comparison's own row order
    sortDir: 1,
    statuses: new Set(statuses.filter((s) => s.count > 0).map((s) => s.code)),
    benchmark: "",
    candidate: -1, // matrix: -1 any candidate, else the candidate the status filter reads
    query: "",
    open: new Set(),
  };
  const rowElements = new Map();
  const detailElements = new Map();

  // Names come from result files: control characters and bidirectional overrides (which
  // reorder what a reader sees) are shown as escapes, as the terminal and markdown
  // reports show them (_untrusted.visible), in every text and tooltip the page writes.
  // The same characters as _untrusted.visible: controls, format, private-use, surrogate and
  // unassigned code points, separators, and the blank letters and selectors that show nothing.
  const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u3164\ufe00-\ufe0f\uffa0\u{e0100}-\u{e01ef}]/gu;
  const NAMED = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  function visibleText(text) {
    return String(text).replace(UNSAFE, (c) => {
      const code = c.codePointAt(0);
      if (NAMED[c]) return NAMED[c];
      if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
      return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
    });
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) {
        node.setAttribute(name, name === "title" || name.startsWith("aria-") ? visibleText(value) : String(value));
      }
    }
    for (const child of children || []) {
      node.append(typeof child === "string" ? document.createTextNode(visibleText(child)) : child);
    }
    return node;
  }

  function svgEl(parent, tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = visibleText(text);
    parent.append(node);
    return node;
  }

  // A status as its shape (inline SVG, no emoji font needed) and its code, as the
  // summary's badges (badges.py) are drawn.
  function badge(info) {
    const icon = document.createElementNS(SVG_NS, "svg");
    for (const [name, value] of Object.entries({ class: "icon", viewBox: "0 0 16 16", width: 16, height: 16,
      "aria-hidden": "true", focusable: "false" })) icon.setAttribute(name, String(value));
    svgEl(icon, "path", { fill: "currentColor", "fill-rule": "evenodd", d: info.shape });
    return el("span", { class: `badge st-${info.key}` }, [icon, el("span", { class: "badge-text" }, [info.label])]);
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
    const text = Math.abs(value).toFixed(digits === undefined ? 1 : digits);
    // A zero (what rounds to one) without a sign: "-0.0%" read as a negative change.
    if (Number(text) === 0) return text + "%";
    return (value > 0 ? "+" : "-") + text + "%";
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

  function drawDistributions(svg, plot, labels, left, right, top, bottom) {
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
      svgEl(svg, "text", { x: legendX + 26, y: 14 }, `${labels[side]} (n=${dist.n})`);
      legendX += Math.max(100, 40 + 7 * labels[side].length);
    }
    if (missing.length) {
      svgEl(svg, "text", { x: left + 6, y: top + 12, class: "muted" },
        `no sample times: ${missing.map((side) => labels[side]).join(", ")} (run with --jsonbin)`);
    }
    let y = bottom + 34;
    for (const side of ["ref", "cmp"]) {
      const interval = plot[side + "_interval"];
      svgEl(svg, "text", { x: left - 4, y: y + 4, "text-anchor": "end", class: "muted" }, labels[side]);
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

  function drawEffect(svg, plot, labels, left, right, top, bottom) {
    const effect = plot.effect;
    const cycles = plot.cycles;
    const confidence = effect ? `${+(effect.confidence * 100).toFixed(2)}% CI` : "centers";
    svgEl(svg, "text", { x: left, y: 14 }, `Change, ${labels.cmpWord} vs. ${labels.refWord} (${confidence})`);
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

  // Pairwise plots say ref/cmp; a matrix cell's name its baseline and candidate.
  const PAIR_LABELS = { ref: "ref", cmp: "cmp", refWord: "reference", cmpWord: "compare" };

  function plotElement(plot, row, labels) {
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 780 200");
    svg.setAttribute("width", "780");
    svg.setAttribute("height", "200");
    svg.setAttribute("class", "plot");
    svg.setAttribute("role", "img");
    const subject = matrix ? ` (${labels.cmpWord})` : "";
    svgEl(svg, "title", {}, `Sample distributions and change of ${row.benchmark} ${row.state}${subject}`);
    drawDistributions(svg, plot, labels, 64, 400, 26, 128);
    drawEffect(svg, plot, labels, 480, 760, 26, 128);
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
    if (matrix) return detailRow(row, matrixDetails(row));
    const reason = data.reasons[row.reason] || { alias: row.reason, message: "" };
    const box = el("div", { class: "details" }, [
      el("p", {}, [el("code", {}, [row.reason]), ` (${reason.alias}): ${row.message || reason.message}`]),
    ]);
    if (row.device_name) box.append(el("p", {}, [`Device ${row.device} ${row.device_name}`]));
    if (row.ref !== null || row.ref_text !== "n/a") box.append(sideLine(row, "ref", "Reference"));
    if (row.cmp !== null || row.cmp_text !== "n/a") box.append(sideLine(row, "cmp", "Compare"));
    if (row.plot !== undefined) {
      box.append(plotElement(data.plots[row.plot], row, PAIR_LABELS));
    } else if (plotted.has(row.status) && data.plots.length >= data.plot_limit) {
      box.append(el("p", { class: "note" }, [
        `No plot: only ${data.plot_limit} rows get one, the most changed first (--html-plots).`]));
    }
    return detailRow(row, box);
  }

  function detailRow(row, box) {
    const node = el("tr", { class: "details", id: `details-${row.id}` }, [
      el("td", { colspan: columns.length + 1 }, [box]),
    ]);
    detailElements.set(row.id, node);
    return node;
  }

  function matrixDetails(row) {
    const base = data.reference.name;
    const box = el("div", { class: "details" }, []);
    if (row.device_name) box.append(el("p", {}, [`Device ${row.device} ${row.device_name}`]));
    if (row.base !== null || row.base_text !== "n/a") box.append(sideLine(row, "base", base));
    box.append(el("p", {}, [`Best: ${row.best}`]));
    row.cells.forEach((verdict, k) => {
      const name = candidateNames[k];
      const part = el("section", { class: "candidate", "data-candidate": k }, []);
      box.append(part);
      if (!verdict) {
        part.append(el("h3", {}, [name]), el("p", { class: "note" }, ["No row for this state."]));
        return;
      }
      const info = statusByCode.get(verdict.status);
      const reason = data.reasons[verdict.reason] || { alias: verdict.reason, message: "" };
      part.append(
        el("h3", {}, [`${name}: `, badge(info), ` ${verdict.change_text}`]),
        el("p", {}, [el("code", {}, [verdict.reason]), ` (${reason.alias}): ${verdict.message || reason.message}`]),
      );
      if (verdict.cmp_text !== "n/a") part.append(sideLine(verdict, "cmp", name));
      if (verdict.plot !== undefined) {
        const labels = { ref: base, cmp: name, refWord: base, cmpWord: name };
        part.append(plotElement(data.plots[verdict.plot], row, labels));
      } else if (plotted.has(verdict.status) && data.plots.length >= data.plot_limit) {
        part.append(el("p", { class: "note" }, [
          `No plot: only ${data.plot_limit} cells get one, the most changed first (--html-plots).`]));
      }
    });
    return box;
  }

  function toggle(row, open) {
    const wanted = open === undefined ? !state.open.has(row.id) : open;
    if (wanted) state.open.add(row.id); else state.open.delete(row.id);
    const tr = rowElement(row);
    tr.querySelector(".expander").setAttribute("aria-expanded", String(wanted));
    if (wanted) tr.after(detailElement(row)); else detailElement(row).remove();
  }

  function cell(row, column) {
    const from = source(row, column);
    if (!from) {
      return el("td", { class: "none", title: `${candidateNames[column.candidate]} has no row for this state` }, ["–"]);
    }
    if (column.type === "status") {
      const info = statusByCode.get(from.status);
      const reason = data.reasons[from.reason];
      const why = matrix && reason ? ` (${reason.alias}: ${from.message || reason.message})` : "";
      return el("td", { class: `status st-${info.key}`, title: `${info.word}: ${info.meaning}${why}` }, [badge(info)]);
    }
    if (column.type === "reason") {
      const reason = data.reasons[row.reason];
      return el("td", { class: "reason", title: row.message || reason.message }, [reason.alias]);
    }
    const text = from[column.text || column.key];
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
      title: hasPlot(row) ? "Details and plot" : "Details",
    }, ["▸"]);
    button.addEventListener("click", () => toggle(row));
    tr = el("tr", { class: hasPlot(row) ? "row has-plot" : "row", id: `row-${row.id}` }, [
      el("td", {}, [button]),
      ...columns.map((column) => cell(row, column)),
    ]);
    rowElements.set(row.id, tr);
    return tr;
  }

  // ---------------------------------------------------------------------------------
  // Sorting and filtering

  function verdictTexts(verdict) {
    const reason = data.reasons[verdict.reason];
    return [verdict.status, statusByCode.get(verdict.status).word, verdict.reason,
      reason && reason.alias, verdict.cmp_text, verdict.change_text];
  }

  for (const row of rows) {
    const parts = matrix
      ? [row.benchmark, row.device, row.device_name, row.state, row.base_text, row.best,
        ...row.cells.flatMap((verdict) => (verdict ? verdictTexts(verdict) : []))]
      : [row.candidate, row.file, row.benchmark, row.device, row.device_name, row.state,
        ...verdictTexts(row).slice(0, 4), row.ref_text, row.cmp_text, row.change_text];
    row._text = parts.filter((part) => part !== undefined && part !== null).join("\n").toLowerCase();
  }

  function compareRows(column, dir) {
    return (a, b) => {
      let order = 0;
      const p = source(a, column);
      const q = source(b, column);
      if (!p || !q) {
        order = p === q ? 0 : p ? -1 : 1; // a state a candidate lacks: last
      } else if (column.type === "number") {
        const x = p[column.key] ?? null; // a matrix cell leaves out what is null
        const y = q[column.key] ?? null;
        if (x === null || y === null) order = x === y ? 0 : x === null ? 1 : -1; // n/a last
        else order = dir * (x - y);
      } else if (column.type === "status") {
        order = dir * (statusByCode.get(p.status).rank - statusByCode.get(q.status).rank);
      } else {
        order = dir * collator.compare(String(p[column.key] ?? ""), String(q[column.key] ?? ""));
      }
      return order || a.id - b.id;
    };
  }

  function visibleRows() {
    const query = state.query.trim().toLowerCase();
    const terms = query ? query.split(/\s+/) : [];
    const chosen = rows.filter((row) =>
      verdicts(row).some((verdict) => state.statuses.has(verdict.status)) &&
      (!state.benchmark || row.benchmark === state.benchmark) &&
      terms.every((term) => row._text.includes(term)));
    if (state.sortKey !== null) {
      const column = columns.find((c) => columnId(c) === state.sortKey);
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
      box, badge(info), ` (${info.count})`]));
  }
  const candidateSelect = el("select", { "aria-label": "Statuses of", class: "candidate" }, [
    el("option", { value: "-1" }, ["statuses of any candidate"]),
    ...candidateNames.map((name, k) => {
      const option = el("option", { value: k }, [`statuses of ${name}`]);
      return option;
    }),
  ]);
  const expandAll = el("button", { type: "button" }, ["Open rows with plots"]);
  const collapseAll = el("button", { type: "button" }, ["Close all"]);
  const toolbar = el("div", { class: "toolbar" }, [
    statusFilter, ...(matrix ? [candidateSelect] : []), benchmarkSelect, search, expandAll,
    collapseAll, shown,
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
    header(columnId(column), column.label, hint);
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
      const column = columns.find((c) => columnId(c) === key);
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
    state.candidate = -1;
    candidateSelect.value = "-1";
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
  candidateSelect.addEventListener("change", () => { state.candidate = Number(candidateSelect.value); render(); });
  expandAll.addEventListener("click", () => {
    for (const row of visibleRows()) if (hasPlot(row)) state.open.add(row.id);
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
      if (matrix && button.hasAttribute("data-candidate")) {
        state.candidate = Number(button.getAttribute("data-candidate"));
        candidateSelect.value = String(state.candidate);
      }
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
