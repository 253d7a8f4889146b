/**
 * The live inspector's page: the trace viewer's diagrams, tabs, event list, detail pane, filter and
 * "Queued messages" panel, filled from a Server-Sent Events stream (`events`, relative to the page)
 * instead of a saved trace. The script is
 * a constant (no data inlined), allowed by its hash in the Content-Security-Policy; event text only
 * ever reaches the page through `textContent`, so nothing a session says can become markup.
 */

import type { AnyStateMachine } from "xstate";
import { loadCrypto } from "../lazy-deps.js";
import type { LifecycleInspectionEvent } from "./lifecycle-inspector.js";
import { QUEUE_HISTORY_JS } from "./queue-history.js";
import { SVG_STYLE } from "./svg.js";
import { DIAGRAM_JS, DROP_JS, DROP_NOTE_HTML, diagramSections, machineTabs, viewerStyle } from "./trace-viewer.js";

/** What the server sends for one event (`data:` of an SSE `lifecycle` message). */
export interface LiveEventMessage {
	/** Machine id of the event (`promptOperation`, `runtime`). */
	machine: string;
	kind: string;
	/** `formatLifecycleEvent` of the event, times relative to the stream's first event. */
	line: string;
	/** The state entered, for a `state` event; null otherwise. */
	state: string | null;
	/** A state event from nowhere: a new actor of that machine (a replacing session), its visited states start over. */
	start: boolean;
	/** The transition a state event took (`takenTransitionKey`), to mark its edge; null otherwise. */
	transition: string | null;
	/**
	 * What the queue panel reads of the event (`queueHistoryInput`: state and queue changes); absent
	 * for others. The detail pane fetches the event whole (`event?id=<id>`) when it is selected.
	 */
	queue?: LifecycleInspectionEvent;
	/** The `at` the stream's times are relative to (its first event's). */
	origin: number;
	/** The event's time (`at`): the page says how long each state lasted when the next one comes. */
	at: number;
}

/**
 * What the server sends a page it drops for reading too slowly (`data:` of a last, SSE `slow`
 * message). The page says so and resumes from its last event id when the browser reconnects.
 */
export interface LiveSlowMessage {
	/** Bytes that waited unsent for the page when it was dropped. */
	unsentBytes: number;
	/** The limit it passed. */
	limit: number;
}

/**
 * Page behaviour: follow the newest event until the user steps back; the selected event whole; the
 * queued messages and their fates (the offline viewer's pairing rule, run here: QUEUE_HISTORY_JS);
 * the server's notices (dropped ids, slow, end).
 */
const LIVE_JS = `"use strict";
${QUEUE_HISTORY_JS}
const MAX = 10000;
const list = document.getElementById("events");
const detail = document.getElementById("detail");
const queuePanel = document.getElementById("queue");
const filter = document.getElementById("filter");
const matchesText = document.getElementById("matches");
const filtered = document.getElementById("filtered");
const statusText = document.getElementById("status");
const countText = document.getElementById("count");
const droppedText = document.getElementById("dropped");
const followButton = document.getElementById("follow");
const sections = [...document.querySelectorAll("section.machine")];
const machines = sections.map((s) => s.dataset.machine);
const tabs = [...document.querySelectorAll("nav.machines button")];
${DIAGRAM_JS}const tabbed = machines.length > 1;
let shown = (sections.find((s) => !s.hidden) || sections[0]).dataset.machine;
const recs = [];
const counts = new Map();
const live = new Map();
let selected = -1;
let following = true;
let lastId = 0;
let dropped = 0;
let origin = 0;
// Set by a queue change (added or dropped): the panel is drawn again on the next frame.
let queueChanged = false;
// The filter's lowercase |-separated texts (null: no filter); the matching events are shown as copies
// in their own list, as the offline viewer does (hiding most of 10 000 lines costs the browser seconds).
let wanted = null;
const ids = (machine, path) => path.split(".").map((_, i, parts) => machine + "." + parts.slice(0, i + 1).join("."));
function mark() {
  if (following) {
    const state = live.get(shown);
    return state
      ? paint(state.current, state.visited, state.taken, state.walked, "nearest")
      : paint([], new Set(), null, new Set(), "nearest");
  }
  const visited = new Set();
  const walked = new Set();
  let current = [];
  let taken = null;
  for (let j = 0; j <= selected; j++) {
    const rec = recs[j];
    if (rec.machine !== shown) continue;
    if (rec.start) { visited.clear(); walked.clear(); }
    if (rec.state === null) continue;
    current = ids(shown, rec.state);
    current.forEach((id) => visited.add(id));
    taken = rec.transition;
    if (taken !== null) walked.add(taken);
  }
  paint(current, visited, taken, walked, "nearest");
}
function show(machine) {
  if (!machines.includes(machine)) return;
  shown = machine;
  sections.forEach((s) => { s.hidden = s.dataset.machine !== machine; });
  tabs.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.machine === machine)));
  if (tabbed) recs.forEach((rec) => rec.li.classList.toggle("other", rec.machine !== machine));
  mark();
}
function highlight(i) {
  if (selected >= 0 && recs[selected]) recs[selected].li.classList.remove("selected");
  selected = i;
  if (recs[i]) {
    recs[i].li.classList.add("selected");
    recs[i].li.scrollIntoView({ block: "nearest" });
    mirror(recs[i]);
    showDetail(recs[i]);
  }
}
// The selected event whole; while following live, a hint instead (not a request per new event).
function showDetail(rec) {
  if (following) {
    detail.textContent = "select an event (click, ↑/↓) to see it whole";
    return;
  }
  if (rec.event) {
    detail.textContent = JSON.stringify(rec.event, null, 2);
    return;
  }
  detail.textContent = "loading event " + rec.id + "…";
  fetch("event?id=" + rec.id)
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null)
    .then((event) => {
      if (event) rec.event = event;
      if (recs[selected] !== rec) return;
      detail.textContent = event
        ? JSON.stringify(event, null, 2)
        : "event " + rec.id + " is no longer available (the server keeps only the newest events, while it runs)";
    });
}
function setFollowing(on) {
  following = on;
  followButton.hidden = on;
}
function select(i) {
  if (i < 0 || i >= recs.length) return;
  setFollowing(false);
  highlight(i);
  if (tabbed && recs[i].machine !== shown && machines.includes(recs[i].machine)) show(recs[i].machine);
  else mark();
}
function step(direction) {
  for (let j = selected + direction; j >= 0 && j < recs.length; j += direction) {
    if (wanted && !recs[j].copy) continue;
    if (!tabbed || recs[j].machine === shown) return select(j);
  }
}
function follow() {
  setFollowing(true);
  highlight(recs.length - 1);
  mark();
}
function apply(rec) {
  counts.set(rec.machine, (counts.get(rec.machine) || 0) + 1);
  if (rec.state === null) return;
  let state = live.get(rec.machine);
  if (!state || rec.start) {
    state = { current: [], visited: new Set(), taken: null, walked: new Set() };
    live.set(rec.machine, state);
  }
  state.current = ids(rec.machine, rec.state);
  state.current.forEach((id) => state.visited.add(id));
  state.taken = rec.transition;
  if (rec.transition !== null) state.walked.add(rec.transition);
}
function notice(text, cls) {
  const li = document.createElement("li");
  li.className = cls;
  li.textContent = text;
  list.append(li);
}
function showDropped() {
  droppedText.hidden = dropped === 0;
  droppedText.textContent = ", " + dropped + " older events dropped (only the newest are kept)";
}
function add(id, message) {
  const li = document.createElement("li");
  li.dataset.id = String(id);
  li.className = "kind-" + message.kind;
  if (tabbed) {
    const tag = document.createElement("span");
    tag.className = "tag m" + machines.indexOf(message.machine);
    tag.textContent = message.machine;
    li.append(tag, " ");
    if (message.machine !== shown) li.classList.add("other");
  }
  li.append(message.line);
  const rec = { id, machine: message.machine, state: message.state, start: message.start, transition: message.transition ?? null, queue: message.queue, at: message.at, li };
  origin = message.origin;
  if (rec.state !== null) lasted(rec);
  if (isQueueChange(rec)) queueChanged = true;
  li.addEventListener("click", () => select(recs.indexOf(rec)));
  list.append(li);
  rec.text = li.textContent.toLowerCase();
  if (wanted) copyIfMatching(rec);
  recs.push(rec);
  apply(rec);
  if (recs.length > MAX) {
    const gone = recs.shift();
    while (list.firstChild && list.firstChild !== gone.li) list.firstChild.remove();
    gone.li.remove();
    if (isQueueChange(gone)) queueChanged = true;
    if (gone.copy) gone.copy.remove();
    selected--;
    dropped++;
    showDropped();
  }
}
// A machine's new state ends its previous one: that line says how long it lasted (as the offline
// viewer's). A state from nowhere is a new actor: the previous actor's last state has no end.
const lastState = new Map();
function lasted(rec) {
  const previous = lastState.get(rec.machine);
  lastState.set(rec.machine, rec);
  if (!previous || rec.start || typeof rec.at !== "number" || typeof previous.at !== "number") return;
  const span = document.createElement("span");
  span.className = "lasted";
  span.textContent = " · lasted " + Math.round(rec.at - previous.at) + "ms";
  previous.li.append(span);
  if (previous.copy) previous.copy.append(span.cloneNode(true));
  previous.text = previous.li.textContent.toLowerCase();
}
function copyIfMatching(rec) {
  rec.copy = undefined;
  if (!wanted.some((t) => rec.text.includes(t))) return;
  rec.copy = rec.li.cloneNode(true);
  rec.copy.classList.remove("selected");
  rec.copy.addEventListener("click", () => select(recs.indexOf(rec)));
  filtered.append(rec.copy);
}
function applyFilter() {
  const texts = filter.value.toLowerCase().split("|").map((t) => t.trim()).filter(Boolean);
  wanted = texts.length ? texts : null;
  filtered.replaceChildren();
  recs.forEach((rec) => { rec.copy = undefined; });
  if (wanted) recs.forEach(copyIfMatching);
  list.hidden = wanted !== null;
  filtered.hidden = wanted === null;
  showMatches();
  if (recs[selected]) {
    recs[selected].li.scrollIntoView({ block: "nearest" });
    mirror(recs[selected]);
  }
}
// The filtered copy of the selected event follows the selection.
function mirror(rec) {
  if (!wanted) return;
  for (const copy of filtered.querySelectorAll("li.selected")) copy.classList.remove("selected");
  if (!rec.copy) return;
  rec.copy.classList.add("selected");
  rec.copy.scrollIntoView({ block: "nearest" });
}
function showMatches() {
  matchesText.textContent = wanted ? filtered.children.length + " of " + recs.length + " events match" : "";
}
function isQueueChange(rec) {
  return rec.queue !== undefined && rec.queue.kind === "emitted";
}
// Each message queued among the events kept, and its fate so far (pending until delivered or cleared);
// a click on where it was queued / delivered selects that event.
function drawQueue() {
  queueChanged = false;
  const carried = recs.filter((rec) => rec.queue);
  const messages = pairQueuedMessages(carried.map((rec) => rec.queue), undefined);
  queuePanel.hidden = messages.length === 0;
  queuePanel.querySelector("summary").textContent = queueSummaryText(messages, true);
  const point = (text, index) => {
    const span = document.createElement("span");
    span.textContent = text;
    const rec = carried[index];
    span.dataset.i = String(rec.id);
    span.addEventListener("click", () => select(recs.indexOf(rec)));
    return span;
  };
  queuePanel.querySelector("ul").replaceChildren(...messages.map((m) => {
    const text = queuedMessageText(m, origin, true);
    const li = document.createElement("li");
    li.className = "fate-" + m.fate;
    li.append(point(text.queued, m.queued.index), " → ", m.settled ? point(text.fate, m.settled.index) : text.fate);
    return li;
  }));
}
// Painted once per frame, not once per event: a page that loads 10 000 events lays out once.
let scheduled = false;
function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    update();
  });
}
function update() {
  countText.textContent = recs.length + " events";
  tabs.forEach((b) => { b.textContent = b.dataset.machine + " · " + (counts.get(b.dataset.machine) || 0) + " events"; });
  if (queueChanged) drawQueue();
  showMatches();
  if (following) follow();
}
const source = new EventSource("events");
let slowDrops = 0;
// Set by a "slow" message: the close that follows it is expected; its status stays until the resume.
let slowClose = false;
source.addEventListener("open", () => { statusText.textContent = "live"; });
// No end message came: the server is gone or the network dropped (the browser keeps retrying).
source.addEventListener("error", () => {
  if (source.readyState === EventSource.CLOSED) return;
  if (slowClose) slowClose = false;
  else statusText.textContent = "connection lost: reconnecting…";
});
function size(bytes) {
  if (!(bytes >= 0)) return "too much";
  if (bytes >= 1048576) return Math.round(bytes / 104857.6) / 10 + " MiB";
  return bytes >= 1024 ? Math.round(bytes / 1024) + " KiB" : bytes + " bytes";
}
// The server dropped this page for reading too slowly (it never waits for a page); the browser
// reconnects with the last id it got and the server sends the rest.
source.addEventListener("slow", (e) => {
  const slow = JSON.parse(e.data);
  slowDrops++;
  slowClose = true;
  const times = slowDrops > 1 ? " (" + slowDrops + " times now)" : "";
  statusText.textContent = "dropped for reading too slowly" + times + ": more than " + size(slow.limit) +
    " of events waited unsent; resuming after event " + lastId + "… If this keeps happening, close other tabs or lower the machine's load";
  notice("… dropped here for reading too slowly (more than " + size(slow.limit) + " unsent); resuming after event " + lastId, "slow");
});
source.addEventListener("lifecycle", (e) => {
  const id = Number(e.lastEventId);
  if (!(id > lastId)) return;
  lastId = id;
  add(id, JSON.parse(e.data));
  schedule();
});
source.addEventListener("dropped", (e) => {
  const gap = JSON.parse(e.data);
  if (!(gap.to > lastId)) return;
  const from = Math.max(gap.from, lastId + 1);
  dropped += gap.to - from + 1;
  lastId = gap.to;
  notice("… events " + from + "–" + gap.to + " were dropped before this page received them", "gap");
  showDropped();
});
function endText(end) {
  if (end.reason === "closed") return "ended: the inspector was closed";
  return end.target === "runtime" ? "ended: the runtime was disposed (the run is over)" : "ended: the session was disposed";
}
source.addEventListener("end", (e) => {
  source.close();
  statusText.textContent = endText(JSON.parse(e.data));
});
followButton.addEventListener("click", follow);
filter.addEventListener("input", applyFilter);
tabs.forEach((b) => b.addEventListener("click", () => show(b.dataset.machine)));
document.addEventListener("keydown", (e) => {
  // Keys typed into the filter box (or any field) are text editing, not page shortcuts.
  if (e.target instanceof Element && e.target.closest("input, textarea, select, [contenteditable]")) return;
  if (e.key === "ArrowDown") { step(1); e.preventDefault(); }
  if (e.key === "ArrowUp") { step(-1); e.preventDefault(); }
  if (e.key === "End") { follow(); e.preventDefault(); }
});
if (tabbed) show(shown);
`;

const sha256 = (text: string) => `'sha256-${loadCrypto().createHash("sha256").update(text, "utf8").digest("base64")}'`;
/** The script's hash, computed when a page is first served, not when the CLI starts. */
let scriptHash: string | undefined;

const LIVE_CSS = `
header button#follow{font:inherit;margin-left:8px;padding:1px 8px;border:1px solid #d53f8c;color:#d53f8c;background:#fff;border-radius:4px;cursor:pointer}
#status{font-weight:bold}
.events li.gap,.events li.slow{color:#c53030;font-style:italic;cursor:default}
`;

/** The text of the page's `<style>` element (the header is taller with machine tabs). */
const liveStyle = (tabbed: boolean) => `\n${viewerStyle(tabbed)}${LIVE_CSS}`;

/**
 * The page's Content-Security-Policy: its own script and its two stylesheets (the page's, the
 * diagrams'), each by hash, and the event stream (same origin); nothing else — no images, frames,
 * forms or other connections, no other `<style>` and no `style` attribute, so markup that got into
 * the page could neither run nor restyle it. The server's header adds `frame-ancestors 'none'`
 * (which a `<meta>` policy cannot carry). `tabbed`: the page shows more than one machine.
 */
export function livePageCsp(tabbed: boolean): string {
	scriptHash ??= sha256(LIVE_JS + DROP_JS);
	return `default-src 'none'; script-src ${scriptHash}; style-src ${sha256(liveStyle(tabbed))} ${sha256(SVG_STYLE)}; connect-src 'self'; base-uri 'none'; form-action 'none'`;
}

/**
 * The live page for `diagrams` (the first is shown first). Deterministic; the event stream fills it.
 *
 * @example
 * ```ts
 * const html = renderLivePage([promptOperationMachine], "promptOperation — live");
 * ```
 */
export function renderLivePage(diagrams: readonly AnyStateMachine[], title: string): string {
	const tabbed = diagrams.length > 1;
	const shown = diagrams[0]?.id ?? "";
	const tabs = tabbed ? machineTabs(diagrams, shown, () => 0) : "";
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${livePageCsp(tabbed)}">
<meta name="referrer" content="no-referrer">
<title>${escapeText(title)}</title>
<style>${liveStyle(tabbed)}</style>
</head>
<body>
<header><h1>${escapeText(title)}</h1><div><span id="status">connecting…</span> · <span id="count">0 events</span><span id="dropped" hidden></span> · click an event or use ↑/↓, End follows${tabbed ? " (they step through the chosen machine's events)" : ""} · <input type="search" id="filter" placeholder="filter: retry|compact|queue" aria-label="show only the events whose line contains this (| separates alternatives)"> <span id="matches"></span><button type="button" id="follow" hidden>follow live ↓</button></div>${DROP_NOTE_HTML}${tabs}</header>
<main>
<div class="diagram">
${diagramSections(diagrams, shown)}
</div>
<div class="side">
<details class="queue" id="queue" open hidden><summary></summary><ul></ul></details>
<ol class="events" id="events"></ol>
<ol class="events" id="filtered" hidden></ol>
<pre class="detail" id="detail" aria-label="the selected event"></pre>
</div>
</main>
<script>${LIVE_JS}${DROP_JS}</script>
</body>
</html>
`;
}

function escapeText(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
