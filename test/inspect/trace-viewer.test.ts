import { describe, expect, it } from "vitest";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { formatLifecycleEvent } from "../../src/inspect/trace.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { recordExampleTrace } from "../../src/inspect/visualizations.js";

interface FakeElement {
	dataset: Record<string, string>;
	classes: Set<string>;
	classList: { toggle(name: string, on: boolean): void };
	click?: () => void;
	addEventListener(type: string, fn: () => void): void;
	scrollIntoView(): void;
}

function element(dataset: Record<string, string> = {}): FakeElement {
	const classes = new Set<string>();
	const el: FakeElement = {
		dataset,
		classes,
		classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)) },
		addEventListener: (type, fn) => {
			if (type === "click") el.click = fn;
		},
		scrollIntoView: () => undefined,
	};
	return el;
}

/** Runs the page's script against a stub DOM built from the page's own markup. */
function load(html: string) {
	const groups = [...html.matchAll(/<g data-state="([^"]+)">/g)].map((m) => element({ state: m[1] as string }));
	const items = [...html.matchAll(/<li data-i="(\d+)"/g)].map(() => element());
	let onKey: ((e: { key: string; preventDefault(): void }) => void) | undefined;
	const document = {
		querySelectorAll: (selector: string) => (selector.startsWith("g[") ? groups : items),
		addEventListener: (_: string, fn: typeof onKey) => {
			onKey = fn;
		},
	};
	const script = html.slice(html.indexOf("<script>") + 8, html.indexOf("</script>"));
	new Function("document", script)(document);
	const marked = (cls: string) => groups.filter((g) => g.classes.has(cls)).map((g) => g.dataset.state);
	return {
		items,
		current: () => marked("current"),
		visited: () => marked("visited"),
		key: (key: string) => onKey?.({ key, preventDefault: () => undefined }),
		selected: () => items.findIndex((li) => li.classes.has("selected")),
	};
}

describe("renderTraceHtml", () => {
	it("lists every event and highlights the current and visited states as you step through", async () => {
		const trace = await recordExampleTrace();
		const html = renderTraceHtml(trace, promptOperationMachine);
		expect(html.startsWith("<!doctype html>")).toBe(true);
		expect(html).not.toMatch(/<script src|<link /);
		const origin = trace.events[0]?.at ?? 0;
		for (const event of trace.events) {
			const line = formatLifecycleEvent(event, origin)
				.replace(/&/g, "&amp;")
				.replace(/</g, "&lt;")
				.replace(/>/g, "&gt;")
				.replace(/"/g, "&quot;");
			expect(html).toContain(line);
		}

		const page = load(html);
		expect(page.items).toHaveLength(trace.events.length);
		// Initially the last event is selected: the request has settled.
		expect(page.selected()).toBe(trace.events.length - 1);
		expect(page.current()).toEqual(["promptOperation.idle"]);
		expect(page.visited()).toEqual(
			expect.arrayContaining([
				"promptOperation.retrying",
				"promptOperation.compacting",
				"promptOperation.compacting.working",
			]),
		);
		expect(page.visited()).not.toContain("promptOperation.branchSummary");

		const retrying = trace.events.findIndex((e) => e.kind === "state" && e.to === "retrying");
		page.items[retrying]?.click?.();
		expect(page.current()).toEqual(["promptOperation.retrying"]);
		expect(page.visited()).not.toContain("promptOperation.compacting");
		page.key("ArrowDown");
		expect(page.selected()).toBe(retrying + 1);
		expect(page.current()).toEqual(["promptOperation.retrying"]);
		page.items[0]?.click?.();
		page.key("ArrowUp");
		expect(page.selected()).toBe(0);
	});

	it("keeps event text from breaking out of the script or the markup", () => {
		const html = renderTraceHtml(
			{
				format: "settle.lifecycle-trace",
				version: 1,
				dropped: 2,
				events: [{ seq: 1, at: 0, machine: "promptOperation", kind: "event", type: "</script><b>x</b>" }],
			},
			promptOperationMachine,
			{ title: "<t>" },
		);
		expect(html.match(/<\/script>/g)).toHaveLength(1);
		expect(html).toContain("&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;");
		expect(html).toContain("<title>&lt;t&gt;</title>");
		expect(html).toContain("2 earlier events dropped");
	});
});
