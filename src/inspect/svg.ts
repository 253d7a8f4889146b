/**
 * Machine definition → standalone SVG, laid out with @dagrejs/dagre. Our own writer (no browser,
 * no fonts to measure): monospace text with a fixed advance, coordinates rounded to 0.1 px, so the
 * output is byte-for-byte deterministic and can be checked in and compared in tests.
 *
 * Compound states are drawn as clusters: each one is laid out on its own (its children, their
 * edges and an initial marker), then placed as one box in its parent's layout, so edges into or
 * out of a compound state attach to the cluster's border.
 */
import type { AnyStateMachine } from "xstate";
import { loadDagre } from "../lazy-deps.js";
import {
	describeMachine,
	generatedNote,
	internalTransitionLines,
	type MachineModel,
	type PlacedTransition,
	placeTransitions,
	type StateModel,
	stateDetailLines,
	type TransitionModel,
	wrapText,
} from "./machine-model.js";

/** Options for {@link toSvg}. */
export interface SvgOptions {
	/** Heading above the diagram; defaults to the machine id. */
	title?: string;
	/** The command that regenerates this file, named in its header comment (e.g. `npm run viz`). */
	regenerateCommand?: string;
}

const FONT = 12;
const CHAR = 7.2; // advance of a 12px monospace glyph
const TITLE_CHAR = 7.8; // 13px bold monospace
const LINE = 15;
const TITLE_LINE = 18;
const PAD_X = 10;
const PAD_Y = 8;
const DETAIL_WRAP = 46;
const EDGE_WRAP = 34;
const EDGE_CHAR = 6.6; // 11px monospace

/**
 * The text of the diagram's `<style>` element, as it stands between the tags (a page that embeds
 * the SVG allows it by this text's hash in its Content-Security-Policy).
 */
export const SVG_STYLE = `
.heading{font-size:16px;font-weight:bold;fill:#1a202c}
.state{fill:#f7fafc;stroke:#4a5568;stroke-width:1.2}
.cluster{fill:#edf2f7;stroke:#718096;stroke-width:1.2}
.name{font-size:13px;font-weight:bold;fill:#1a202c}
.detail{fill:#4a5568}
.rule{stroke:#a0aec0;stroke-width:1}
.edge{fill:none;stroke:#4a5568;stroke-width:1.2}
.edge-label-bg{fill:#ffffff;fill-opacity:0.9;stroke:none}
.edge-label{fill:#2d3748;font-size:11px}
.initial{fill:#1a202c}
`;
const EDGE_LINE = 13;
const INITIAL_SIZE = 12;
const MARGIN = 16;

interface Box {
	width: number;
	height: number;
	/** SVG elements with the box's top-left corner at (x, y). */
	render(x: number, y: number): string[];
}

/**
 * Renders a machine as a standalone SVG document: states as rounded boxes (name, description,
 * invocations, entry actions, internal transitions), compound states as clusters, final states with
 * a double border, edges labelled like the Mermaid export. Deterministic byte for byte; pure.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * writeFileSync("runtime.svg", toSvg(runtimeMachine));
 * ```
 */
export function toSvg(machine: AnyStateMachine, options: SvgOptions = {}): string {
	return renderSvg(describeMachine(machine), options);
}

/**
 * {@link toSvg} for an already described machine.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const model = describeMachine(runtimeMachine);
 * writeFileSync("runtime.svg", renderSvg(model, { title: "Runtime" }));
 * ```
 */
export function renderSvg(model: MachineModel, options: SvgOptions = {}): string {
	const placed = placeTransitions(model);
	const body = layoutLevel(model.root, placed);
	const title = options.title ?? model.id;
	const headerLines: { text: string; cls: string }[] = [{ text: title, cls: "heading" }];
	if (model.description) {
		for (const line of wrapText(model.description, 100)) headerLines.push({ text: line, cls: "detail" });
	}
	for (const line of internalTransitionLines(model.root, placed))
		headerLines.push({ text: `any state: ${line}`, cls: "detail" });
	const headerHeight = headerLines.length * TITLE_LINE + PAD_Y;
	const headerWidth = Math.max(...headerLines.map((line) => line.text.length * (line.cls === "heading" ? 9.6 : CHAR)));
	const width = Math.max(body.width, headerWidth) + 2 * MARGIN;
	const height = headerHeight + body.height + 2 * MARGIN;

	const out: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${FONT}">`,
		`<title>${esc(title)}</title>`,
		`<!-- ${generatedNote("toSvg", options.regenerateCommand)} -->`,
		`<style>${SVG_STYLE}</style>`,
		'<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#4a5568"/></marker></defs>',
		`<rect x="0" y="0" width="${n(width)}" height="${n(height)}" fill="#ffffff"/>`,
	];
	headerLines.forEach((line, i) => {
		out.push(
			`<text x="${n(MARGIN)}" y="${n(MARGIN + (i + 1) * TITLE_LINE - 4)}" class="${line.cls}">${esc(line.text)}</text>`,
		);
	});
	out.push(...body.render(MARGIN, MARGIN + headerHeight));
	out.push("</svg>");
	return `${out.join("\n")}\n`;
}

/** Lays out the children of `container` (and the edges between them) as one box. */
function layoutLevel(container: StateModel, placed: readonly PlacedTransition[]): Box {
	const dagre = loadDagre();
	const g = new dagre.graphlib.Graph({ multigraph: true });
	g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 40, edgesep: 14, marginx: 8, marginy: 8 });
	g.setDefaultEdgeLabel(() => ({}));

	const boxes = new Map<string, Box>();
	for (const child of container.children) {
		const box = child.children.length ? clusterBox(child, placed) : stateBox(child, placed);
		boxes.set(child.id, box);
		g.setNode(child.id, { width: box.width, height: box.height });
	}
	const initialId = `${container.id}#initial`;
	const edgeLabels = new Map<string, LabelLine[]>();
	if (container.initial && boxes.has(container.initial)) {
		g.setNode(initialId, { width: INITIAL_SIZE, height: INITIAL_SIZE });
		g.setEdge(initialId, container.initial, { minlen: 1, weight: 4 }, "initial");
	}
	// Parallel transitions between the same two boxes share one edge with stacked labels.
	const merged = new Map<string, LabelLine[]>();
	const order: { key: string; from: string; to: string }[] = [];
	for (const entry of placed) {
		if (entry.kind !== "edge" || entry.container !== container) continue;
		const key = `${entry.from.id}\u0000${entry.to.id}`;
		let lines = merged.get(key);
		if (!lines) {
			lines = [];
			merged.set(key, lines);
			order.push({ key, from: entry.from.id, to: entry.to.id });
		}
		const transition = transitionKey(entry.transition);
		lines.push(...edgeLabelLines(entry.transition, entry).map((text) => ({ text, transition })));
	}
	order.forEach(({ key, from, to }, index) => {
		const lines = merged.get(key) ?? [];
		const name = `e${index}`;
		edgeLabels.set(name, lines);
		const texts = lines.map((line) => line.text);
		g.setEdge(from, to, { width: labelWidth(texts), height: labelHeight(texts), labelpos: "c" }, name);
	});
	dagre.layout(g);
	const graph = g.graph() as { width?: number; height?: number };
	const width = graph.width ?? 0;
	const height = graph.height ?? 0;

	return {
		width,
		height,
		render(ox, oy) {
			const out: string[] = [];
			for (const child of container.children) {
				const node = g.node(child.id) as { x: number; y: number; width: number; height: number };
				const box = boxes.get(child.id);
				if (box) out.push(...box.render(ox + node.x - node.width / 2, oy + node.y - node.height / 2));
			}
			if (g.hasNode(initialId)) {
				const node = g.node(initialId) as { x: number; y: number };
				out.push(`<circle cx="${n(ox + node.x)}" cy="${n(oy + node.y)}" r="${n(INITIAL_SIZE / 2)}" class="initial"/>`);
			}
			for (const e of g.edges()) {
				const edge = g.edge(e) as { points?: { x: number; y: number }[]; x?: number; y?: number };
				const points = (edge.points ?? []).map((p) => ({ x: ox + p.x, y: oy + p.y }));
				if (points.length < 2) continue;
				// One group per edge: a viewer marks the edge of the transition a trace took (data-transition).
				out.push('<g class="link">');
				out.push(`<path class="edge" d="${pathData(points)}" marker-end="url(#arrow)"/>`);
				const lines = e.name ? edgeLabels.get(e.name) : undefined;
				if (lines && edge.x !== undefined && edge.y !== undefined) {
					const texts = lines.map((line) => line.text);
					const w = labelWidth(texts);
					const h = labelHeight(texts);
					const lx = ox + edge.x - w / 2;
					const ly = oy + edge.y - h / 2;
					out.push(`<rect class="edge-label-bg" x="${n(lx)}" y="${n(ly)}" width="${n(w)}" height="${n(h)}" rx="3"/>`);
					lines.forEach((line, i) => {
						out.push(
							`<text class="edge-label" data-transition="${esc(line.transition)}" x="${n(lx + 4)}" y="${n(ly + 2 + (i + 1) * EDGE_LINE - 3)}">${esc(line.text)}</text>`,
						);
					});
				}
				out.push("</g>");
			}
			return out;
		},
	};
}

/** Name, then a rule, then description / invoke / entry / internal transition lines. */
function headerLines(state: StateModel, placed: readonly PlacedTransition[]): string[] {
	const lines: string[] = [];
	for (const detail of stateDetailLines(state, placed, DETAIL_WRAP)) {
		lines.push(...hangingWrap(detail, DETAIL_WRAP));
	}
	return lines;
}

function stateBox(state: StateModel, placed: readonly PlacedTransition[]): Box {
	const details = headerLines(state, placed);
	const width = Math.max(state.key.length * TITLE_CHAR, ...details.map((line) => line.length * CHAR), 60) + 2 * PAD_X;
	const height = TITLE_LINE + (details.length ? details.length * LINE + 6 : 0) + 2 * PAD_Y;
	const final = state.type === "final";
	return {
		width,
		height,
		render(x, y) {
			const out = [`<g data-state="${esc(state.id)}">`];
			out.push(`<rect class="state" x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" rx="8"/>`);
			if (final) {
				out.push(
					`<rect class="state" x="${n(x + 3)}" y="${n(y + 3)}" width="${n(width - 6)}" height="${n(height - 6)}" rx="6"/>`,
				);
			}
			out.push(...textBlock(state.key, details, x, y, width));
			out.push("</g>");
			return out;
		},
	};
}

function clusterBox(state: StateModel, placed: readonly PlacedTransition[]): Box {
	const details = headerLines(state, placed);
	const inner = layoutLevel(state, placed);
	const headerHeight = TITLE_LINE + (details.length ? details.length * LINE + 6 : 0) + PAD_Y;
	const width =
		Math.max(state.key.length * TITLE_CHAR, ...details.map((line) => line.length * CHAR), inner.width) + 2 * PAD_X;
	const height = headerHeight + inner.height + 2 * PAD_Y;
	return {
		width,
		height,
		render(x, y) {
			const out = [`<g data-state="${esc(state.id)}">`];
			out.push(`<rect class="cluster" x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" rx="10"/>`);
			out.push(...textBlock(state.key, details, x, y, width));
			out.push(...inner.render(x + (width - inner.width) / 2, y + PAD_Y + headerHeight));
			out.push("</g>");
			return out;
		},
	};
}

function textBlock(name: string, details: string[], x: number, y: number, width: number): string[] {
	const out = [`<text class="name" x="${n(x + PAD_X)}" y="${n(y + PAD_Y + 13)}">${esc(name)}</text>`];
	if (details.length) {
		const ruleY = y + PAD_Y + TITLE_LINE + 2;
		out.push(`<line class="rule" x1="${n(x + 1)}" y1="${n(ruleY)}" x2="${n(x + width - 1)}" y2="${n(ruleY)}"/>`);
		details.forEach((line, i) => {
			out.push(`<text class="detail" x="${n(x + PAD_X)}" y="${n(ruleY + 2 + (i + 1) * LINE - 3)}">${esc(line)}</text>`);
		});
	}
	return out;
}

/** One line of an edge's label and the transition it describes ({@link transitionKey}). */
interface LabelLine {
	text: string;
	transition: string;
}

/**
 * Names one transition of a machine the way a trace does: `<source state id>|<trigger>|<rank>`,
 * e.g. `promptOperation.postRun|always|2` (rank empty when the trigger has one candidate). The
 * viewers compute it from a state change's `transition` to mark the edge taken.
 */
export function transitionKey(t: Pick<TransitionModel, "sourceId" | "trigger" | "priority">): string {
	return `${t.sourceId}|${t.trigger}|${t.priority ?? ""}`;
}

/** Edge label: trigger (+ priority, guard) first, then `/ actions` wrapped at commas. */
function edgeLabelLines(t: TransitionModel, entry: Extract<PlacedTransition, { kind: "edge" }>): string[] {
	const lines: string[] = [];
	let head = t.trigger + (t.priority !== undefined ? ` (${t.priority})` : "");
	if (entry.source !== entry.from) head = `${entry.source.path.slice(entry.from.path.length - 1).join(".")}: ${head}`;
	if (t.guard) {
		if (head.length + t.guard.length + 3 <= EDGE_WRAP) head += ` [${t.guard}]`;
		else {
			lines.push(head);
			head = `[${t.guard}]`;
		}
	}
	lines.push(head);
	if (t.actions.length) {
		let line = "/";
		t.actions.forEach((action, i) => {
			const piece = `${action}${i < t.actions.length - 1 ? "," : ""}`;
			if (line.length > 1 && line.length + 1 + piece.length > EDGE_WRAP) {
				lines.push(line);
				line = `  ${piece}`;
			} else {
				line = `${line} ${piece}`;
			}
		});
		lines.push(line);
	}
	if (entry.target !== entry.to) lines.push(`→ ${entry.target.path.slice(entry.to.path.length - 1).join(".")}`);
	return lines;
}

function labelWidth(lines: string[]): number {
	return Math.max(0, ...lines.map((line) => line.length)) * EDGE_CHAR + 8;
}

function labelHeight(lines: string[]): number {
	return lines.length * EDGE_LINE + 4;
}

/** Wraps long lines with a two-space hanging indent. */
function hangingWrap(text: string, width: number): string[] {
	if (text.length <= width) return [text];
	const [first, ...rest] = wrapText(text, width);
	const tail = rest.length ? wrapText(rest.join(" "), width - 2).map((line) => `  ${line}`) : [];
	return [first ?? "", ...tail];
}

/** A smooth path through dagre's points (quadratic segments between midpoints). */
function pathData(points: { x: number; y: number }[]): string {
	const first = points[0];
	const last = points[points.length - 1];
	if (!first || !last) return "";
	let d = `M${n(first.x)},${n(first.y)}`;
	for (let i = 1; i < points.length - 1; i++) {
		const p = points[i];
		const next = points[i + 1];
		if (!p || !next) continue;
		d += ` Q${n(p.x)},${n(p.y)} ${n((p.x + next.x) / 2)},${n((p.y + next.y) / 2)}`;
	}
	d += ` L${n(last.x)},${n(last.y)}`;
	return d;
}

/** Rounds to 0.1 and prints without trailing zeros or `-0`. */
function n(value: number): string {
	const rounded = Math.round(value * 10) / 10;
	return Object.is(rounded, -0) ? "0" : String(rounded);
}

function esc(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
