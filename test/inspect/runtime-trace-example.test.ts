/**
 * `visualizations/runtime-trace-example.html`: the runtime machine's replacements (/new, fork, a
 * switch a `session_before_switch` handler cancels, the switch again) interleaved with the sessions'
 * prompt operations — the recording itself, and the page `npm run viz` writes, opened in real
 * headless Chromium (Debian's, see chromium.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { recordRuntimeExampleTrace } from "../../src/inspect/example-traces.js";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { RUNTIME_EXAMPLE_TRACE_FILE, writeVisualizations } from "../../src/inspect/visualizations.js";
import { REPLACEMENT_STATES } from "../runtime/helpers.js";
import { openChromium } from "./chromium.js";

/** The runtime's states, in order: /new (n1), fork (f2), the cancelled switch (s3), the switch (s4). */
const RUNTIME_PATH = [
	...REPLACEMENT_STATES,
	...REPLACEMENT_STATES.slice(1),
	"beforeSwitch",
	"active",
	...REPLACEMENT_STATES.slice(1),
];

const stateIndexes = (events: readonly LifecycleInspectionEvent[], machine: string, to?: string) =>
	events.flatMap((event, i) =>
		event.kind === "state" && event.machine === machine && (to === undefined || event.to === to) ? [i] : [],
	);

describe("the runtime example trace", () => {
	it("goes switch → teardown → rebind for each replacement, back to active for the cancelled one, between the sessions' operations", async () => {
		const { events, machines } = await recordRuntimeExampleTrace();
		expect(machines).toEqual(["runtime", "promptOperation"]);
		const runtimePath = stateIndexes(events, "runtime").map((i) => (events[i] as { to: string }).to);
		expect(runtimePath).toEqual(RUNTIME_PATH);
		const replacements = events.flatMap((event) =>
			event.kind === "emitted" && event.machine === "runtime" && event.type.startsWith("replacement_")
				? [`${event.type} ${(event.payload as { requestId: string }).requestId}`]
				: [],
		);
		expect(replacements).toEqual([
			"replacement_started n1",
			"replacement_completed n1",
			"replacement_started f2",
			"replacement_completed f2",
			"replacement_started s3",
			"replacement_cancelled s3",
			"replacement_started s4",
			"replacement_completed s4",
		]);

		// Four sessions (first, /new, fork, first again): each new one starts while the runtime rebinds.
		const sessionStarts = events.flatMap((event, i) =>
			event.kind === "state" && event.machine === "promptOperation" && event.from === null ? [i] : [],
		);
		expect(sessionStarts).toHaveLength(4);
		const rebinding = stateIndexes(events, "runtime", "rebinding");
		const active = stateIndexes(events, "runtime", "active");
		expect(rebinding).toHaveLength(3);
		sessionStarts.slice(1).forEach((start, n) => {
			expect(start).toBeGreaterThan(rebinding[n]!);
			expect(start).toBeLessThan(active.find((i) => i > rebinding[n]!)!);
		});

		// The first session's prompt retried, compacted and settled before /new; the second's before the fork.
		const at = (machine: string, kind: string, type: string) =>
			events.findIndex((e) => e.machine === machine && e.kind === kind && "type" in e && e.type === type);
		const settled = events.flatMap((e, i) => (e.kind === "emitted" && e.type === "operation_settled" ? [i] : []));
		expect(settled).toHaveLength(2);
		expect(stateIndexes(events, "promptOperation", "retrying")[0]).toBeLessThan(
			stateIndexes(events, "promptOperation", "compacting.working")[0]!,
		);
		expect(stateIndexes(events, "promptOperation", "compacting.working")[0]).toBeLessThan(settled[0]!);
		expect(settled[0]).toBeLessThan(at("runtime", "event", "NEW"));
		expect(settled[1]).toBeGreaterThan(sessionStarts[1]!);
		expect(settled[1]).toBeLessThan(at("runtime", "event", "FORK"));
	});
});

describe(`${RUNTIME_EXAMPLE_TRACE_FILE}, opened in Chromium`, () => {
	it("has a tab per machine; ↑/↓ step the runtime through switch → teardown → rebind, and the sessions through theirs", async () => {
		const dir = await mkdtemp(join(tmpdir(), "settle-runtime-example-"));
		const { browser, close } = await openChromium();
		try {
			await writeVisualizations(dir);
			const page = await browser.newPage();
			const errors: string[] = [];
			page.on("pageerror", (error) => errors.push(error.message));
			await page.goto(pathToFileURL(join(dir, RUNTIME_EXAMPLE_TRACE_FILE)).href);
			const marked = (cls: string) =>
				page.$$eval(`g[data-state].${cls}`, (groups) => groups.map((g) => g.getAttribute("data-state")));
			const selected = () =>
				page.$$eval("li[data-i]", (items) => {
					const li = items.find((item) => item.classList.contains("selected"));
					return { i: Number(li?.getAttribute("data-i")), machine: li?.getAttribute("data-machine") };
				});
			const boxWidth = async (state: string) =>
				(await page.locator(`g[data-state="${state}"] > rect`).first().boundingBox())?.width ?? 0;
			const machines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.getAttribute("data-machine")));
			const lines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.textContent ?? ""));
			/** The first event line containing `text` (a missing line fails here, not in a click that waits). */
			const lineWith = (text: string) => {
				const i = lines.findIndex((line) => line.includes(text));
				expect(i, `no event line with ${text}`).toBeGreaterThanOrEqual(0);
				return i;
			};
			const indexesOf = (machine: string) => machines.flatMap((m, i) => (m === machine ? [i] : []));
			const runtimeEvents = indexesOf("runtime");
			const sessionEvents = indexesOf("promptOperation");

			// Both tabs; the runtime's is shown, at the end of the example: active again, after three replacements.
			const tabs = page.locator("nav.machines button");
			expect(await tabs.allTextContents()).toEqual([
				`runtime · ${runtimeEvents.length} events`,
				`promptOperation · ${sessionEvents.length} events`,
			]);
			expect(runtimeEvents.length + sessionEvents.length).toBe(lines.length);
			expect(await tabs.nth(0).getAttribute("aria-pressed")).toBe("true");
			expect(await selected()).toEqual({ i: lines.length - 1, machine: "runtime" });
			expect(await marked("current")).toEqual(["runtime.active"]);
			expect(await marked("visited")).toEqual(
				expect.arrayContaining(["runtime.beforeSwitch", "runtime.creating", "runtime.disposing", "runtime.rebinding"]),
			);
			expect(await marked("visited")).not.toContain("runtime.rollingBack");
			expect(await marked("visited")).not.toContain("runtime.disposed");
			expect(await boxWidth("runtime.rebinding")).toBeGreaterThan(0);
			expect(await boxWidth("promptOperation.retrying")).toBe(0);

			// From the runtime's first event, ↓ visits exactly its events, in order, along its path.
			await page.locator(`li[data-i="${runtimeEvents[0]}"]`).click();
			expect(await marked("current")).toEqual(["runtime.active"]);
			const stepped = [runtimeEvents[0]!];
			const path = ["active"];
			for (let n = 1; n < runtimeEvents.length; n++) {
				await page.keyboard.press("ArrowDown");
				const now = await selected();
				expect(now.machine).toBe("runtime");
				stepped.push(now.i);
				const [current] = await marked("current");
				if (current !== `runtime.${path.at(-1)}`) path.push(current!.slice("runtime.".length));
				if (current === "runtime.rebinding") {
					// The old session is torn down before the new one is bound: the whole path is lit.
					expect(await marked("visited")).toEqual(
						expect.arrayContaining(
							[
								"active",
								"beforeSwitch",
								"opening",
								"creating",
								"settlingCurrent",
								"shuttingDown",
								"invalidating",
								"disposing",
							].map((state) => `runtime.${state}`),
						),
					);
				}
			}
			expect(stepped).toEqual(runtimeEvents);
			expect(path).toEqual(RUNTIME_PATH);
			await page.keyboard.press("ArrowDown");
			expect((await selected()).i).toBe(runtimeEvents.at(-1));
			await page.keyboard.press("ArrowUp");
			expect((await selected()).i).toBe(runtimeEvents.at(-2));

			// The cancelled switch: replacement_cancelled with the runtime back in active, nothing torn down.
			const cancelled = lineWith("emit    replacement_cancelled");
			expect(lines[cancelled]).toContain('"requestId":"s3"');
			await page.locator(`li[data-i="${cancelled}"]`).click();
			expect(await marked("current")).toEqual(["runtime.active"]);
			const beforeCancel = lineWith('checkBeforeSwitch done {"cancelled":true}');
			expect(beforeCancel).toBeLessThan(cancelled);
			await page.locator(`li[data-i="${beforeCancel}"]`).click();
			expect(await marked("current")).toEqual(["runtime.beforeSwitch"]);

			// The sessions' tab: the first session retried and compacted; ↓ from its last event skips the
			// runtime's replacement to the new session, whose visited states start over.
			await tabs.nth(1).click();
			expect(await tabs.nth(1).getAttribute("aria-pressed")).toBe("true");
			expect(await boxWidth("promptOperation.retrying")).toBeGreaterThan(0);
			expect(await boxWidth("runtime.rebinding")).toBe(0);
			const retrying = lineWith("postRun → retrying");
			await page.locator(`li[data-i="${retrying}"]`).click();
			expect(await marked("current")).toEqual(["promptOperation.retrying"]);
			const firstSettled = lineWith("emit    operation_settled");
			await page.locator(`li[data-i="${firstSettled}"]`).click();
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			expect(await marked("visited")).toEqual(
				expect.arrayContaining(["promptOperation.retrying", "promptOperation.compacting.working"]),
			);
			// The replaced session's actor stops while the runtime disposes it: the list says so, and
			// the diagram keeps the state it stopped in; then the new session starts over.
			await page.keyboard.press("ArrowDown");
			const stopped = await selected();
			expect(stopped.i).toBe(sessionEvents[sessionEvents.indexOf(firstSettled) + 1]);
			expect(lines[stopped.i]).toContain("actor   promptOperation stopped in idle (the actor itself)");
			expect(lines.slice(firstSettled + 1, stopped.i).some((line) => line.includes("invalidating → disposing"))).toBe(
				true,
			);
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			expect(await marked("visited")).toEqual(
				expect.arrayContaining(["promptOperation.idle", "promptOperation.retrying"]),
			);
			await page.keyboard.press("ArrowDown");
			const secondSession = await selected();
			expect(secondSession.machine).toBe("promptOperation");
			expect(secondSession.i).toBe(sessionEvents[sessionEvents.indexOf(stopped.i) + 1]);
			expect(lines.slice(stopped.i + 1, secondSession.i).some((line) => line.includes("rebinding"))).toBe(true);
			expect(lines[secondSession.i]).toContain("∅ → idle (inspect)");
			expect(await marked("visited")).toEqual(["promptOperation.idle"]);
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			await page.keyboard.press("ArrowUp");
			await page.keyboard.press("ArrowUp");
			expect((await selected()).i).toBe(firstSettled);

			// Clicking a runtime event from the sessions' tab shows the runtime's diagram again.
			const rebindingLine = lineWith("disposing → rebinding");
			await page.locator(`li[data-i="${rebindingLine}"]`).click();
			expect(await tabs.nth(0).getAttribute("aria-pressed")).toBe("true");
			expect(await marked("current")).toEqual(["runtime.rebinding"]);
			expect(errors).toEqual([]);
		} finally {
			await close();
			await rm(dir, { recursive: true, force: true });
		}
	});
});
