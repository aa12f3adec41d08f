// Sluice dashboard: reads the JSON API (docs/monitoring.md) once a second and draws the overview (#/) or one job
// (#/job/<db>/<name>[?kind=pipe]). The browser's HTTP Basic login for the page covers these requests; the page
// holds no credentials. Everything from the server is inserted as text (never as HTML): job names, reasons and
// rejected rows are user data.
"use strict";

const POLL_MS = 1000;
const HISTORY_MS = 5 * 60 * 1000;  // how far back the charts reach (samples kept in this page since it opened)
const RATE_WINDOW_MS = 5000;       // rows/s: rows loaded over the last few seconds
const PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#65a30d",
                 "#9333ea", "#ea580c", "#0d9488", "#4f46e5"];

const KIND_LABEL = {routine_load: "Routine load", pipe: "Kafka pipe", volume_pipe: "Volume pipe"};
const STATE_TONE = {
  RUNNING: "ok", NEED_SCHEDULE: "info", PAUSED: "warn", SUSPENDED: "warn",
  STOPPED: "muted", CANCELLED: "bad", FAILED: "bad",
};
const PAUSABLE = new Set(["RUNNING", "NEED_SCHEDULE"]);
const RESUMABLE = new Set(["PAUSED", "SUSPENDED"]);

// ---- small DOM helpers -------------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

// ---- formatting ---------------------------------------------------------------------------------------------

function fmtCount(n) {
  if (n === null || n === undefined) return "—";
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(a >= 1e10 ? 0 : 1) + "B";
  if (a >= 1e6) return (n / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
  if (a >= 1e4) return (n / 1e3).toFixed(a >= 1e5 ? 0 : 1) + "k";
  return Math.round(n).toLocaleString("en-US");
}

function fmtRate(r) {
  if (r === null || r === undefined) return "—";
  if (r > 0 && r < 10) return r.toFixed(1);
  return fmtCount(r);
}

function fmtDuration(sec) {
  if (sec === null || sec === undefined || sec < 0) return "—";
  if (sec < 1) return "now";
  if (sec < 60) return Math.round(sec) + " s";
  if (sec < 3600) return Math.floor(sec / 60) + " min " + String(Math.round(sec % 60)).padStart(2, "0") + " s";
  if (sec < 86400) return Math.floor(sec / 3600) + " h " + Math.floor((sec % 3600) / 60) + " min";
  return Math.floor(sec / 86400) + " d " + Math.floor((sec % 86400) / 3600) + " h";
}

function fmtAgo(ms, nowMs) {
  if (!ms) return "never";
  const sec = (nowMs - ms) / 1000;
  return sec < 1 ? "just now" : fmtDuration(sec) + " ago";
}

function fmtBytes(b) {
  if (!b) return "0 B";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (b >= 1024 && i < units.length - 1) b /= 1024, i++;
  return (i ? b.toFixed(b >= 10 ? 0 : 1) : b) + " " + units[i];
}

function statePill(state) {
  return h("span", {class: "pill pill-" + (STATE_TONE[state] || "muted"), "data-state": state}, state || "?");
}

function kindBadge(kind) {
  return h("span", {class: "kind kind-" + kind}, KIND_LABEL[kind] || kind);
}

function jobKey(job) { return job.kind + "/" + job.db + "/" + job.name; }

function jobHref(job) {
  return "#/job/" + encodeURIComponent(job.db) + "/" + encodeURIComponent(job.name) +
         (job.kind === "routine_load" ? "" : "?kind=pipe");
}

function apiPath(db, name, pipe) {
  return "/api/jobs/" + encodeURIComponent(db) + "/" + encodeURIComponent(name);
}

function lastError(job) { return job.reason || job.other_msg || ""; }

// ---- history kept in the page ------------------------------------------------------------------------------

// Per job: samples {t, rows, lag} from the overview's polls, for rows/s and sparklines.
const jobHistory = new Map();
// Per job page: samples {t, lags: {partition: lag}}.
const partitionHistory = new Map();

function remember(map, key, sample) {
  let list = map.get(key);
  if (!list) map.set(key, list = []);
  if (list.length && list[list.length - 1].t === sample.t) return list;
  list.push(sample);
  while (list.length && list[0].t < sample.t - HISTORY_MS) list.shift();
  return list;
}

function rateOf(list) {
  if (!list || list.length < 2) return null;
  const last = list[list.length - 1];
  let first = list[0];
  for (const p of list) if (p.t >= last.t - RATE_WINDOW_MS) { first = p; break; }
  if (first === last) first = list[list.length - 2];
  const dt = (last.t - first.t) / 1000;
  return dt > 0 ? Math.max(0, (last.rows - first.rows) / dt) : null;
}

// Rows/s at each sample (over the rate window ending there), for the rows/s chart and sparklines.
function rateSeries(list) {
  const out = [];
  for (let i = 1; i < (list || []).length; i++) {
    const end = list[i];
    let j = i - 1;
    while (j > 0 && list[j - 1].t >= end.t - RATE_WINDOW_MS) j--;
    const dt = (end.t - list[j].t) / 1000;
    if (dt > 0) out.push({t: end.t, v: Math.max(0, (end.rows - list[j].rows) / dt)});
  }
  return out;
}

// ---- charts -------------------------------------------------------------------------------------------------

// The y axis: a round step (1, 2, 2.5 or 5 times a power of ten; at least 1, counts being whole numbers) and
// 3 to 4 intervals of it reaching past the largest value.
function yAxis(v) {
  const want = Math.max(1, v / 4);
  const p = Math.pow(10, Math.floor(Math.log10(want)));
  let step = 10 * p;
  for (const m of [1, 2, 2.5, 5]) if (m * p >= want) { step = m * p; break; }
  const n = Math.max(3, Math.ceil(v / step));
  return {step, max: step * n, n};
}

// How far back a chart reaches: the samples this page has (at least a minute), up to HISTORY_MS.
function chartSpan(firstT, nowMs) {
  const have = firstT ? nowMs - firstT : 0;
  const steps = [60e3, 120e3, 180e3, HISTORY_MS];
  for (const span of steps) if (have <= span) return span;
  return HISTORY_MS;
}

// A line chart of series [{label, color, points: [{t, v}]}] over the last `spanMs`, ending at `nowMs`.
function lineChart(series, {width, height, nowMs, spanMs, unit}) {
  const pad = {l: 52, r: 14, t: 12, b: 26};
  const w = Math.max(240, width), plotW = w - pad.l - pad.r, plotH = height - pad.t - pad.b;
  let max = 0;
  for (const sr of series) for (const p of sr.points) if (p.v > max) max = p.v;
  const axis = yAxis(max);
  max = axis.max;
  const x = (t) => pad.l + plotW * (1 - (nowMs - t) / spanMs);
  const y = (v) => pad.t + plotH * (1 - v / max);
  const svg = s("svg", {class: "chart", width: w, height, viewBox: `0 0 ${w} ${height}`, role: "img"});
  for (let i = 0; i <= axis.n; i++) {
    const v = axis.step * i, yy = y(v);
    svg.appendChild(s("line", {x1: pad.l, x2: w - pad.r, y1: yy, y2: yy, class: i ? "grid" : "axis"}));
    svg.appendChild(s("text", {x: pad.l - 8, y: yy + 4, class: "tick", "text-anchor": "end"}, fmtCount(v)));
  }
  const spanSec = spanMs / 1000;
  for (const frac of [0, 0.25, 0.5, 0.75, 1]) {
    const xx = pad.l + plotW * frac, ago = Math.round(spanSec * (1 - frac));
    svg.appendChild(s("text", {x: xx, y: height - 6, class: "tick", "text-anchor": frac === 0 ? "start" : frac === 1 ? "end" : "middle"},
                      ago === 0 ? "now" : ago >= 60 ? `−${Math.round(ago / 60)} min` : `−${ago} s`));
  }
  let any = false;
  for (const sr of series) {
    const pts = sr.points.filter((p) => p.t >= nowMs - spanMs && p.v !== null && p.v !== undefined);
    if (!pts.length) continue;
    any = true;
    const d = pts.map((p, i) => (i ? "L" : "M") + x(p.t).toFixed(1) + " " + y(p.v).toFixed(1)).join(" ");
    if (pts.length > 1) {
      const area = d + ` L${x(pts[pts.length - 1].t).toFixed(1)} ${y(0)} L${x(pts[0].t).toFixed(1)} ${y(0)} Z`;
      svg.appendChild(s("path", {d: area, fill: sr.color, "fill-opacity": series.length > 1 ? 0.06 : 0.12, stroke: "none"}));
    }
    svg.appendChild(s("path", {d, fill: "none", stroke: sr.color, "stroke-width": 2, "stroke-linejoin": "round"}));
    const last = pts[pts.length - 1];
    svg.appendChild(s("circle", {cx: x(last.t), cy: y(last.v), r: 3.5, fill: sr.color}));
  }
  if (!any)
    svg.appendChild(s("text", {x: pad.l + plotW / 2, y: pad.t + plotH / 2, class: "empty", "text-anchor": "middle"},
                      "collecting samples…"));
  if (unit) svg.appendChild(s("text", {x: pad.l + 6, y: pad.t + 12, class: "unit"}, unit));
  return svg;
}

function sparkline(points, color) {
  const w = 96, hgt = 26;
  const svg = s("svg", {class: "spark", width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, "aria-hidden": "true"});
  if (points.length < 2) return svg;
  const t0 = points[0].t, t1 = points[points.length - 1].t;
  const max = Math.max(...points.map((p) => p.v)) || 1;
  const d = points.map((p, i) => (i ? "L" : "M") + ((w - 2) * (p.t - t0) / Math.max(1, t1 - t0) + 1).toFixed(1) + " " +
                                   (hgt - 2 - (hgt - 4) * p.v / max).toFixed(1)).join(" ");
  svg.appendChild(s("path", {d, fill: "none", stroke: color, "stroke-width": 1.5}));
  return svg;
}

// ---- talking to the server ----------------------------------------------------------------------------------

let signedInUser = "";

async function getJson(path) {
  const res = await fetch(path, {headers: {Accept: "application/json"}, cache: "no-store", credentials: "same-origin"});
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(body.error || `HTTP ${res.status}`), {status: res.status});
  return body;
}

async function control(job, action) {
  const res = await fetch(apiPath(job.db, job.name) + "/" + action + (job.kind === "routine_load" ? "" : "?kind=pipe"),
                          {method: "POST", credentials: "same-origin", headers: {Accept: "application/json"}});
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}

function toast(message, tone) {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = "toast toast-" + (tone || "info");
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, tone === "bad" ? 8000 : 3500);
}

function controlButton(job, onDone) {
  if (!job.may_control) return null;
  let action = null;
  if (PAUSABLE.has(job.state)) action = "pause";
  else if (RESUMABLE.has(job.state)) action = "resume";
  if (!action) return null;
  const label = action === "pause" ? "Pause" : "Resume";
  const btn = h("button", {
    class: "btn btn-" + action, "data-action": action, type: "button",
    title: (action === "pause" ? "Stop loading " : "Start loading ") + job.db + "." + job.name + " again",
    onclick: async (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      btn.disabled = true;
      btn.textContent = action === "pause" ? "Pausing…" : "Resuming…";
      try {
        await control(job, action);
        toast(`${job.db}.${job.name} ${action === "pause" ? "paused" : "resumed"}`, "ok");
      } catch (e) {
        toast(`Could not ${action} ${job.db}.${job.name}: ${e.message}`, "bad");
      }
      onDone();
    },
  }, h("span", {class: "btn-icon", "aria-hidden": "true"}, action === "pause" ? "❚❚" : "▶"), label);
  return btn;
}

// ---- views --------------------------------------------------------------------------------------------------

function setCrumbs(parts) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren(...parts.map((p, i) => h("span", {class: "crumb"}, i ? h("span", {class: "sep"}, "/") : null, p)));
}

function card(label, value, sub, tone) {
  return h("div", {class: "card" + (tone ? " card-" + tone : "")},
           h("div", {class: "card-label"}, label), h("div", {class: "card-value"}, value),
           sub ? h("div", {class: "card-sub"}, sub) : null);
}

function lagCell(job) {
  if (job.kind === "volume_pipe") {
    const files = job.files_pending || 0;
    return h("span", {class: files ? "num" : "num dim"}, files ? `${fmtCount(files)} file${files === 1 ? "" : "s"}` : "0 files",
             files ? h("span", {class: "dim"}, " · " + fmtBytes(job.bytes_pending)) : null);
  }
  if (job.lag === null || job.lag === undefined || job.lag < 0) return h("span", {class: "dim"}, "—");
  const lag = h("span", {class: "num" + (job.lag > 0 ? "" : " dim")}, fmtCount(job.lag));
  // A job that does not run does not ask the broker for new offsets: its lag is the one last seen.
  if (PAUSABLE.has(job.state)) return lag;
  return h("span", {title: "as last seen while the job ran; a job that is not running does not read the broker's offsets"},
           lag, h("div", {class: "sub dim"}, "last seen"));
}

function renderOverview(data) {
  setCrumbs(["Jobs"]);
  const jobs = data.jobs.slice().sort((a, b) => (a.db + "." + a.name).localeCompare(b.db + "." + b.name) ||
                                                a.kind.localeCompare(b.kind));
  const attention = jobs.filter((j) => ["PAUSED", "SUSPENDED", "CANCELLED", "FAILED"].includes(j.state));
  const running = jobs.filter((j) => j.state === "RUNNING" || j.state === "NEED_SCHEDULE");
  let totalRate = 0, totalLag = 0, worstFresh = null;
  for (const j of jobs) {
    totalRate += rateOf(jobHistory.get(jobKey(j))) || 0;
    if (j.lag > 0) totalLag += j.lag;
    if (j.freshness_seconds !== null && j.freshness_seconds !== undefined)
      worstFresh = Math.max(worstFresh ?? 0, j.freshness_seconds);
  }
  const cards = h("section", {class: "cards"},
    card("Jobs", fmtCount(jobs.length), `${running.length} running`),
    card("Need attention", fmtCount(attention.length),
         attention.length ? attention.slice(0, 3).map((j) => j.name).join(", ") + (attention.length > 3 ? "…" : "") : "all good",
         attention.length ? "warn" : "ok"),
    card("Rows per second", fmtRate(totalRate), "all jobs, last 5 s"),
    card("Messages behind", fmtCount(totalLag), "Kafka lag, all partitions", totalLag > 0 ? "info" : null),
    card("Oldest unloaded data", worstFresh === null ? "—" : fmtDuration(worstFresh), "worst freshness"));

  let body;
  if (!jobs.length) {
    body = h("div", {class: "empty-state"},
             h("h2", {}, "No jobs to show yet"),
             h("p", {}, "Jobs appear here as soon as they exist and you may see them. Create one over the MySQL port:"),
             h("pre", {}, "CREATE ROUTINE LOAD db.job ON table\n  FROM KAFKA (\"kafka_broker_list\" = \"host:9092\", \"kafka_topic\" = \"events\");"),
             h("p", {class: "dim"}, `You are signed in as ${signedInUser}: jobs load tables, and a job is listed to users with a privilege on its table.`));
  } else {
    const rows = jobs.map((j) => {
      const hist = jobHistory.get(jobKey(j));
      const rate = rateOf(hist);
      const err = lastError(j);
      const tr = h("tr", {class: "job-row state-" + (STATE_TONE[j.state] || "muted"), "data-job": j.db + "." + j.name,
                          "data-kind": j.kind, tabindex: 0,
                          onclick: () => { location.hash = jobHref(j); },
                          onkeydown: (e) => { if (e.key === "Enter") location.hash = jobHref(j); }},
        h("td", {}, statePill(j.state)),
        h("td", {class: "job-name"}, h("a", {href: jobHref(j), onclick: (e) => e.stopPropagation()}, j.name),
          h("div", {class: "sub"}, kindBadge(j.kind), h("span", {class: "dim"}, j.db + "." + j.table))),
        h("td", {class: "right"}, h("div", {class: "rate"}, h("span", {class: "num"}, fmtRate(rate)),
                                    sparkline(rateSeries(hist).slice(-60), "#2563eb"))),
        h("td", {class: "right"}, h("span", {class: "num"}, fmtCount(j.rows_loaded)),
          j.rows_error ? h("div", {class: "sub bad-text"}, fmtCount(j.rows_error) + " rejected") : null),
        h("td", {class: "right"}, lagCell(j)),
        h("td", {class: "right"}, h("span", {class: j.freshness_seconds > 0 ? "num" : "num dim"},
                                    j.freshness_seconds === null || j.freshness_seconds === undefined ? "—" : fmtDuration(j.freshness_seconds))),
        h("td", {class: "err"}, err ? h("span", {class: "err-text", title: err}, err) : h("span", {class: "dim"}, "—")),
        h("td", {class: "right actions"}, controlButton(j, refreshNow)));
      return tr;
    });
    body = h("section", {class: "panel"},
      h("div", {class: "panel-head"}, h("h2", {}, "Jobs"),
        h("span", {class: "dim"}, "routine loads, Kafka pipes and volume pipes you may see · click a job for its details")),
      h("table", {class: "jobs"},
        h("thead", {}, h("tr", {},
          h("th", {}, "State"), h("th", {}, "Job"), h("th", {class: "right"}, "Rows/s"),
          h("th", {class: "right"}, "Rows loaded"), h("th", {class: "right", title: "Kafka messages not loaded yet; for volume pipes, files waiting"}, "Lag"),
          h("th", {class: "right", title: "Age of the oldest data not loaded yet"}, "Freshness"),
          h("th", {}, "Last error / reason"), h("th", {}, ""))),
        h("tbody", {}, rows)));
  }
  document.getElementById("app").replaceChildren(cards, body, footer());
}

function table(headers, rows, emptyText) {
  if (!rows.length) return h("p", {class: "dim empty-row"}, emptyText);
  return h("table", {class: "grid-table"},
           h("thead", {}, h("tr", {}, headers.map((x) => h("th", {class: x.right ? "right" : null}, x.label || x)))),
           h("tbody", {}, rows));
}

function renderJob(job) {
  const now = job.now_ms;
  setCrumbs([h("a", {href: "#/"}, "Jobs"), job.db, job.name]);
  const key = jobKey(job);
  const hist = jobHistory.get(key) || [];
  const rate = rateOf(hist);
  const phist = partitionHistory.get(key) || [];

  const span = chartSpan(hist.length ? hist[0].t : 0, now);
  const spanText = span >= 120e3 ? `last ${Math.round(span / 60e3)} minutes` : "last minute";
  const head = h("section", {class: "job-head", "data-job": job.db + "." + job.name, "data-kind": job.kind},
    h("div", {class: "job-title"},
      h("h1", {}, job.name, h("span", {class: "dim"}, "  in " + job.db)),
      h("div", {class: "job-meta"}, statePill(job.state), kindBadge(job.kind),
        h("span", {class: "dim"}, "loads "), h("code", {}, job.db + "." + job.table),
        h("span", {class: "dim"}, " · created " + fmtAgo(job.create_time_ms, now)))),
    h("div", {class: "job-actions"}, controlButton(job, refreshNow) ||
      (job.may_control ? null : h("span", {class: "readonly", title: "Pausing needs INSERT on the job's table (or, for a pipe, ALTER on it)"}, "view only"))));

  const err = lastError(job);
  const notice = err ? h("div", {class: "notice notice-" + (STATE_TONE[job.state] === "ok" ? "info" : "warn")},
                         h("strong", {}, job.state === "RUNNING" ? "Note: " : "Why " + job.state.toLowerCase() + ": "), err) : null;

  const isVolume = job.kind === "volume_pipe";
  const cards = h("section", {class: "cards"},
    card("Rows per second", fmtRate(rate), "last 5 s"),
    card("Rows loaded", fmtCount(job.rows_loaded), `${fmtCount(job.rows_filtered)} filtered out`),
    isVolume ? card("Files waiting", fmtCount(job.files_pending), fmtBytes(job.bytes_pending) + ` · ${fmtCount(job.files_loaded)} loaded`)
             : card("Messages behind", job.lag === null || job.lag < 0 ? "—" : fmtCount(job.lag), (PAUSABLE.has(job.state) ? "" : "last seen · ") + `${job.partitions.length} partition${job.partitions.length === 1 ? "" : "s"}`,
                    job.lag > 0 ? "info" : null),
    card("Freshness", job.freshness_seconds === null ? "—" : fmtDuration(job.freshness_seconds), "oldest data not loaded"),
    card("Rejected rows", fmtCount(job.rows_error), job.rows_error ? "see below" : "none", job.rows_error ? "bad" : null),
    card("Last commit", fmtAgo(job.last_commit_ms, now), `${fmtCount(job.tasks_committed)} task${job.tasks_committed === 1 ? "" : "s"} · ${fmtCount(job.tasks_aborted)} aborted`));

  const chartWidth = Math.min(document.getElementById("app").clientWidth, 1400) - 48;
  const half = chartWidth >= 900 ? (chartWidth - 24) / 2 : chartWidth;
  const lagSeries = job.partitions.map((p, i) => ({
    label: "partition " + p.partition, color: PALETTE[i % PALETTE.length],
    points: phist.map((x) => ({t: x.t, v: x.lags[p.partition]})).filter((x) => x.v !== undefined && x.v !== null),
    current: p.lag,
  }));
  const charts = h("section", {class: "chart-row"},
    isVolume ? null : h("div", {class: "panel chart-panel", id: "lag-chart"},
      h("div", {class: "panel-head"}, h("h2", {}, "Lag per partition"), h("span", {class: "dim"}, "messages not loaded yet, " + spanText)),
      lineChart(lagSeries, {width: half - 32, height: 220, nowMs: now, spanMs: span}),
      h("div", {class: "legend"}, lagSeries.map((sr) => h("span", {class: "legend-item"},
        h("i", {style: null, "data-color": sr.color}), sr.label, h("b", {}, sr.current === null ? "—" : fmtCount(sr.current)))))),
    h("div", {class: "panel chart-panel"},
      h("div", {class: "panel-head"}, h("h2", {}, "Rows per second"), h("span", {class: "dim"}, "loaded, " + spanText)),
      lineChart([{label: "rows/s", color: "#059669", points: rateSeries(hist)}],
                {width: (isVolume ? chartWidth : half) - 32, height: 220, nowMs: now, spanMs: span})));
  // Colors are set from code (the CSP forbids inline style attributes).
  for (const i of charts.querySelectorAll(".legend-item i")) i.style.background = i.dataset.color;

  const partRows = job.partitions.map((p) => h("tr", {},
    h("td", {}, String(p.partition)), h("td", {class: "right num"}, p.next_offset === null ? "—" : fmtCount(p.next_offset)),
    h("td", {class: "right num"}, p.high_watermark === null ? "—" : fmtCount(p.high_watermark)),
    h("td", {class: "right num" + (p.lag ? "" : " dim")}, p.lag === null ? "—" : fmtCount(p.lag)),
    h("td", {class: "right dim"}, p.last_message_ms ? fmtAgo(p.last_message_ms, now) : "—")));
  const taskRows = job.tasks.map((t) => h("tr", {},
    h("td", {class: "mono"}, String(t.task_id)),
    h("td", {}, h("span", {class: "pill pill-sm pill-" + ({COMMITTED: "ok", RUNNING: "info", ABORTED: "bad"}[t.status] || "muted")},
                  t.status === "NO_DATA" ? "NO DATA" : t.status || "WAITING")),
    h("td", {class: "dim nowrap"}, t.started_ms ? fmtAgo(t.started_ms, now) : "—"),
    isVolume ? null : h("td", {class: "mono"}, (t.partitions || []).join(", ") || "—"),
    h("td", {class: "msg"}, t.message || "")));
  const errRows = job.recent_errors.map((e) => h("tr", {},
    h("td", {class: "dim nowrap"}, e.time),
    h("td", {class: "mono"}, e.partition === null ? "—" : String(e.partition)),
    h("td", {class: "mono"}, e.offset === null ? "—" : String(e.offset)),
    h("td", {class: "msg"}, e.reason),
    h("td", {}, h("code", {class: "raw"}, e.raw_data))));

  const details = h("section", {class: "two-col"},
    isVolume
      ? h("div", {class: "panel"}, h("div", {class: "panel-head"}, h("h2", {}, "Files")),
          h("dl", {class: "facts"},
            h("dt", {}, "Last listing"), h("dd", {}, fmtAgo(job.last_listing_ms, now)),
            h("dt", {}, "Last load"), h("dd", {}, fmtAgo(job.last_load_ms, now)),
            h("dt", {}, "Last file"), h("dd", {class: "mono"}, job.last_loaded_file || "—"),
            h("dt", {}, "Failed files"), h("dd", {}, fmtCount(job.files_failed))))
      : h("div", {class: "panel"}, h("div", {class: "panel-head"}, h("h2", {}, "Partitions")),
          table(["Partition", {label: "Next offset", right: 1}, {label: "High watermark", right: 1}, {label: "Lag", right: 1},
                 {label: "Last message", right: 1}], partRows, "No partitions known yet.")),
    h("div", {class: "panel"}, h("div", {class: "panel-head"}, h("h2", {}, "Recent tasks"), h("span", {class: "dim"}, `${job.current_tasks} running now`)),
      table(["Task", "Status", "Started", isVolume ? null : "Partitions", "Message"].filter(Boolean), taskRows, "No task has run yet.")));

  const rejected = h("section", {class: "panel", id: "rejected"},
    h("div", {class: "panel-head"}, h("h2", {}, "Rejected rows"), h("span", {class: "dim"}, "newest first, up to 20")),
    table(["Time", "Partition", "Offset", "Reason", "Data"], errRows, "No rejected rows. Every row read so far was loaded or filtered."));

  const definition = h("section", {class: "panel"},
    h("details", {}, h("summary", {}, "Definition"), h("pre", {class: "definition"}, job.definition || "")));

  document.getElementById("app").replaceChildren(head, notice || "", cards, charts, details, rejected, definition, footer());
}

let serverVersion = "";
function footer() {
  return h("footer", {class: "foot"},
    h("span", {}, serverVersion ? "Sluice " + serverVersion : "Sluice"), h("span", {class: "sep"}, "·"),
    h("span", {}, "refreshes every second"), h("span", {class: "sep"}, "·"),
    h("span", {}, "the same data as JSON: ", h("a", {href: "/api/jobs"}, "/api/jobs"), ", for Prometheus: ",
      h("a", {href: "/metrics"}, "/metrics")));
}

// ---- the loop -----------------------------------------------------------------------------------------------

let timer = null;
let inFlight = false;
let lastOk = 0;
let openDefinition = false;

function route() {
  const m = location.hash.match(/^#\/job\/([^/]+)\/([^/?]+)(\?kind=pipe)?$/);
  if (m) return {view: "job", db: decodeURIComponent(m[1]), name: decodeURIComponent(m[2]), pipe: !!m[3]};
  return {view: "overview"};
}

function setBanner(text) {
  const el = document.getElementById("banner");
  el.textContent = text || "";
  el.hidden = !text;
}

function setLive(ok, text) {
  const el = document.getElementById("live");
  el.className = "live" + (ok ? " live-ok" : " live-bad");
  document.getElementById("live-text").textContent = text;
}

let again = false;  // a refresh asked for while one was running (a click, a new route): run it right after

async function refresh() {
  if (inFlight) { again = true; return; }
  inFlight = true;
  again = false;
  const r = route();
  try {
    const list = await getJson("/api/jobs");
    signedInUser = list.user;
    document.getElementById("user").textContent = list.user;
    for (const j of list.jobs) remember(jobHistory, jobKey(j), {t: list.now_ms, rows: j.rows_loaded, lag: j.lag});
    if (r.view === "job") {
      const job = await getJson(apiPath(r.db, r.name) + (r.pipe ? "?kind=pipe" : ""));
      remember(jobHistory, jobKey(job), {t: job.now_ms, rows: job.rows_loaded, lag: job.lag});
      const lags = {};
      for (const p of job.partitions) if (p.lag !== null) lags[p.partition] = p.lag;
      remember(partitionHistory, jobKey(job), {t: job.now_ms, lags});
      const open = document.querySelector("details");
      openDefinition = open ? open.open : openDefinition;
      renderJob(job);
      const details = document.querySelector("details");
      if (details) {
        details.open = openDefinition;
        details.addEventListener("toggle", () => { openDefinition = details.open; });
      }
      document.title = `${job.name} · ${job.state} · Sluice`;
    } else {
      renderOverview(list);
      const bad = list.jobs.filter((j) => RESUMABLE.has(j.state) || j.state === "CANCELLED" || j.state === "FAILED").length;
      document.title = (bad ? `(${bad}) ` : "") + "Jobs · Sluice";
    }
    lastOk = Date.now();
    setBanner("");
    setLive(true, "live");
  } catch (e) {
    if (e.status === 401) setBanner("Your sign-in is no longer accepted (the password may have changed). Reload the page to sign in again.");
    else if (e.status === 404 && r.view === "job") {
      setBanner(`The job ${r.db}.${r.name} does not exist, or you may not see it.`);
      document.getElementById("app").replaceChildren(h("p", {class: "empty-row"}, h("a", {href: "#/"}, "← Back to all jobs")));
    } else if (e.status === 429) setBanner("The server is turning away logins from this address for a moment (too many at once, or failed logins). Retrying every second.");
    else setBanner("Cannot reach the Sluice server: " + e.message + ". Retrying every second.");
    setLive(false, "offline");
  } finally {
    inFlight = false;
    if (again) refresh();
  }
}

function refreshNow() { refresh(); }

function tickLive() {
  if (!lastOk) return;
  const age = (Date.now() - lastOk) / 1000;
  if (age > 3) setLive(false, `no update for ${Math.round(age)} s`);
}

window.addEventListener("hashchange", () => { window.scrollTo(0, 0); refresh(); });
window.addEventListener("resize", () => refresh());
document.addEventListener("DOMContentLoaded", () => {
  getJson("/api/version").then((v) => { serverVersion = v.version || ""; }).catch(() => {});
  refresh();
  timer = setInterval(() => { refresh(); tickLive(); }, POLL_MS);
});
