/**
 * Debugging a bad run the way the README suggests, on a real session with its JSONL on disk: a
 * request fails twice with retryable errors (a steer and a follow-up typed during the first backoff),
 * then overflows and is compacted (a follow-up typed during the compaction), then answers. From the
 * trace alone — saved to a file, loaded back, rendered, opened in headless Chromium — a reader must
 * be able to tell which decision sent the machine each way (the guard), which error, and what became
 * of every queued message; and one disposed mid-backoff must show as never delivered.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { queueHistory } from "../../src/inspect/queue-history.js";
import { formatTrace, type LifecycleTrace } from "../../src/inspect/trace.js";
import { loadTrace, saveTrace } from "../../src/inspect/trace-file.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
	h?.cleanup();
	h = undefined;
	if (dir) await rm(dir, { recursive: true, force: true });
	dir = undefined;
});

/** What the in-page functions use (the DOM is not in this project's TypeScript lib). */
type PageGlobals = { getComputedStyle(element: unknown): Record<string, string> };

const OVERFLOW = `prompt is too long: 213462 tokens > 200000 maximum (request id req_${"7".repeat(150)})`;

/** The bad run, recorded; the trace goes through a real file and back. */
async function badRun(): Promise<{ trace: LifecycleTrace; sessionFile: string }> {
	h = await createHarness({
		simulatedClock: true,
		persistence: "disk",
		settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
	});
	const session = h.session;
	h.setResponses([fauxAssistantMessage("The build uses esbuild.")]);
	await session.prompt("What does the build use?");
	let steered = false;
	let followed = false;
	session.subscribe((event) => {
		if (event.type === "auto_retry_start" && !steered) {
			steered = true;
			void session.steer("use the new API please");
			void session.followUp("then write the changelog");
		}
		if (event.type === "compaction_start" && !followed) {
			followed = true;
			void session.followUp("and bump the version");
		}
	});
	h.setResponses([
		fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded" }),
		fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
		fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW }),
		fauxAssistantMessage("## Goal\nBuild.\n\n## Done\nesbuild."),
		fauxAssistantMessage("Run npm run build."),
		fauxAssistantMessage("Changelog written."),
		fauxAssistantMessage("Version bumped."),
	]);
	const recording = session.trace();
	await h.settle(session.prompt("And how do I run it?"));
	recording.stop();
	dir = await mkdtemp(join(tmpdir(), "settle-bad-run-"));
	const file = join(dir, "run.trace.json");
	await saveTrace(file, recording);
	return { trace: await loadTrace(file), sessionFile: session.sessionFile! };
}

describe("debugging a bad run from its trace", () => {
	it("the text says which guard chose each path and which error; every queued message's fate is known", async () => {
		const { trace } = await badRun();
		const lines = formatTrace(trace)
			.split("\n")
			.map((line) => line.slice(9));
		const decisions = lines.filter(
			(line) => line.startsWith("state   postRun →") || line.startsWith("event   RUN_DONE"),
		);
		expect(decisions).toEqual([
			"event   RUN_DONE error (retryable): 529 overloaded",
			"state   postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 2000ms",
			"event   RUN_DONE error (retryable): 503 Service Unavailable · messages queued",
			"state   postRun → retrying (always (2) [canRetry]) attempt 2/3, delay 4000ms",
			`event   RUN_DONE error (overflow): ${OVERFLOW} · messages queued`,
			"state   postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry",
			"event   RUN_DONE stop",
			"state   postRun → beforeSettle.working (always (9))",
		]);
		expect(lines).toContain(
			"state   compacting.working → running.working (done(compaction) (3) [compactedForRetry]) run 4 (compaction)",
		);

		const fates = queueHistory(trace).map((m) => ({
			what: `${m.queue} ${m.text}`,
			queued: m.queued.run ?? m.queued.state,
			fate: m.fate,
			where: m.settled?.run ?? m.settled?.state,
		}));
		expect(fates).toEqual([
			{ what: "steering use the new API please", queued: "retrying", fate: "delivered", where: "2 (retry)" },
			{ what: "followUp then write the changelog", queued: "retrying", fate: "delivered", where: "4 (compaction)" },
			{
				what: "followUp and bump the version",
				queued: "compacting.working",
				fate: "delivered",
				where: "4 (compaction)",
			},
		]);
		// Each one points at its queue_changed events.
		for (const message of queueHistory(trace)) {
			expect(trace.events[message.queued.index]).toMatchObject({ kind: "emitted", type: "queue_changed" });
			expect(trace.events[message.settled!.index]).toMatchObject({
				kind: "emitted",
				type: "queue_changed",
				payload: { change: "delivered", text: message.text },
			});
		}
	});

	it("the viewer marks the edge taken and its guard, shows a selected event whole, and lists the queue's fates", async () => {
		const { trace, sessionFile } = await badRun();
		const html = renderTraceHtml(trace);
		const { browser, close } = await openChromium();
		try {
			const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
			const errors: string[] = [];
			page.on("pageerror", (error) => errors.push(error.message));
			await page.setContent(html);
			const taken = () => page.locator("text.edge-label.taken").allTextContents();
			const current = () =>
				page.$$eval("g[data-state].current", (groups) => groups.map((g) => g.getAttribute("data-state")));

			// The overflow: the edge postRun → compacting is marked, and of its three labels only the guard that held.
			await page.locator(".events li", { hasText: "postRun → compacting.working" }).click();
			expect(await current()).toEqual(["promptOperation.compacting", "promptOperation.compacting.working"]);
			expect(await taken()).toEqual([
				"always (3) [canRecoverOverflow]",
				"/ concludeRetrySequence,",
				"  markOverflowRecovery,",
				"  setCompaction(overflow, true)",
			]);
			const edge = page.locator("g.link.taken");
			expect(await edge.count()).toBe(1);
			expect(await edge.textContent()).toContain("[overThreshold]"); // the same edge, another guard: not marked
			expect(
				await edge
					.locator("path.edge")
					.evaluate((path) => (globalThis as unknown as PageGlobals).getComputedStyle(path).stroke),
			).toBe("rgb(213, 63, 140)");
			// The retries before it stay marked as walked.
			expect(await page.locator("g.link.walked", { hasText: "[canRetry]" }).count()).toBe(1);
			// ↑ back to the second retry: its edge is the taken one now.
			for (let i = 0; i < 20 && !(await page.locator("li.selected").textContent())?.includes("→ retrying"); i++) {
				await page.keyboard.press("ArrowUp");
			}
			expect(await page.locator("li.selected").textContent()).toContain("postRun → retrying (always (2) [canRetry])");
			expect(await taken()).toEqual(["always (2) [canRetry]", "/ scheduleRetry"]);

			// The compaction's line says what it did, with the ids of the session's JSONL; the selected
			// event is shown whole below the list (its line cuts long payloads): the summary written.
			const entries = readFileSync(sessionFile, "utf8")
				.trim()
				.split("\n")
				.map(
					(line) =>
						JSON.parse(line) as {
							type: string;
							id: string;
							firstKeptEntryId?: string;
							tokensBefore?: number;
							summary?: string;
						},
				);
			const compaction = entries.find((entry) => entry.type === "compaction");
			const done = page.locator(".events li", { hasText: "compaction done" });
			// The entry the compaction wrote, and the context's estimated size after it (from compaction_end).
			expect(await done.textContent()).toMatch(
				new RegExp(
					`actor   compaction done: compacted ${compaction?.tokensBefore} tokens to ~\\d+ \\(entry ${compaction?.id}\\), first kept entry ${compaction?.firstKeptEntryId} · the operation continues`,
				),
			);
			await done.click();
			const shown = JSON.parse((await page.locator("#detail").textContent()) ?? "");
			expect(shown).toMatchObject({ kind: "actor", phase: "done", id: "compaction" });
			expect(shown.output.result.summary).toBe(compaction?.summary);
			const prompt = page.locator(".events li", { hasText: "emit    run_requested" }).first();
			expect(await prompt.textContent()).toMatch(/\.\.\.$/);
			await prompt.click();
			expect(JSON.parse((await page.locator("#detail").textContent()) ?? "").payload.input.payload).toHaveLength(1);

			// The queue: each message, where it was queued, and where it was delivered; a click goes there.
			expect(await page.locator(".queue summary").textContent()).toBe("Queued messages: 3 (3 delivered)");
			expect(await page.locator(".queue li").allTextContents()).toEqual([
				'steer "use the new API please" queued +0ms in retrying → delivered +2000ms in run 2 (retry)',
				'follow-up "then write the changelog" queued +0ms in retrying → delivered +6000ms in run 4 (compaction)',
				'follow-up "and bump the version" queued +6000ms in compacting.working → delivered +6000ms in run 4 (compaction)',
			]);
			await page.locator(".queue li").first().locator("[data-i]").last().click();
			expect(await page.locator("li.selected").textContent()).toContain('(delivered steer "use the new API please")');
			expect(await current()).toEqual(["promptOperation.running", "promptOperation.running.working"]);
			expect(errors).toEqual([]);
		} finally {
			await close();
		}
	});

	it("a long session (10,000 events kept, older ones dropped): the filter finds the one retry and ↓ steps through the matches", async () => {
		h = await createHarness({ simulatedClock: true, persistence: "disk" });
		const recording = h.session.trace();
		for (let i = 0; i < 650; i++) {
			if (i === 600) {
				h.setResponses([
					fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded" }),
					fauxAssistantMessage("answer after the retry"),
					fauxAssistantMessage("the follow-up's answer"),
				]);
				const retried = h.session.prompt(`question ${i}`);
				await h.nextEvent("auto_retry_start");
				await h.session.followUp("the needle follow-up");
				await h.settle(retried);
				continue;
			}
			h.setResponses([fauxAssistantMessage(`answer ${i}`)]);
			await h.session.prompt(`question ${i}`);
		}
		recording.stop();
		dir = await mkdtemp(join(tmpdir(), "settle-bad-run-"));
		const file = join(dir, "long.trace.json");
		await saveTrace(file, recording);
		const trace = await loadTrace(file);
		expect(trace.events).toHaveLength(10_000);
		expect(trace.dropped).toBeGreaterThan(0);

		const { browser, close } = await openChromium();
		try {
			const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
			await page.setContent(renderTraceHtml(trace));
			expect(await page.locator(".queue summary").textContent()).toBe("Queued messages: 1 (1 delivered)");
			await page.locator("#filter").fill("retrying|needle");
			const visible = page.locator("#filtered li");
			expect(await visible.allTextContents()).toEqual([
				expect.stringContaining("postRun → retrying (always (2) [canRetry]) attempt 1/3, delay 2000ms"),
				expect.stringContaining("delay   retryDelay 2000ms scheduled in retrying"),
				expect.stringContaining('(follow-up "the needle follow-up")'),
				expect.stringContaining("delay   retryDelay fired in retrying"),
				expect.stringContaining("retrying → running.working (after retryDelay) run 2 (retry)"),
				expect.stringContaining('(delivered follow-up "the needle follow-up")'),
			]);
			// Each queue change once (the emitted queue_changed, not also the QUEUE_CHANGED it echoes).
			expect(await page.locator("#matches").textContent()).toMatch(/^6 of \d+ events match$/);
			await visible.first().click();
			expect(await page.locator("text.edge-label.taken").first().textContent()).toBe("always (2) [canRetry]");
			for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowDown");
			expect(await page.locator("#filtered li.selected").textContent()).toContain('(follow-up "the needle follow-up")');
			// The diagram follows every event up to the selected one, shown or not.
			expect(
				await page.$$eval("g[data-state].current", (groups) => groups.map((g) => g.getAttribute("data-state"))),
			).toEqual(["promptOperation.retrying"]);
			await page.locator("#filter").fill("");
			expect(await page.locator("#events").isVisible()).toBe(true);
			expect(await visible.count()).toBe(0);
			expect(await page.locator("#matches").textContent()).toBe("");
			// The whole list again, with the selection made while filtered.
			expect(await page.locator("#events li.selected").textContent()).toContain('(follow-up "the needle follow-up")');
		} finally {
			await close();
		}
	});

	it("an overflow with nothing to compact says so: the request ends without an answer", async () => {
		h = await createHarness({ persistence: "disk" });
		const lines = await overflowTrace(h);
		const from = lines.indexOf(
			"state   postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry",
		);
		expect(from).toBeGreaterThan(0);
		expect(lines.slice(from + 1).filter((line) => line.startsWith("actor") || line.startsWith("state"))).toEqual([
			"actor   compaction invoked",
			"actor   compaction done: not compacted: nothing to compact (all of it is within compaction.keepRecentTokens)",
			"state   compacting.working → beforeSettle.working (done(compaction) (5))",
			"state   beforeSettle.working → settling (always (2) [beforeSettleSkipped])",
			"state   settling → idle (SETTLE_DONE)",
		]);
		expect(h.eventsOfType("compaction_start")).toEqual([]);
	});

	it("an overflow whose compaction an extension's session_before_compact cancels names that extension, as agent_settled.errorMessage and compaction_end.cancelledBy do", async () => {
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [(pi) => pi.on("session_before_compact", () => ({ cancel: true }))],
		});
		const lines = await overflowTrace(h);
		const extension = h.eventsOfType("compaction_end")[0]?.cancelledBy;
		expect(extension).toBeTypeOf("string");
		expect(h.eventsOfType("agent_settled").at(-1)?.errorMessage).toContain(`cancelled by the extension ${extension}`);
		expect(lines.filter((line) => line.startsWith("actor   compaction done"))).toEqual([
			`actor   compaction done: cancelled by the extension ${extension} (its session_before_compact handler)`,
		]);
	});

	it("a follow-up left queued when the session is disposed during a backoff shows as never delivered", async () => {
		h = await createHarness({ simulatedClock: true, persistence: "disk" });
		const session = h.session;
		h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded" })]);
		const recording = session.trace();
		const done = session.prompt("deploy it").catch(() => undefined);
		await h.nextEvent("auto_retry_start");
		await session.steer("not to production");
		await session.followUp("and tell me when");
		session.clearQueue();
		await session.followUp("then post in the channel");
		session.dispose();
		await done;
		dir = await mkdtemp(join(tmpdir(), "settle-bad-run-"));
		const file = join(dir, "disposed.trace.json");
		await saveTrace(file, recording);
		const trace = await loadTrace(file);
		expect(queueHistory(trace).map((m) => [m.text, m.fate, m.queued.state, m.settled?.state])).toEqual([
			["not to production", "cleared", "retrying", "retrying"],
			["and tell me when", "cleared", "retrying", "retrying"],
			["then post in the channel", "pending", "retrying", undefined],
		]);
		expect(session.getFollowUpMessages()).toEqual(["then post in the channel"]);

		const { browser, close } = await openChromium();
		try {
			const page = await browser.newPage();
			await page.setContent(renderTraceHtml(trace));
			expect(await page.locator(".queue summary").textContent()).toBe(
				"Queued messages: 3 (0 delivered, 2 cleared, 1 never delivered)",
			);
			const lost = page.locator(".queue li.fate-pending");
			expect(await lost.textContent()).toBe(
				`follow-up "then post in the channel" queued +0ms in retrying → never delivered: still queued when promptOperation's part of the trace ends`,
			);
			expect(await lost.evaluate((li) => (globalThis as unknown as PageGlobals).getComputedStyle(li).color)).toBe(
				"rgb(197, 48, 48)",
			);
		} finally {
			await close();
		}
	});
});

/** A first answer, then a second prompt whose request overflows: the trace lines of that prompt, times cut off. */
async function overflowTrace(harness: Harness): Promise<string[]> {
	harness.setResponses([
		fauxAssistantMessage("short answer"),
		fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW }),
	]);
	await harness.session.prompt("first");
	const recording = harness.session.trace();
	await harness.session.prompt("second");
	recording.stop();
	return formatTrace(recording)
		.split("\n")
		.map((line) => line.slice(9));
}
