import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import {
	allTransitions,
	describeMachine,
	placeTransitions,
	transitionLabel,
	triggerLabel,
} from "../../src/inspect/machine-model.js";
import { toMermaid } from "../../src/inspect/mermaid.js";
import { toSvg } from "../../src/inspect/svg.js";
import { sampleMachine } from "./sample-machine.js";

describe("describeMachine", () => {
	it("keeps definition order, priorities, guards, delays, static action params and invocations", () => {
		const model = describeMachine(sampleMachine);
		expect(model.root.children.map((s) => s.key)).toEqual(["off", "on", "broken"]);
		const on = model.root.children[1];
		expect(on?.initial).toBe("sample.on.warming");
		expect(on?.invokes).toEqual([{ id: "warmer", src: "warmUp" }]);
		expect(on?.entry).toEqual(["act"]);
		expect(allTransitions(model).map(transitionLabel)).toEqual([
			"RESET / act",
			"GO (1) [ok] / act, note(info)",
			"GO (2)",
			"STOP",
			"PING / act",
			"after wait",
			"COOL",
		]);
		const after = allTransitions(model).find((t) => t.trigger === "after wait");
		expect(after).toMatchObject({ delay: "wait", targets: ["sample.on.hot"], sourceId: "sample.on.warming" });
	});

	it("names XState's internal events for humans", () => {
		expect(triggerLabel("")).toBe("always");
		expect(triggerLabel("xstate.after.retryDelay.promptOperation.retrying")).toBe("after retryDelay");
		expect(triggerLabel("xstate.done.actor.run")).toBe("done(run)");
		expect(triggerLabel("xstate.error.actor.compaction")).toBe("error(compaction)");
		expect(triggerLabel("PROMPT")).toBe("PROMPT");
	});

	it("places edges on the deepest level containing both ends; targetless ones inside their state", () => {
		const placed = placeTransitions(describeMachine(sampleMachine));
		const summary = placed.map((p) =>
			p.kind === "edge" ? `${p.container.key}: ${p.from.key}→${p.to.key}` : `internal ${p.state.key}`,
		);
		expect(summary).toEqual([
			"internal sample",
			"sample: off→on",
			"sample: off→broken",
			"sample: on→off",
			"internal warming",
			"on: warming→hot",
			"on: hot→warming",
		]);
	});
});

describe("toMermaid", () => {
	const text = toMermaid(sampleMachine);
	const lines = text.split("\n");

	it("writes a stateDiagram-v2 with nested composite states and labelled edges", () => {
		expect(lines.slice(0, 4)).toEqual(["---", "title: sample", "---", "stateDiagram-v2"]);
		for (const line of [
			"    [*] --> off",
			"    state on {",
			"        [*] --> on_warming",
			'        state "warming" as on_warming',
			"        on_warming --> on_hot : after wait",
			"        on_hot --> on_warming : COOL",
			"        on_warming : PING / act",
			"    off --> on : GO (1) [ok] / act, note(info)",
			"    off --> broken : GO (2)",
			"    on --> off : STOP",
			"    broken --> [*]",
			"    note right of on",
			"        invoke warmUp as warmer",
			"        any state RESET / act",
		]) {
			expect(lines).toContain(line);
		}
	});

	it("keeps Mermaid's special characters out of labels", () => {
		expect(lines).toContain("    broken : Gone for ‹good› & 'ever'");
		const labels = lines.filter((line) => line.includes(" : ")).map((line) => line.slice(line.indexOf(" : ") + 3));
		for (const label of labels) expect(label).not.toMatch(/[:;#{}"<>]/);
	});

	it("is deterministic and gives nested states with the same key distinct ids", () => {
		expect(toMermaid(sampleMachine)).toBe(text);
		const po = toMermaid(promptOperationMachine);
		expect(po).toContain('state "aborting" as running_aborting');
		expect(po).toContain('state "aborting" as compacting_aborting');
		expect(po).toContain("postRun --> retrying : always (2) [canRetry] / scheduleRetry");
		expect(po).toContain("retrying --> running : after retryDelay / setRunCause(retry)");
	});

	it("uses the title option", () => {
		expect(toMermaid(sampleMachine, { title: "Sample: demo" }).split("\n")[1]).toBe("title: Sample - demo");
	});
});

interface Rect {
	x: number;
	y: number;
	width: number;
	height: number;
}

function stateRects(svg: string): Map<string, Rect> {
	const rects = new Map<string, Rect>();
	const re =
		/<g data-state="([^"]+)">\n<rect class="(?:state|cluster)" x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"/g;
	for (const m of svg.matchAll(re)) {
		rects.set(m[1] as string, { x: Number(m[2]), y: Number(m[3]), width: Number(m[4]), height: Number(m[5]) });
	}
	return rects;
}

/** Balanced tags and no stray `<`/`&` in text: enough to know a browser will parse it. */
function assertWellFormed(svg: string) {
	const stack: string[] = [];
	const body = svg.replace(/<!--[\s\S]*?-->/g, "");
	for (const m of body.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*?)(\/?)>/g)) {
		const [, closing, name, , selfClosing] = m;
		if (selfClosing) continue;
		if (closing) expect(stack.pop()).toBe(name);
		else stack.push(name as string);
	}
	expect(stack).toEqual([]);
	const text = body.replace(/<[^>]*>/g, "");
	expect(text).not.toMatch(/[<>]/);
	expect(text.replace(/&(amp|lt|gt|quot);/g, "")).not.toContain("&");
}

describe("toSvg", () => {
	const svg = toSvg(sampleMachine);

	it("writes a well-formed standalone SVG with every state, escaped text and no NaN", () => {
		expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
		expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
		assertWellFormed(svg);
		expect(svg).not.toContain("NaN");
		expect([...stateRects(svg).keys()]).toEqual([
			"sample.off",
			"sample.on",
			"sample.on.warming",
			"sample.on.hot",
			"sample.broken",
		]);
		expect(svg).toContain("Gone for &lt;good&gt; &amp; &quot;ever&quot;");
		expect(svg).toContain(">after wait<");
		expect(svg).toContain(">GO (1) [ok]<");
		expect(svg).toContain(">/ act, note(info)<");
		// One edge per connected box pair (3 at the root, 2 inside `on`) + one initial edge per level.
		expect(svg.match(/<path class="edge"/g)?.length).toBe(3 + 2 + 2);
		expect(svg.match(/class="initial"/g)?.length).toBe(2);
	});

	it("draws compound states as clusters around their children, without overlapping siblings", () => {
		const rects = stateRects(svg);
		const on = rects.get("sample.on") as Rect;
		for (const child of ["sample.on.warming", "sample.on.hot"]) {
			const r = rects.get(child) as Rect;
			expect(r.x).toBeGreaterThan(on.x);
			expect(r.y).toBeGreaterThan(on.y);
			expect(r.x + r.width).toBeLessThan(on.x + on.width);
			expect(r.y + r.height).toBeLessThan(on.y + on.height);
		}
		const top = ["sample.off", "sample.on", "sample.broken"].map((id) => rects.get(id) as Rect);
		for (const [i, a] of top.entries()) {
			for (const b of top.slice(i + 1)) {
				const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
				expect(apart).toBe(true);
			}
		}
	});

	it("is deterministic byte for byte and fits its content in the viewBox", () => {
		expect(toSvg(sampleMachine)).toBe(svg);
		const [, w, h] = svg.match(/viewBox="0 0 ([\d.]+) ([\d.]+)"/) ?? [];
		for (const r of stateRects(svg).values()) {
			expect(r.x + r.width).toBeLessThanOrEqual(Number(w));
			expect(r.y + r.height).toBeLessThanOrEqual(Number(h));
		}
	});

	it("lays out the real machines without overlapping top-level states", () => {
		const po = toSvg(promptOperationMachine);
		assertWellFormed(po);
		const rects = stateRects(po);
		const top = [...rects.entries()].filter(([id]) => id.split(".").length === 2).map(([, r]) => r);
		expect(top).toHaveLength(9);
		for (const [i, a] of top.entries()) {
			for (const b of top.slice(i + 1)) {
				const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
				expect(apart).toBe(true);
			}
		}
	});

	it("draws a transition into a nested state from outside as an edge to its cluster, naming the target", () => {
		const machine = setup({}).createMachine({
			id: "jump",
			initial: "a",
			states: { a: { on: { DEEP: "b.inner2" } }, b: { initial: "inner1", states: { inner1: {}, inner2: {} } } },
		});
		const out = toSvg(machine);
		assertWellFormed(out);
		expect(out).toContain(">DEEP<");
		expect(out).toContain(">→ b.inner2<");
		expect(toMermaid(machine)).toContain("a --> b_inner2 : DEEP");
	});
});
