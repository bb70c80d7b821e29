// nvbench-history benchmark page: one panel per series, its chart drawn when it scrolls
// into view. Data arrives through nvbenchHistory(...) from the page's data script; text
// from it reaches the page through textContent only.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 1000;
const HEIGHT = 200;
const PAD = { left: 70, right: 10, top: 10, bottom: 36 };
// Most commit labels under a chart, and y ticks aimed at (a 1-2-5 step between them).
const X_LABELS = 8;
const Y_TICKS = 5;

function element(tag, attributes, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, text, className, parent) {
  const node = document.createElement(tag);
  if (text !== null) node.textContent = text;
  if (className) node.className = className;
  if (parent) parent.appendChild(node);
  return node;
}

// A time in the largest unit it reaches, with 3 decimals, or with step (the distance
// between the ticks it labels) as many as tell ticks that close apart, in the unit that
// reference (the axis' largest time) reaches, so that one axis keeps one unit.
function duration(seconds, step, reference) {
  const units = [[1, "s"], [1e-3, "ms"], [1e-6, "us"], [1e-9, "ns"]];
  const size = Math.abs(reference === undefined ? seconds : reference);
  for (const [scale, name] of units) {
    if (size >= scale || scale === 1e-9) {
      const digits = step ? Math.min(12, Math.max(3, Math.ceil(-Math.log10(step / scale) - 1e-9))) : 3;
      return (seconds / scale).toFixed(digits) + " " + name;
    }
  }
  return String(seconds);
}

// Round tick values between lo and hi (1, 2 or 5 times a power of ten apart).
function ticks(lo, hi, count) {
  const raw = (hi - lo) / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = power * ([1, 2, 5, 10].find((m) => raw <= power * m) || 10);
  const out = [];
  for (let value = Math.ceil(lo / step) * step; value <= hi + step * 1e-9; value += step) out.push(value);
  return out;
}

function drawChart(svg, series, commits) {
  const runs = series.median.length;
  // Each run's own interval; a run without one (null) is bounded by its median.
  const lows = series.median.map((median, run) => (series.lo && series.lo[run] != null ? series.lo[run] : median));
  const highs = series.median.map((median, run) => (series.hi && series.hi[run] != null ? series.hi[run] : median));
  // A level of too few runs has no interval (nulls), which Math.min would read as 0.
  const [since, , levelLo, levelHi] = series.level;
  const banded = levelLo != null && levelHi != null;
  let bottom = Math.min(...lows, ...(banded ? [levelLo] : []));
  let top = Math.max(...highs, ...(banded ? [levelHi] : []));
  if (!(top > bottom)) { top = bottom * 1.01 + 1e-12; bottom = bottom * 0.99; }
  const margin = (top - bottom) * 0.05;
  bottom -= margin; top += margin;
  const x = (run) => PAD.left + (runs > 1 ? run / (runs - 1) : 0.5) * (WIDTH - PAD.left - PAD.right);
  const y = (value) => PAD.top + (top - value) / (top - bottom) * (HEIGHT - PAD.top - PAD.bottom);
  element("line", { class: "axis", x1: PAD.left, x2: WIDTH - PAD.right,
                    y1: HEIGHT - PAD.bottom, y2: HEIGHT - PAD.bottom }, svg);
  const marks = ticks(bottom, top, Y_TICKS);
  // One step and one unit for the whole axis.
  const step = marks.length > 1 ? marks[1] - marks[0] : 0;
  const largest = Math.max(...marks.map(Math.abs));
  for (const value of marks) {
    element("line", { class: "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value) }, svg);
    const label = element("text", { class: "ytick", x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end" }, svg);
    label.textContent = duration(value, step, largest);
  }
  const every = Math.max(1, Math.ceil(runs / X_LABELS));
  for (let run = 0; run < runs; run += every) {
    const label = element("text", { class: "xtick", x: x(run), y: HEIGHT - PAD.bottom + 13,
                                    "text-anchor": runs > 1 ? "middle" : "start" }, svg);
    label.textContent = commits[series.commits[run]].slice(0, 8);
  }
  if (banded) {
    element("rect", { class: "level", x: x(since), y: y(levelHi),
                      width: Math.max(x(runs - 1) - x(since), 2), height: Math.max(y(levelLo) - y(levelHi), 1) }, svg);
  }
  for (const creep of series.creeps || []) {
    // The ramp, from the last run of the old level to the first of the new one.
    const from = x(Math.max(creep.first - 1, 0));
    const band = element("rect", { class: "creep " + creep.status.toLowerCase(), x: from, y: PAD.top,
                                   width: Math.max(x(creep.end) - from, 2), height: HEIGHT - PAD.top - PAD.bottom }, svg);
    const tip = element("title", {}, band);
    tip.textContent = "creep " + creep.status + " from " + commits[series.commits[creep.first]] + " to " +
      commits[series.commits[creep.end]] + ": ratio " + creep.ratio;
  }
  for (const change of series.changes) {
    const at = (x(change.index - 1) + x(change.index)) / 2;
    const line = element("line", { class: "change " + change.status.toLowerCase(), x1: at, x2: at,
                                   y1: PAD.top, y2: HEIGHT - PAD.bottom }, svg);
    const tip = element("title", {}, line);
    tip.textContent = change.status + " at " + commits[series.commits[change.index]] + ": ratio " + change.ratio;
  }
  for (let run = 0; run < runs; run++) {
    if (series.lo && series.lo[run] != null && series.hi[run] != null) {
      element("line", { class: "bar", x1: x(run), x2: x(run), y1: y(series.lo[run]), y2: y(series.hi[run]) }, svg);
    }
    const point = element("circle", { class: "point", cx: x(run), cy: y(series.median[run]), r: 2.5 }, svg);
    const tip = element("title", {}, point);
    tip.textContent = commits[series.commits[run]].slice(0, 12) + " " + series.dates[run] + ": " +
      duration(series.median[run]);
  }
  const first = element("text", { x: PAD.left, y: HEIGHT - 6 }, svg);
  first.textContent = series.dates[0];
  const last = element("text", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end" }, svg);
  last.textContent = series.dates[runs - 1];
}

function nvbenchHistory(data) {
  const main = document.getElementById("series");
  const pending = new Map();
  const observer = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting || !pending.has(entry.target)) continue;
      drawChart(entry.target, pending.get(entry.target), data.commits);
      pending.delete(entry.target);
      observer.unobserve(entry.target);
    }
  }, { rootMargin: "400px" }) : null;
  for (const series of data.series) {
    const panel = html("section", null, "series", main);
    // A state without axes has no name (as in nvbench_compare): its device, or "(no axes)".
    const title = [series.state, series.deviceText].filter((part) => part).join(" \u2014 ");
    html("h2", title || "(no axes)", null, panel);
    const changes = series.changes.map((c) => c.status + " at " + data.commits[series.commits[c.index]].slice(0, 12) +
      " (ratio " + c.ratio + ")");
    for (const c of series.creeps || []) {
      changes.push("creep " + c.status + " from " + data.commits[series.commits[c.first]].slice(0, 12) + " to " +
        data.commits[series.commits[c.end]].slice(0, 12) + " (ratio " + c.ratio + ")");
    }
    const tested = series.scanned === false
      // Too few runs for the scan to test anything: no "no change", no false-alarm rate.
      ? "too short to test for changes" + (data.fewestRuns ? " (a series needs at least " + data.fewestRuns + " runs)" : "")
      : (changes.length ? changes.join("; ") : "no change") +
        "; false-alarm rate " + (100 * series.falseAlarm).toFixed(2) + "%" +
        (series.smallest === null ? "" : "; smallest detectable change " + (100 * series.smallest).toFixed(1) + "%");
    const facts = series.median.length + " runs; current level " + series.levelText +
      " over " + (series.median.length - series.level[0]) + " runs; " + tested;
    html("p", facts, "facts", panel);
    const svg = element("svg", { class: "chart", viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img" }, panel);
    if (observer) { pending.set(svg, series); observer.observe(svg); }
    else drawChart(svg, series, data.commits);
  }
}
