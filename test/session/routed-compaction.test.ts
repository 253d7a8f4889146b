/**
 * pi 1.6: when a virtual model routes a request to a model whose window the conversation no longer
 * fits (over its compaction threshold), the session compacts BEFORE sending — inside the run, in
 * the machine's `running.compacting` — and sends on the same route. Through the public API, on the
 * faux provider, with real JSONL session files.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { calculateContextTokens, estimateMessageTokens, validAssistantUsage } from "../../src/llm/tokens.js";
import type { AgentMessage, AssistantMessage, Context, Model } from "../../src/llm/types.js";
import type { ModelRouteRequest } from "../../src/llm/virtual-models.js";
import { COMPACTION_SUMMARY_PREFIX } from "../../src/session/convert-to-llm.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";
import { errorReply, gate, isSummarization, recoveryLabels, script, userTexts } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** small's threshold: 4000 − 1000 = 3000 tokens. */
const MODELS = [
	{ id: "small", contextWindow: 4000 },
	{ id: "big", contextWindow: 500_000 },
];
const COMPACTION = { reserveTokens: 1000, keepRecentTokens: 1 };
/** About 4000 tokens: after it, the conversation no longer fits small. */
const LONG = "y".repeat(16_000);

interface Routed {
	seen: ModelRouteRequest[];
}

/**
 * `router/auto` selected: agent-loop requests go to the models of `targets` in turn; summaries
 * (`direct`) to big. Each routed request stores the count of routed requests as router state.
 */
async function routedHarness(targets: readonly string[], options: HarnessOptions = {}): Promise<Routed> {
	const seen: ModelRouteRequest[] = [];
	h = await createHarness({
		models: MODELS,
		tools: [],
		persistence: "disk",
		...options,
		settings: { compaction: COMPACTION, ...options.settings },
	});
	let routed = 0;
	h.modelRuntime.registerVirtualModel({
		provider: "router",
		id: "auto",
		name: "Auto",
		route: (request) => {
			seen.push(request);
			if (request.reason === "direct") return { model: h.getModel("big")!, thinkingLevel: "off" };
			const target = targets[routed++] ?? "big";
			return { model: h.getModel(target)!, thinkingLevel: "off", state: { routed } };
		},
	});
	await h.session.setModel(h.modelRuntime.getModel("router", "auto")!);
	return { seen };
}

/** The text of an LLM message (user text or assistant text). */
function textOf(message: Context["messages"][number]): string {
	if (typeof message.content === "string") return message.content;
	return message.content.map((block) => ("text" in block ? block.text : "")).join("");
}

/** Entry types of the session file after the header (custom entries by their customType). */
function fileEntries(): string[] {
	const file = h.session.sessionFile!;
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; customType?: string; message?: { role: string } })
		.slice(1)
		.map((entry) =>
			entry.type === "message"
				? `message:${entry.message!.role}`
				: entry.type === "custom"
					? `custom:${entry.customType}`
					: entry.type,
		);
}

describe("compaction before a routed request (pi 1.6)", () => {
	it("routed to a smaller window: compacts first, inside the run, and sends the compacted context on the same route", async () => {
		const hooks: string[] = [];
		const extension = (pi: ExtensionAPI) => {
			pi.on("session_before_compact", (event) => {
				hooks.push(`before_compact(${event.reason},willRetry=${event.willRetry})`);
			});
			pi.on("session_compact", (event) => {
				hooks.push(`compact(${event.reason},willRetry=${event.willRetry})`);
			});
		};
		const { seen } = await routedHarness(["big", "small"], { extensionFactories: [extension] });
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage(LONG),
			fauxAssistantMessage("short answer"),
		]);
		await h.session.prompt("one");
		expect(h.eventsOfType("compaction_start")).toEqual([]); // big's window holds it
		h.events.length = 0;
		const during: unknown[] = [];
		h.session.subscribe((event) => {
			if (event.type === "compaction_start" || event.type === "compaction_end") {
				during.push([event.type, h.session.lifecycle, h.session.isCompacting, h.session.isStreaming]);
			}
		});

		await h.session.prompt("two");

		// pi's order: the user message, the router's state, the compaction, then the routed request.
		expect(recoveryLabels(h.events)).toEqual([
			"agent_start",
			"turn_start",
			"message_start(user)",
			"message_end(user)",
			"entry_appended(custom)",
			"compaction_start(threshold)",
			"compaction_end(threshold,result,aborted=false,willRetry=false)",
			"message_start(assistant)",
			"message_end(assistant)",
			"turn_end",
			"agent_end(willRetry=false)",
			"agent_settled",
		]);
		expect(hooks).toEqual(["before_compact(threshold,willRetry=false)", "compact(threshold,willRetry=false)"]);
		expect(during).toEqual([
			["compaction_start", "running.compacting.working", true, true],
			["compaction_end", "running.compacting.working", true, true],
		]);
		expect(h.session.lifecycle).toBe("idle");
		expect(h.session.isCompacting).toBe(false);

		// The route was decided once: the summary is routed on its own (`direct`), the request is not re-routed.
		expect(seen.map((request) => request.reason)).toEqual(["user", "user", "direct"]);
		expect(summaryRequests).toHaveLength(1);
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["big", "big", "small"]);
		// The request to small carries the compacted context: the summary, then what was kept.
		const sent = answerRequests[1]!;
		expect(textOf(sent.messages[0]!)).toContain(`${COMPACTION_SUMMARY_PREFIX}## Goal\nsummary 1`);
		expect(userTexts(sent).at(-1)).toBe("two");
		expect(sent.messages.some((message) => textOf(message).includes(LONG))).toBe(false);
		const end = h.eventsOfType("compaction_end")[0]!;
		expect(end.result?.tokensBefore).toBeGreaterThan(3000);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", model: "small" });

		// The session file: state entry, compaction, then small's answer; reopening gives the live context.
		expect(fileEntries().slice(-4)).toEqual([
			"message:user",
			"custom:pi.virtual-model-state",
			"compaction",
			"message:assistant",
		]);
		const reopened = SessionManager.open(h.session.sessionFile!, undefined, undefined, { readOnly: true });
		try {
			expect(reopened.buildSessionContext().messages).toEqual(h.session.messages);
		} finally {
			reopened.close();
		}
	});

	it("a route whose window holds the conversation sends without compacting", async () => {
		const { seen } = await routedHarness(["big", "big", "small", "small"]);
		script(h, [
			fauxAssistantMessage(LONG),
			fauxAssistantMessage("fits big"),
			fauxAssistantMessage("x"),
			fauxAssistantMessage("y"),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(seen.map((request) => request.reason)).toEqual(["user", "user"]);

		// A short conversation routed to small fits it too.
		h.cleanup();
		await routedHarness(["small", "small"]);
		script(h, [fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["small", "small"]);
	});

	it("with a system prompt forced by before_agent_start, the compacted context goes out with it", async () => {
		const extension = (pi: ExtensionAPI) => {
			pi.on("before_agent_start", () => ({ systemPrompt: "FORCED PROMPT" }));
		};
		await routedHarness(["big", "small"], { extensionFactories: [extension] });
		const { answerRequests } = script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("ok")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "threshold", aborted: false }),
		]);
		const sent = answerRequests[1]!;
		expect(sent.systemPrompt).toBe("FORCED PROMPT");
		expect(textOf(sent.messages[0]!)).toContain(COMPACTION_SUMMARY_PREFIX);
		expect(sent.messages.some((message) => textOf(message) === LONG)).toBe(false);
	});

	it("a routed model with an unknown window (0) never triggers it", async () => {
		await routedHarness(["big", "unknown"], {
			models: [...MODELS, { id: "unknown", contextWindow: 0 }],
		});
		script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("ok")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["big", "unknown"]);
	});

	it("usage from before the latest compaction is not trusted: the request is estimated from its messages", async () => {
		await routedHarness(["big", "big", "small"]);
		script(h, [fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await h.session.prompt(LONG);
		await h.session.prompt("one");
		// Keeps "one" and "b"; b's usage still counts the LONG prompt the summary replaced.
		await h.session.compact();
		const kept = h.session.messages.at(-1) as AssistantMessage;
		expect(kept.usage.totalTokens).toBeGreaterThan(4000);
		h.events.length = 0;
		script(h, [fauxAssistantMessage("fits")]);
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.faux.requests.at(-1)?.model.id).toBe("small");
	});

	it("with compaction disabled, the request goes to the routed model as it is", async () => {
		await routedHarness(["big", "small"], { settings: { compaction: { ...COMPACTION, enabled: false } } });
		const { answerRequests } = script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("no room")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.faux.requests.map((request) => request.model.id)).toEqual(["big", "small"]);
		expect(answerRequests[1]!.messages.some((message) => textOf(message) === LONG)).toBe(true);
		expect(fileEntries()).not.toContain("compaction");
	});

	it("abort() during it: the compaction ends aborted, nothing is sent to the routed model, one agent_settled", async () => {
		await routedHarness(["big", "small"]);
		const summary = gate();
		script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("never sent")], {
			summary: () => summary.promise.then(() => fauxAssistantMessage("## Goal\nlate summary")),
		});
		await h.session.prompt("one");
		h.events.length = 0;
		const started = h.nextEvent("compaction_start");
		const prompt = h.session.prompt("two");
		await started;
		expect(h.session.lifecycle).toBe("running.compacting.working");
		const aborted = h.session.abort();
		expect(h.session.lifecycle).toBe("running.compacting.aborting");
		summary.release();
		await aborted;
		await prompt;

		expect(recoveryLabels(h.events)).toEqual([
			"agent_start",
			"turn_start",
			"message_start(user)",
			"message_end(user)",
			"entry_appended(custom)",
			"compaction_start(threshold)",
			"compaction_end(threshold,none,aborted=true,willRetry=false)",
			"message_start(assistant)",
			"message_end(assistant)",
			"turn_end",
			"agent_end(willRetry=false)",
			"agent_settled",
		]);
		expect(h.faux.requests.map((request) => request.model.id)).not.toContain("small");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted", model: "small" });
		expect(h.session.lifecycle).toBe("idle");
		expect(fileEntries()).not.toContain("compaction");
	});

	it("abortCompaction() during it cancels only the compaction: the request goes out uncompacted on the same route", async () => {
		const { seen } = await routedHarness(["big", "small"]);
		const summary = gate();
		const { answerRequests } = script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("still answered")], {
			summary: () => summary.promise.then(() => fauxAssistantMessage("## Goal\nlate summary")),
		});
		await h.session.prompt("one");
		const started = h.nextEvent("compaction_start");
		const prompt = h.session.prompt("two");
		await started;
		h.session.abortCompaction();
		summary.release();
		await prompt;
		// small answered a context over its window: the post-run check compacts it (pi's case 2, never re-run).
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "threshold", aborted: true, willRetry: false, result: undefined }),
			expect.objectContaining({ reason: "overflow", aborted: false, willRetry: false }),
		]);
		// The route stands; the last `direct` is the post-run overflow compaction's summary.
		expect(seen.map((request) => request.reason)).toEqual(["user", "user", "direct", "direct"]);
		expect(answerRequests[1]!.messages.some((message) => textOf(message) === LONG)).toBe(true);
		expect(h.session.messages.at(-1)).toMatchObject({ model: "small", content: [{ text: "still answered" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	it("a failing summarizer is reported as pi reports it, and the request is still sent (the route stands)", async () => {
		const failures: unknown[] = [];
		const extension = (pi: ExtensionAPI) => {
			pi.on("session_compact_failed", (event) => {
				failures.push({ reason: event.reason, aborted: event.aborted, errorMessage: event.errorMessage });
			});
		};
		await routedHarness(["big", "small"], {
			extensionFactories: [extension],
			settings: { retry: { enabled: false } },
		});
		const { answerRequests } = script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("answered anyway")], {
			summary: () => errorReply("invalid_request_error: summary refused"),
		});
		await h.session.prompt("one");
		h.events.length = 0;
		await h.session.prompt("two");
		const failed = "Auto-compaction failed: Summarization failed: invalid_request_error: summary refused";
		expect(recoveryLabels(h.events).slice(4, 8)).toEqual([
			"entry_appended(custom)",
			"compaction_start(threshold)",
			`compaction_end(threshold,none,aborted=false,willRetry=false,${failed})`,
			"message_start(assistant)",
		]);
		// small's answer is over its window, so the post-run check tries again (overflow, never re-run) and fails the same way.
		expect(failures).toEqual([
			{ reason: "threshold", aborted: false, errorMessage: failed },
			{
				reason: "overflow",
				aborted: false,
				errorMessage: "Context overflow recovery failed: Summarization failed: invalid_request_error: summary refused",
			},
		]);
		expect(answerRequests[1]!.messages.some((message) => textOf(message) === LONG)).toBe(true);
		// one, the failed summary (direct → big), two on its route, then the post-run overflow summaries.
		const models = h.faux.requests.map((request) => request.model.id);
		expect(models.slice(0, 3)).toEqual(["big", "big", "small"]);
		expect(models.slice(3).every((id) => id === "big")).toBe(true);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1); // events were cleared after "one"
		expect(fileEntries()).not.toContain("compaction");
	});

	it("inspect() and trace() show it inside the run, as running.compacting with reason threshold", async () => {
		await routedHarness(["big", "small"]);
		script(h, [fauxAssistantMessage(LONG), fauxAssistantMessage("ok")]);
		await h.session.prompt("one");
		const events: LifecycleInspectionEvent[] = [];
		const subscription = h.session.inspect((event) => events.push(event));
		const trace = h.session.trace();
		await h.session.prompt("two");
		subscription.unsubscribe();
		trace.stop();

		const states = events.flatMap((event) =>
			event.kind === "state"
				? [`${event.to}${event.details.compactionReason ? ` ${event.details.compactionReason}` : ""}`]
				: [],
		);
		expect(states).toEqual([
			"idle",
			"preflight",
			"running.working",
			"running.compacting.working threshold",
			"running.working",
			"postRun",
			"beforeSettle.working",
			"settling",
			"idle",
		]);
		const emitted = events.flatMap((event) => (event.kind === "emitted" ? [event.type] : []));
		expect(emitted).toContain("request_compaction_done");
		// One run: the compaction does not start another.
		expect(emitted.filter((type) => type === "run_requested")).toHaveLength(1);
		const text = formatTrace(trace);
		expect(text).toMatch(
			/running\.working → running\.compacting\.working \(REQUEST_NEEDS_COMPACTION\) run 1 \(prompt\), reason threshold/,
		);
		expect(text).toMatch(/emit {4}request_compaction_done/);
	});
});

/**
 * The threshold estimate, written from pi 1.6's definition (`estimateProjectedContextTokens`): the
 * last valid usage plus estimates of the messages after it, or — when that usage is older than the
 * latest compaction — the estimate of every message.
 */
function oracleTokens(messages: readonly AgentMessage[], fresh: ReadonlySet<AgentMessage>): number {
	for (let i = messages.length - 1; i >= 0; i--) {
		const usage = validAssistantUsage(messages[i]!);
		if (!usage) continue;
		if (!fresh.has(messages[i]!)) break;
		let tokens = calculateContextTokens(usage);
		for (const message of messages.slice(i + 1)) tokens += estimateMessageTokens(message);
		return tokens;
	}
	return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

describe("property: routed requests and the routed model's threshold", () => {
	it("a request is compacted first exactly when it is over the routed model's threshold (and there is something to compact)", async () => {
		let compactedBeforeRequests = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					smallWindow: fc.integer({ min: 1500, max: 12_000 }),
					reserve: fc.integer({ min: 200, max: 1200 }),
					enabled: fc.boolean(),
					turns: fc.array(
						fc.record({ model: fc.constantFrom("small", "big"), answerChars: fc.integer({ min: 1, max: 12_000 }) }),
						{ minLength: 1, maxLength: 6 },
					),
				}),
				async ({ smallWindow, reserve, enabled, turns }) => {
					h?.cleanup();
					h = await createHarness({
						models: [
							{ id: "small", contextWindow: smallWindow },
							{ id: "big", contextWindow: 1_000_000 },
						],
						tools: [],
						settings: { compaction: { enabled, reserveTokens: reserve, keepRecentTokens: 1 } },
					});
					const windows: Record<string, Model> = { small: h.getModel("small")!, big: h.getModel("big")! };
					/** Responses produced after the latest compaction: their usage describes the live context. */
					const fresh = new Set<AgentMessage>();
					h.session.subscribe((event) => {
						if (event.type === "compaction_end" && event.result) fresh.clear();
						if (event.type === "message_end" && event.message.role === "assistant") fresh.add(event.message);
					});
					const checks: { model: string; over: boolean; compactable: boolean; compactionsBefore: number }[] = [];
					let routed = 0;
					h.modelRuntime.registerVirtualModel({
						provider: "router",
						id: "auto",
						name: "Auto",
						route: (request) => {
							if (request.reason === "direct") return { model: windows.big!, thinkingLevel: "off" };
							const model = windows[turns[routed++]!.model]!;
							const tokens = oracleTokens(h.session.messages, fresh);
							checks.push({
								model: model.id,
								// pi#8651: the reserve is capped at half the window.
								over: enabled && tokens > model.contextWindow - Math.min(reserve, Math.floor(model.contextWindow / 2)),
								compactable:
									prepareCompaction(h.sessionManager.getBranch(), h.settingsManager.getCompactionSettings()) !==
									undefined,
								compactionsBefore: h.eventsOfType("compaction_start").length,
							});
							return { model, thinkingLevel: "off" };
						},
					});
					await h.session.setModel(h.modelRuntime.getModel("router", "auto")!, { persist: false });
					const sent: { model: string; compactionsSoFar: number; summaryFirst: boolean }[] = [];
					h.setResponses(
						Array.from({ length: 64 }, () => (context: Context, _options: unknown, _state: unknown, model: Model) => {
							if (isSummarization(context)) return fauxAssistantMessage("## Goal\nsummary");
							sent.push({
								model: model.id,
								compactionsSoFar: h.eventsOfType("compaction_start").length,
								summaryFirst: textOf(context.messages[0]!).startsWith(COMPACTION_SUMMARY_PREFIX),
							});
							return fauxAssistantMessage("z".repeat(turns[sent.length - 1]!.answerChars));
						}),
					);
					for (let i = 0; i < turns.length; i++) await h.session.prompt(`prompt ${i}`);

					expect(sent.map((request) => request.model)).toEqual(turns.map((turn) => turn.model));
					expect(checks).toHaveLength(turns.length);
					for (let i = 0; i < turns.length; i++) {
						const check = checks[i]!;
						// Only compactions between routing and sending count (post-run ones come after the answer).
						const compactedBeforeRequest = sent[i]!.compactionsSoFar > check.compactionsBefore;
						expect(compactedBeforeRequest, `request ${i}`).toBe(check.over && check.compactable);
						if (compactedBeforeRequest) compactedBeforeRequests++;
						// A compaction before the request (summaries never fail here) starts the context it carries.
						if (compactedBeforeRequest) expect(sent[i]!.summaryFirst, `request ${i}`).toBe(true);
					}
					expect(h.eventsOfType("agent_settled")).toHaveLength(turns.length);
					expect(h.session.lifecycle).toBe("idle");
				},
			),
			{
				numRuns: 40,
				// At least one case where it happens: a long answer from big, then a request routed to small.
				examples: [
					[
						{
							smallWindow: 4000,
							reserve: 1000,
							enabled: true,
							turns: [
								{ model: "big", answerChars: 12_000 },
								{ model: "small", answerChars: 10 },
							],
						},
					],
					// Regression (stop 42's CI, seed -847457447): a reserve over half the window is capped.
					[
						{
							smallWindow: 1515,
							reserve: 758,
							enabled: true,
							turns: [
								{ model: "small", answerChars: 2485 },
								{ model: "small", answerChars: 1 },
							],
						},
					],
				],
			},
		);
		expect(compactedBeforeRequests).toBeGreaterThan(0);
	});
});
