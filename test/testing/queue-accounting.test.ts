/**
 * `queueViolations` (inside `harnessViolations`): every queued steering / follow-up text is
 * delivered exactly once, still listed, or returned by `clearQueue()` — and a session that drops,
 * repeats or double-lists one is named with the text and where it was found.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { createHarness, getUserTexts, type Harness } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";
import { queueViolations } from "../../src/testing/queue-invariants.js";
import { encodeImage } from "../tools/image-resize-helpers.js";

/** A tool that returns once the test releases it, so the run is mid-tool while the test queues. */
function gatedTool() {
	let release: () => void = () => {};
	let started: () => void = () => {};
	const isStarted = new Promise<void>((resolve) => {
		started = resolve;
	});
	const tool = {
		name: "gate",
		label: "Gate",
		description: "waits",
		parameters: { type: "object", properties: {} },
		execute: async () => {
			const released = new Promise<void>((resolve) => {
				release = resolve;
			});
			started();
			await released;
			return { content: [{ type: "text" as const, text: "ok" }], details: {} };
		},
	};
	return { tool, started: isStarted, release: () => release() };
}

const open: Harness[] = [];
afterEach(() => {
	for (const h of open.splice(0)) h.cleanup();
});

/** A harness whose run stops in the gate tool; the test queues, then releases it. */
async function midTool() {
	const gate = gatedTool();
	const h = await createHarness({ simulatedClock: true, customTools: [gate.tool] });
	open.push(h);
	h.setResponses([
		fauxAssistantMessage([fauxToolCall("gate", {})], { stopReason: "toolUse" }),
		fauxAssistantMessage("after steer"),
		fauxAssistantMessage("after follow-up"),
	]);
	const done = h.session.prompt("go");
	await gate.started;
	return { h, done, release: gate.release };
}

/** `session` with its log, lists or messages replaced: a session that broke the queue contract. */
function tampered(session: AgentSession, overrides: PropertyDescriptorMap): AgentSession {
	return Object.create(session, overrides) as AgentSession;
}

describe("queue accounting", () => {
	it("steered and followed-up texts delivered once, one still listed and one cleared: clean", async () => {
		const { h, done, release } = await midTool();
		await h.session.steer("use tabs");
		await h.session.followUp("then the tests");
		release();
		await h.settle(done);
		expect(getUserTexts(h)).toEqual(["go", "use tabs", "then the tests"]);
		await h.session.steer("queued while idle");
		await h.session.followUp("dropped");
		expect(h.session.clearQueue()).toEqual({ steering: ["queued while idle"], followUp: ["dropped"] });
		await h.session.followUp("still listed");
		expect(h.clearedQueue).toEqual([{ steering: ["queued while idle"], followUp: ["dropped"] }]);
		expect(queueViolations(h)).toEqual([]);
		expect(harnessViolations(h)).toEqual([]);
	});

	it("the same text queued twice is delivered twice: counted per queueing, clean", async () => {
		const { h, done, release } = await midTool();
		await h.session.steer("again");
		await h.session.steer("again");
		release();
		await h.settle(done);
		expect(getUserTexts(h).filter((text) => text === "again")).toHaveLength(2);
		expect(harnessViolations(h)).toEqual([]);
	});

	it("names a queued text that was dropped, one delivered twice, and one delivered but still listed", async () => {
		const { h, done, release } = await midTool();
		await h.session.steer("use tabs");
		release();
		await h.settle(done);
		expect(queueViolations(h)).toEqual([]);
		const entries = h.sessionManager.getEntries();
		const isSteer = (entry: (typeof entries)[number]) =>
			entry.type === "message" && entry.message.role === "user" && JSON.stringify(entry.message).includes("use tabs");
		const log = (list: typeof entries) => ({
			value: Object.create(h.sessionManager, { getEntries: { value: () => list } }),
		});

		const dropped = tampered(h.session, { sessionManager: log(entries.filter((entry) => !isSteer(entry))) });
		expect(queueViolations({ ...h, session: dropped })).toEqual([
			'queued steering text "use tabs": 1 lost (neither delivered, still listed, nor returned by clearQueue()) — queued 1×, delivered 0×, still listed 0×, cleared 0×',
		]);

		const twice = tampered(h.session, { sessionManager: log([...entries, entries.find(isSteer)!]) });
		expect(harnessViolations({ ...h, session: twice })).toContain(
			'queued steering text "use tabs": delivered more often than queued — queued 1×, delivered 2× (log messages 4, 6), still listed 0×, cleared 0×',
		);

		const listed = tampered(h.session, { getSteeringMessages: { value: () => ["use tabs"] } });
		expect(queueViolations({ ...h, session: listed })).toEqual([
			'queued steering text "use tabs": delivered and still listed — queued 1×, delivered 1× (log message 4), still listed 1×, cleared 0×',
		]);

		// Cleared but then delivered anyway: clearQueue() returned it.
		const cleared = [{ steering: ["use tabs"], followUp: [] }];
		expect(queueViolations({ ...h, clearedQueue: cleared })).toEqual([
			'queued steering text "use tabs": returned by clearQueue() and delivered — queued 1×, delivered 1× (log message 4), still listed 0×, cleared 1×',
		]);
	});

	// Found by the queue-races property once its messages carried images: the delivered message says
	// its text plus the resize's note, the list said the text, and the steer was reported lost.
	it("a steer whose image was resized and a follow-up whose image was dropped count as delivered, not lost", async () => {
		const { h, done, release } = await midTool();
		const tall = encodeImage("png", 160, 2100, 1, 0).toString("base64");
		await h.session.steer("look at this page", [{ type: "image", data: tall, mimeType: "image/png" }]);
		await h.session.followUp("and this file", [{ type: "image", data: "AAAA", mimeType: "image/tiff" }]);
		release();
		await h.settle(done);
		expect(getUserTexts(h).slice(1)).toEqual([
			"look at this page\n\n[Image: original 160x2100, displayed at 152x2000. Multiply coordinates by 1.05 to map to original image.]",
			"and this file\n\n[Image 1 omitted: image/tiff is not a supported image type (image/png, image/jpeg, image/gif, image/webp).]",
		]);
		expect(queueViolations(h)).toEqual([]);
		expect(harnessViolations(h)).toEqual([]);
	});

	it("a follow-up queued by prompt(…, { streamingBehavior }) while busy counts as queued", async () => {
		const { h, done, release } = await midTool();
		const queued = h.session.prompt("also docs", { streamingBehavior: "followUp" });
		release();
		await h.settle(Promise.all([done, queued]));
		await h.settle(h.session.waitForIdle());
		expect(getUserTexts(h)).toContain("also docs");
		const withoutDelivery = tampered(h.session, {
			sessionManager: {
				value: Object.create(h.sessionManager, {
					getEntries: {
						value: () =>
							h.sessionManager
								.getEntries()
								.filter((entry) => !(entry.type === "message" && JSON.stringify(entry.message).includes("also docs"))),
					},
				}),
			},
		});
		expect(queueViolations({ ...h, session: withoutDelivery })[0]).toMatch(/^queued followUp text "also docs": 1 lost/);
		expect(harnessViolations(h)).toEqual([]);
	});
});

describe("clearQueue() while the run has taken a queued message", () => {
	// Found by queueViolations: at `turn_start` the Agent has already taken the queued steer for this
	// turn, but it is listed until its `message_start`; clearQueue() there returned it as dropped,
	// and it was delivered anyway.
	it("does not return a steer the run has already taken; the steer stays listed and is delivered", async () => {
		const { h, done, release } = await midTool();
		await h.session.steer("use tabs");
		await h.session.steer("and spaces");
		let listedAfterClear: string[] | undefined;
		const off = h.session.subscribe((event) => {
			if (event.type === "turn_start" && listedAfterClear === undefined) {
				h.session.clearQueue();
				listedAfterClear = h.session.getSteeringMessages().slice();
			}
		});
		release();
		await h.settle(done);
		off();
		// one-at-a-time: the run took "use tabs" for this turn; "and spaces" was still queued
		expect(h.clearedQueue).toEqual([{ steering: ["and spaces"], followUp: [] }]);
		expect(listedAfterClear).toEqual(["use tabs"]);
		expect(getUserTexts(h)).toContain("use tabs");
		expect(getUserTexts(h)).not.toContain("and spaces");
		expect(h.session.getSteeringMessages()).toEqual([]);
		expect(queueViolations(h)).toEqual([]);
	});
});
