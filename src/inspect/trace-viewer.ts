/**
 * Offline trace viewer: one standalone HTML file (no network, no dependencies) with the diagram of
 * each machine the trace holds and the recorded events. Selecting an event (click, or ↑/↓)
 * highlights, in the diagram shown, the state that machine's actor was in at that moment and every
 * state it visited before it (since the actor started: a trace that goes on across sessions starts
 * over at each), and scrolls that state into view. Each state line says how long the actor stayed
 * there (`· lasted 2000ms`, up to its next state); long lines wrap, so a reason at a line's end
 * (`attempt 2/3, delay 4000ms`) stays in view.
 *
 * A trace of several machines (`runtime.trace()`, `settle --trace`: the runtime machine and each
 * session's prompt-operation machine, interleaved in time) gets one tab per machine: the tab picks
 * the diagram shown and the machine whose events ↑/↓ step through; the other machines' events stay
 * listed (dimmed) where they happened, and clicking one shows its machine.
 */

import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { SettleError } from "../errors.js";
import { loadCrypto } from "../lazy-deps.js";
import type { LifecycleInspectionEvent } from "./lifecycle-inspector.js";
import { type QueuedMessage, queuedMessageText, queueHistory, queueSummaryText } from "./queue-history.js";
import { SVG_STYLE, toSvg, transitionKey } from "./svg.js";
import { formatLifecycleEvent, type LifecycleTrace, shownInTraceViews, type TraceRecorder } from "./trace.js";

/** Options for {@link renderTraceHtml}. */
export interface TraceViewerOptions {
	/** Page title; defaults to "<machine> lifecycle trace" (the machines, joined with " + "). */
	title?: string;
	/** For a checked-in page: the command that regenerates it, named in the diagram's header comment. */
	regenerateCommand?: string;
}

/**
 * Renders a trace as a standalone HTML page: a saved one, or the recording itself (`session.trace()`,
 * `runtime.trace()`, `createTraceRecorder()`), as `saveTrace` takes. Pure and deterministic. `machine` is the
 * definition to draw (or several, for a trace of several machines); the trace's other machines that
 * are Settle's (prompt-operation, runtime) are drawn too, and events of machines with no diagram
 * simply highlight nothing — so it never throws for a valid trace with a machine given. Without
 * `machine`, the machines the trace names are drawn; throws `SettleError("INVALID_ARGUMENT")` when
 * one of them is not Settle's, or when the trace names none.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * const trace = session.trace(); // or runtime.trace(): the runtime machine and each session, two diagrams
 * await session.prompt("hi");
 * trace.stop();
 * writeFileSync("trace.html", renderTraceHtml(trace)); // or renderTraceHtml(await loadTrace("run.trace.json"))
 * ```
 */
export function renderTraceHtml(
	recording: LifecycleTrace | TraceRecorder,
	machine?: AnyStateMachine | readonly AnyStateMachine[],
	options: TraceViewerOptions = {},
): string {
	const trace = viewable("observer" in recording ? recording.toJSON() : recording);
	const diagrams = diagramsFor(trace, machine);
	const title = options.title ?? `${diagrams.map((d) => d.id).join(" + ")} lifecycle trace`;
	const origin = trace.events[0]?.at ?? 0;
	const machineOf = trace.events.map((event) => event.machine ?? trace.machine ?? "");
	const tabbed = diagrams.length > 1;
	const drawn = new Set(diagrams.map((d) => d.id));
	// With one diagram every event belongs to it (as before traces held several machines).
	const actorOf = machineOf.map((id) => (tabbed || drawn.has(id) ? id : (diagrams[0]?.id ?? id)));
	const lasted = stateDurations(trace.events, actorOf);
	const items = trace.events
		.map((event, i) => {
			const tag = tabbed
				? `<span class="tag m${diagrams.findIndex((d) => d.id === actorOf[i])}">${esc(actorOf[i]!)}</span> `
				: "";
			const ms = lasted[i];
			const duration = ms === undefined ? "" : `<span class="lasted"> · lasted ${ms}ms</span>`;
			return `<li data-i="${i}" data-machine="${esc(actorOf[i]!)}" class="kind-${event.kind}">${tag}${esc(formatLifecycleEvent(event, origin))}${duration}</li>`;
		})
		.join("\n");
	const states = trace.events.map((event) => (event.kind === "state" ? event.to : null));
	const transitions = trace.events.map((event, i) => takenTransitionKey(event, actorOf[i]!));
	// A state event from nowhere after an actor's first is a new actor of that machine (the CLI's
	// trace goes on across session replacements): its "visited" starts over there.
	const starts = trace.events.flatMap((event, i) =>
		event.kind === "state" && (event.from ?? null) === null ? [i] : [],
	);
	const counts = new Map<string, number>();
	for (const id of actorOf) counts.set(id, (counts.get(id) ?? 0) + 1);
	// The first machine of the trace (a CLI trace: the session's) is shown first.
	const shown = diagrams.find((d) => d.id === actorOf[0])?.id ?? diagrams[0]?.id ?? "";
	const data = JSON.stringify({
		machines: diagrams.map((d) => d.id),
		shown,
		events: actorOf,
		states,
		transitions,
		starts,
		// Shown whole under the list when selected: the lines cut long payloads.
		full: trace.events,
	}).replace(/</g, "\\u003c");
	const css = `\n${viewerStyle(tabbed)}`;
	const svgOptions = options.regenerateCommand ? { regenerateCommand: options.regenerateCommand } : {};
	const sections = diagramSections(diagrams, shown, svgOptions);
	const tabs = tabbed ? machineTabs(diagrams, shown, (id) => counts.get(id) ?? 0) : "";
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${traceViewerCsp(css)}">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${css}</style>
</head>
<body>
<header><h1>${esc(title)}</h1><div>${trace.events.length} events${trace.dropped ? `, ${trace.dropped} earlier events dropped` : ""} · click an event or use ↑/↓${tabbed ? " (they step through the chosen machine's events)" : ""} · <input type="search" id="filter" placeholder="filter: retry|compact|queue" aria-label="show only the events whose line contains this (| separates alternatives)"> <span id="matches"></span></div>${DROP_NOTE_HTML}${tabs}</header>
<main>
<div class="diagram">
${sections}
</div>
<div class="side">
${queuePanel(queueHistory(trace), origin)}<ol class="events" id="events">
${items}
</ol>
<ol class="events" id="filtered" hidden></ol>
<pre class="detail" id="detail" aria-label="the selected event"></pre>
</div>
</main>
<script type="application/json" id="trace-data">${data}</script>
<script>${TRACE_JS}${DROP_JS}</script>
</body>
</html>
`;
}

/**
 * How long the machine stayed in the state each state event entered: until that actor's next state
 * event (the same machine's, since a new actor of it starts with a state from nowhere). Undefined
 * for other events and for each actor's last state (the trace ends there, or the actor was stopped).
 * One pass from the end: O(events).
 */
function stateDurations(
	events: readonly LifecycleInspectionEvent[],
	actorOf: readonly string[],
): (number | undefined)[] {
	const lasted: (number | undefined)[] = new Array(events.length).fill(undefined);
	const nextStateAt = new Map<string, number>();
	for (let i = events.length - 1; i >= 0; i--) {
		const event = events[i]!;
		if (event.kind !== "state") continue;
		const next = nextStateAt.get(actorOf[i]!);
		if (next !== undefined) lasted[i] = Math.round(next - event.at);
		// An actor's first state (from nowhere) follows the previous actor's last: that one's time ends with it.
		if (event.from === null) nextStateAt.delete(actorOf[i]!);
		else nextStateAt.set(actorOf[i]!, event.at);
	}
	return lasted;
}

/**
 * The viewer's script: constant (the trace is in the page's `application/json` block, never in
 * code), so the Content-Security-Policy allows it by one hash.
 */
/**
 * The diagram's highlight, for the trace viewer and the live page: `paint(current, visited, taken,
 * walked, block)` marks the states visited and the edges walked, the current state and the edge into
 * it (its label: the guard that chose it), and scrolls the innermost current state into view.
 */
export const DIAGRAM_JS = `
const groups = new Map([...document.querySelectorAll("g[data-state]")].map((g) => [g.dataset.state, g]));
const labels = new Map();
for (const text of document.querySelectorAll("text[data-transition]")) {
  labels.set(text.dataset.transition, [...(labels.get(text.dataset.transition) || []), text]);
}
const links = [...document.querySelectorAll("g.link")];
function paint(current, visited, taken, walked, block) {
  for (const [id, g] of groups) {
    g.classList.toggle("visited", visited.has(id));
    g.classList.toggle("current", current.includes(id));
  }
  for (const link of links) link.classList.remove("walked", "taken");
  for (const [key, texts] of labels) texts.forEach((text) => text.classList.toggle("taken", key === taken));
  for (const key of walked) for (const text of labels.get(key) || []) text.closest("g.link")?.classList.add("walked");
  for (const text of labels.get(taken) || []) text.closest("g.link")?.classList.add("taken");
  const innermost = groups.get(current[current.length - 1]);
  if (innermost) innermost.scrollIntoView({ block, inline: block });
}
`;

const TRACE_JS = `
const data = JSON.parse(document.getElementById("trace-data").textContent);
${DIAGRAM_JS}const items = [...document.querySelectorAll(".events li")];
const detail = document.getElementById("detail");
const tabs = [...document.querySelectorAll("nav.machines button")];
const sections = [...document.querySelectorAll("section.machine")];
const tabbed = data.machines.length > 1;
let shown = data.shown;
let selected = -1;
const ids = (path) => path.split(".").map((_, i, parts) => shown + "." + parts.slice(0, i + 1).join("."));
function show(machine) {
  if (!data.machines.includes(machine)) return;
  shown = machine;
  sections.forEach((s) => { s.hidden = s.dataset.machine !== machine; });
  tabs.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.machine === machine)));
  if (tabbed) items.forEach((li, j) => li.classList.toggle("other", data.events[j] !== machine));
  if (matching) applyFilter();
  mark();
}
// The shown machine's actor at the selected event: its state then, and what it visited since it started;
// the edges it took (the last one, into the current state, with its label: the guard that chose it).
function mark() {
  const visited = new Set();
  const walked = new Set();
  let current = [];
  let taken = null;
  for (let j = 0; j <= selected; j++) {
    if (data.events[j] !== shown) continue;
    if (data.starts.includes(j)) visited.clear();
    if (data.starts.includes(j)) walked.clear();
    if (data.states[j] === null) continue;
    current = ids(data.states[j]);
    current.forEach((id) => visited.add(id));
    taken = data.transitions[j];
    if (taken !== null) walked.add(taken);
  }
  paint(current, visited, taken, walked, "center");
}
// Selecting another machine's event shows that machine (except for the initial selection, the trace's end).
function select(i, follow = true) {
  if (i < 0 || i >= items.length) return;
  selected = i;
  items.forEach((li, j) => li.classList.toggle("selected", j === i));
  items[i].scrollIntoView({ block: "nearest" });
  mirror();
  detail.textContent = JSON.stringify(data.full[i], null, 2);
  if (follow && tabbed && data.events[i] !== shown && data.machines.includes(data.events[i])) show(data.events[i]);
  else mark();
}
// ↑/↓ go to the shown machine's previous / next event (every event when there is one machine).
function step(direction) {
  for (let j = selected + direction; j >= 0 && j < items.length; j += direction) {
    if (matching && !matched.has(j)) continue;
    if (!tabbed || data.events[j] === shown) return select(j);
  }
}
// The filter shows, instead of the whole list, copies of the lines containing one of its |-separated
// texts (any case): hiding most of 10 000 lines costs the browser seconds, copying the matches does
// not. ↑/↓ step through the matches; the diagram still follows every event up to the selected one.
const filter = document.getElementById("filter");
const matches = document.getElementById("matches");
const list = document.getElementById("events");
const filtered = document.getElementById("filtered");
const texts = items.map((li) => li.textContent.toLowerCase());
let matching = null;
let matched = new Set();
function applyFilter() {
  const wanted = filter.value.toLowerCase().split("|").map((t) => t.trim()).filter(Boolean);
  if (wanted.length === 0) {
    matching = null;
    matched = new Set();
    filtered.replaceChildren();
    filtered.hidden = true;
    list.hidden = false;
    matches.textContent = "";
    if (selected >= 0) items[selected].scrollIntoView({ block: "nearest" });
    return;
  }
  matching = [];
  texts.forEach((text, j) => { if (wanted.some((t) => text.includes(t))) matching.push(j); });
  matched = new Set(matching);
  filtered.replaceChildren(...matching.map((j) => {
    const copy = items[j].cloneNode(true);
    copy.addEventListener("click", () => select(j));
    return copy;
  }));
  list.hidden = true;
  filtered.hidden = false;
  matches.textContent = matching.length + " of " + items.length + " events match";
  mirror();
}
// The filtered copies follow the selection.
function mirror() {
  if (!matching) return;
  const copies = filtered.children;
  matching.forEach((j, k) => copies[k].classList.toggle("selected", j === selected));
  const k = matching.indexOf(selected);
  if (k >= 0) copies[k].scrollIntoView({ block: "nearest" });
}
filter.addEventListener("input", applyFilter);
items.forEach((li, i) => li.addEventListener("click", () => select(i)));
// The queue panel: each message's queued / delivered point selects that event.
document.querySelectorAll(".queue [data-i]").forEach((el) => el.addEventListener("click", () => select(Number(el.dataset.i))));
tabs.forEach((b) => b.addEventListener("click", () => show(b.dataset.machine)));
document.addEventListener("keydown", (e) => {
  // Keys typed into the filter box (or any field) are text editing, not page shortcuts.
  if (e.target instanceof Element && e.target.closest("input, textarea, select, [contenteditable]")) return;
  if (e.key === "ArrowDown") { step(1); e.preventDefault(); }
  if (e.key === "ArrowUp") { step(-1); e.preventDefault(); }
});
if (tabbed) show(shown);
select(items.length - 1, false);
`;

/**
 * Both viewers' answer to a file dropped on them ({@link DROP_NOTE_HTML} shows it): what the file is
 * and how to view it, the page staying as it is. Part of each page's script (hashed into its CSP).
 */
export const DROP_JS = `
// A file dropped on the page (another trace, say) is not opened here: a browser would otherwise
// leave the page (the live stream with it) for the file. Say what the file is and how to view it;
// its name is shown as text only.
const dropNote = document.getElementById("drop-note");
const carriesFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
document.addEventListener("dragover", (e) => { if (carriesFiles(e)) e.preventDefault(); });
document.addEventListener("drop", async (e) => {
  if (!carriesFiles(e)) return;
  e.preventDefault();
  const file = e.dataTransfer.files[0];
  if (!file) return;
  dropNote.hidden = false;
  dropNote.textContent = file.name + ": " + (await whatIs(file)) + " This page shows only its own trace.";
});
async function whatIs(file) {
  const view = "run settle trace " + file.name + " to view it.";
  if (file.size === 0) return "an empty file, not a trace.";
  if (file.size > 256 * 1024 * 1024) return "too large to read here; " + view;
  let parsed;
  try {
    parsed = JSON.parse(await file.text());
  } catch {
    return "not valid JSON (a file cut short?), so not a trace; settle --trace <file> records one.";
  }
  if (!parsed || typeof parsed !== "object" || parsed.format !== "settle.lifecycle-trace") {
    return "not a Settle lifecycle trace; settle --trace <file> records one.";
  }
  const events = Array.isArray(parsed.events) ? parsed.events.length : 0;
  if (events === 0) return "a Settle trace with no events: nothing to show.";
  return "a Settle trace of " + events + " events: " + view;
}
`;

/** Where {@link DROP_JS} says what a dropped file is. */
export const DROP_NOTE_HTML = '<p id="drop-note" role="status" hidden></p>';

const sha256 = (text: string) => `'sha256-${loadCrypto().createHash("sha256").update(text, "utf8").digest("base64")}'`;
/** The script's and the diagrams' stylesheet's hashes, computed for the first page (not at start). */
let fixedHashes: { TRACE_SCRIPT_HASH: string; SVG_STYLE_HASH: string } | undefined;
function traceViewerHashes() {
	if (fixedHashes === undefined) {
		const TRACE_SCRIPT_HASH = sha256(TRACE_JS + DROP_JS);
		const SVG_STYLE_HASH = sha256(SVG_STYLE);
		fixedHashes = { TRACE_SCRIPT_HASH, SVG_STYLE_HASH };
	}
	return fixedHashes;
}

/**
 * The trace page's Content-Security-Policy: nothing loads, and nothing runs or styles the page but
 * its own script and its two stylesheets (the page's, the diagrams'), each allowed by its hash — a
 * trace field that got past the escaping as markup could neither run (no inline script or handler)
 * nor restyle the page.
 */
function traceViewerCsp(css: string): string {
	const { TRACE_SCRIPT_HASH, SVG_STYLE_HASH } = traceViewerHashes();
	return `default-src 'none'; script-src ${TRACE_SCRIPT_HASH}; style-src ${sha256(css)} ${SVG_STYLE_HASH}; base-uri 'none'; form-action 'none'`;
}

/**
 * The viewer's stylesheet (shared by the offline viewer and the live inspector page). `main` has
 * the height left under a header of one line (two with machine tabs), and shrinks when the header
 * wraps (a narrow window, the live page's longer status): the panes never reach below the window.
 */
export function viewerStyle(tabbed: boolean): string {
	return `body{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:#1a202c;height:100vh;display:flex;flex-direction:column}
header{flex:none;padding:10px 16px;border-bottom:1px solid #e2e8f0}
h1{font-size:16px;margin:0 0 4px}
main{display:flex;height:calc(100vh - ${tabbed ? 92 : 64}px);flex:0 1 auto;min-height:0}
.diagram{flex:3;overflow:auto;border-right:1px solid #e2e8f0}
.events{flex:2;overflow:auto;margin:0;padding:0;list-style:none}
.events li{padding:2px 8px 2px calc(8px + 17ch);text-indent:-17ch;white-space:pre-wrap;overflow-wrap:anywhere;cursor:pointer;border-bottom:1px solid #f7fafc}
.events li .lasted{color:#718096;font-weight:normal}
.events li:hover{background:#f7fafc}
.events li.selected{background:#fefcbf}
.events li.other{opacity:.45}
.events li.kind-state{font-weight:bold}
.events li.kind-emitted{color:#2b6cb0}
.events li.kind-delay{color:#805ad5}
.events li.kind-actor{color:#4a5568}
header input#filter{font:inherit;width:22em;padding:1px 4px}
#drop-note{position:fixed;left:16px;bottom:16px;max-width:70ch;margin:0;padding:6px 10px;color:#c53030;background:#fff5f5;border:1px solid #c53030;border-radius:4px}
.side{flex:2;display:flex;flex-direction:column;min-width:0}
.side>.events{flex:1 1 0;min-height:0}
.queue{flex:none;max-height:30vh;overflow:auto;padding:4px 8px;border-bottom:1px solid #e2e8f0}
.queue summary{cursor:pointer;font-weight:bold}
.queue ul{margin:4px 0;padding-left:16px}
.queue [data-i]{cursor:pointer;text-decoration:underline dotted}
.queue li.fate-pending{color:#c53030}
.detail{flex:none;max-height:30vh;overflow:auto;margin:0;padding:6px 8px;border-top:1px solid #e2e8f0;background:#f7fafc;white-space:pre-wrap;word-break:break-all}
nav.machines{margin-top:6px;display:flex;gap:6px}
nav.machines button{font:inherit;padding:2px 8px;border:1px solid #cbd5e0;background:#fff;border-radius:4px;cursor:pointer}
nav.machines button[aria-pressed=true]{background:#2d3748;color:#fff;border-color:#2d3748}
.tag{display:inline-block;min-width:9em;font-weight:normal;text-indent:0}
.tag.m0{color:#2c7a7b}.tag.m1{color:#c05621}.tag.m2{color:#6b46c1}
g.visited>rect.state,g.visited>rect.cluster{fill:#ebf8ff}
g.link.walked>path.edge{stroke:#63b3ed;stroke-width:2}
g.link.taken>path.edge{stroke:#d53f8c;stroke-width:3}
text.edge-label.taken{fill:#d53f8c;font-weight:bold}
g.current>rect.state,g.current>rect.cluster{stroke:#d53f8c;stroke-width:3}
`;
}

/** One `<section>` per machine with its SVG diagram; only `shown` is visible. */
export function diagramSections(
	diagrams: readonly AnyStateMachine[],
	shown: string,
	svgOptions: { regenerateCommand?: string } = {},
): string {
	return diagrams
		.map((diagram, index) => {
			const svg = toSvg(diagram, svgOptions).replace(
				/^<svg /,
				`<svg id="${index === 0 ? "machine" : `machine-${esc(diagram.id)}`}" `,
			);
			return `<section class="machine" data-machine="${esc(diagram.id)}"${diagram.id === shown ? "" : " hidden"}>\n${svg}\n</section>`;
		})
		.join("\n");
}

/** The machine tabs: one button per diagram, `<id> · <n> events`. */
export function machineTabs(
	diagrams: readonly AnyStateMachine[],
	shown: string,
	count: (machine: string) => number,
): string {
	return `<nav class="machines" aria-label="machine">${diagrams
		.map(
			(diagram, index) =>
				`<button type="button" class="m${index}" data-machine="${esc(diagram.id)}" aria-pressed="${diagram.id === shown}">${esc(diagram.id)} · ${count(diagram.id)} events</button>`,
		)
		.join("")}</nav>`;
}

/**
 * The diagram's name ({@link transitionKey}) of the transition a state change took, for the viewers
 * to mark its edge; null for other events and traces saved before transitions were recorded.
 */
export function takenTransitionKey(event: LifecycleInspectionEvent, machine: string): string | null {
	if (event.kind !== "state" || !event.transition) return null;
	const { source, priority } = event.transition;
	const sourceId = source ? `${machine}.${source}` : machine;
	return transitionKey(
		priority !== undefined ? { sourceId, trigger: event.trigger, priority } : { sourceId, trigger: event.trigger },
	);
}

/**
 * The "Queued messages" panel: each steering / follow-up message the trace saw queued, where and
 * when, and its fate — delivered (in which run), cleared, or never delivered while recorded. Empty
 * for a trace with no queue changes.
 */
function queuePanel(messages: readonly QueuedMessage[], origin: number): string {
	if (messages.length === 0) return "";
	const rows = messages.map((m) => {
		const text = queuedMessageText(m, origin);
		const queued = `<span data-i="${m.queued.index}">${esc(text.queued)}</span>`;
		const fate =
			m.fate === "pending" || !m.settled
				? esc(text.fate)
				: `<span data-i="${m.settled.index}">${esc(text.fate)}</span>`;
		return `<li class="fate-${m.fate}">${queued} → ${fate}</li>`;
	});
	return `<details class="queue" open><summary>${esc(queueSummaryText(messages))}</summary>
<ul>
${rows.join("\n")}
</ul>
</details>
`;
}

function esc(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const KNOWN_MACHINES: readonly AnyStateMachine[] = [promptOperationMachine, runtimeMachine];

/**
 * The diagrams of a trace: the machines given (in their order), then Settle's machines of the
 * trace's other actors. Without machines given, every machine the trace names must be Settle's.
 */
function diagramsFor(
	trace: LifecycleTrace,
	given: AnyStateMachine | readonly AnyStateMachine[] | undefined,
): AnyStateMachine[] {
	const named = [...new Set(trace.events.map((event) => event.machine ?? trace.machine ?? ""))].filter(Boolean);
	if (named.length === 0 && trace.machine !== undefined) named.push(trace.machine);
	if (given !== undefined) {
		const diagrams = Array.isArray(given) ? [...(given as readonly AnyStateMachine[])] : [given as AnyStateMachine];
		for (const id of named) {
			if (diagrams.some((machine) => machine.id === id)) continue;
			const known = KNOWN_MACHINES.find((machine) => machine.id === id);
			if (known) diagrams.push(known);
		}
		return diagrams;
	}
	if (named.length === 0) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			"renderTraceHtml: the trace names no machine (it has no events); pass the machine to draw as the second argument.",
			{ details: { machine: null } },
		);
	}
	return named.map((id) => {
		const found = KNOWN_MACHINES.find((machine) => machine.id === id);
		if (found) return found;
		const known = KNOWN_MACHINES.map((machine) => machine.id).join(", ");
		throw new SettleError(
			"INVALID_ARGUMENT",
			`renderTraceHtml: the trace is of machine "${id}", not one of Settle's (${known}); pass its machine definition as the second argument.`,
			{ details: { machine: id } },
		);
	});
}

/** The trace as the viewer lists it: each queue change once ({@link shownInTraceViews}), sessions' starts moved to match. */
function viewable(trace: LifecycleTrace): LifecycleTrace {
	const events = trace.events.filter(shownInTraceViews);
	if (events.length === trace.events.length) return trace;
	const shownBefore = (index: number) => trace.events.slice(0, index).filter(shownInTraceViews).length;
	const sessions = trace.sessions?.map((session) => ({ ...session, firstEvent: shownBefore(session.firstEvent) }));
	return { ...trace, events, ...(sessions ? { sessions } : {}) };
}
