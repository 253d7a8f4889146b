/**
 * Offline trace viewer: one standalone HTML file (no network, no dependencies) with the machine's
 * diagram and the recorded events. Selecting an event (click, or ↑/↓) highlights the state the
 * machine was in at that moment and every state visited before it (since the actor started: a trace
 * that goes on across sessions starts over at each), and scrolls that state into view.
 */
import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { SettleError } from "../errors.js";
import { toSvg } from "./svg.js";
import { formatLifecycleEvent, type LifecycleTrace } from "./trace.js";

/** Options for {@link renderTraceHtml}. */
export interface TraceViewerOptions {
	/** Page title; defaults to "<machine> lifecycle trace". */
	title?: string;
	/** For a checked-in page: the command that regenerates it, named in the diagram's header comment. */
	regenerateCommand?: string;
}

/**
 * Renders a saved trace as a standalone HTML page. Pure and deterministic; never throws for a
 * valid trace with a machine given (events of other machines simply highlight nothing). Without
 * `machine`, the one the trace names is drawn (Settle's prompt-operation or runtime machine);
 * throws `SettleError("INVALID_ARGUMENT")` when the trace names another machine or none.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * const trace = session.trace();
 * await session.prompt("hi");
 * trace.stop();
 * writeFileSync("trace.html", renderTraceHtml(trace.toJSON())); // or renderTraceHtml(await loadTrace("run.trace.json"))
 * ```
 */
export function renderTraceHtml(
	trace: LifecycleTrace,
	machine: AnyStateMachine = machineOfTrace(trace),
	options: TraceViewerOptions = {},
): string {
	const machineId = machine.id;
	const title = options.title ?? `${machineId} lifecycle trace`;
	const origin = trace.events[0]?.at ?? 0;
	const items = trace.events
		.map((event, i) => `<li data-i="${i}" class="kind-${event.kind}">${esc(formatLifecycleEvent(event, origin))}</li>`)
		.join("\n");
	const states = trace.events.map((event) => (event.kind === "state" ? event.to : null));
	// A state event from nowhere after the first is a new actor (the CLI's trace goes on across
	// session replacements): "visited" starts over there.
	const starts = trace.events.flatMap((event, i) =>
		i > 0 && event.kind === "state" && (event.from ?? null) === null ? [i] : [],
	);
	const data = JSON.stringify({ machineId, states, starts })
		.replace(/</g, "\\u003c")
		.replace(/\u2028|\u2029/g, "");
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<style>
body{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:#1a202c}
header{padding:10px 16px;border-bottom:1px solid #e2e8f0}
h1{font-size:16px;margin:0 0 4px}
main{display:flex;height:calc(100vh - 64px)}
.diagram{flex:3;overflow:auto;border-right:1px solid #e2e8f0}
.events{flex:2;overflow:auto;margin:0;padding:0;list-style:none}
.events li{padding:2px 8px;white-space:pre;cursor:pointer;border-bottom:1px solid #f7fafc}
.events li:hover{background:#f7fafc}
.events li.selected{background:#fefcbf}
.events li.kind-state{font-weight:bold}
.events li.kind-emitted{color:#2b6cb0}
.events li.kind-delay{color:#805ad5}
.events li.kind-actor{color:#4a5568}
g.visited>rect.state,g.visited>rect.cluster{fill:#ebf8ff}
g.current>rect.state,g.current>rect.cluster{stroke:#d53f8c;stroke-width:3}
</style>
</head>
<body>
<header><h1>${esc(title)}</h1><div>${trace.events.length} events${trace.dropped ? `, ${trace.dropped} earlier events dropped` : ""} · click an event or use ↑/↓</div></header>
<main>
<div class="diagram">
${toSvg(machine, options.regenerateCommand ? { regenerateCommand: options.regenerateCommand } : {}).replace(/^<svg /, '<svg id="machine" ')}
</div>
<ol class="events">
${items}
</ol>
</main>
<script>
const data = ${data};
const groups = new Map([...document.querySelectorAll("g[data-state]")].map((g) => [g.dataset.state, g]));
const items = [...document.querySelectorAll(".events li")];
const ids = (path) => path.split(".").map((_, i, parts) => data.machineId + "." + parts.slice(0, i + 1).join("."));
let selected = -1;
function select(i) {
  if (i < 0 || i >= items.length) return;
  selected = i;
  items.forEach((li, j) => li.classList.toggle("selected", j === i));
  items[i].scrollIntoView({ block: "nearest" });
  const visited = new Set();
  let current = [];
  for (let j = 0; j <= i; j++) {
    if (data.starts.includes(j)) visited.clear();
    if (data.states[j] === null) continue;
    current = ids(data.states[j]);
    current.forEach((id) => visited.add(id));
  }
  for (const [id, g] of groups) {
    g.classList.toggle("visited", visited.has(id));
    g.classList.toggle("current", current.includes(id));
  }
  const innermost = groups.get(current[current.length - 1]);
  if (innermost) innermost.scrollIntoView({ block: "center", inline: "center" });
}
items.forEach((li, i) => li.addEventListener("click", () => select(i)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowDown") { select(selected + 1); e.preventDefault(); }
  if (e.key === "ArrowUp") { select(selected - 1); e.preventDefault(); }
});
select(items.length - 1);
</script>
</body>
</html>
`;
}

function esc(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const KNOWN_MACHINES: readonly AnyStateMachine[] = [promptOperationMachine, runtimeMachine];

/** The Settle machine a trace was recorded from, by the id it names. */
function machineOfTrace(trace: LifecycleTrace): AnyStateMachine {
	const found = KNOWN_MACHINES.find((machine) => machine.id === trace.machine);
	if (found) return found;
	const known = KNOWN_MACHINES.map((machine) => machine.id).join(", ");
	throw new SettleError(
		"INVALID_ARGUMENT",
		trace.machine === undefined
			? `renderTraceHtml: the trace names no machine (it has no events); pass the machine to draw as the second argument.`
			: `renderTraceHtml: the trace is of machine "${trace.machine}", not one of Settle's (${known}); pass its machine definition as the second argument.`,
		{ details: { machine: trace.machine ?? null } },
	);
}
