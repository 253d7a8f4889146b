/**
 * No abort is ever lost (DESIGN invariant 8): every abortable operation is started on a real
 * session (real files, a real shell), then aborted at each position of a sweep — 0…15 microtask
 * turns, then 1…12 event-loop turns after the call — so an abort lands in every window between
 * the user's call and the point where the operation's cancellation signal is wired (a dynamic
 * `import()`, an auth check, an extension hook). The faux model is gated: it would answer if the
 * work were not cancelled. For every position: the operation reports cancelled/aborted and settles
 * once, nothing is started after the abort (no model or summary request, no hook that starts the
 * run, no tool, no shell command), nothing is written for it (no compaction or branch summary
 * entry), and the session answers the next prompt.
 *
 * Three lost aborts of this class were found by luck before this sweep existed (branch summary,
 * compaction, user bash); each window is one position of the sweep here.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Context } from "../../src/llm/types.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";
import { createLocalBashOperations } from "../../src/tools/shell.js";
import { tick } from "./helpers.js";
import {
	errorReply,
	gate,
	isSummarization,
	OVERFLOW_TEXT,
	OVERLOADED,
	overflowReply,
	script,
} from "./recovery-helpers.js";

/** Where the abort lands: after this many microtask turns, or event-loop turns, from the call. */
type Position = { micro: number } | { macro: number };

const POSITIONS: readonly Position[] = [
	...Array.from({ length: 16 }, (_, micro) => ({ micro })),
	...Array.from({ length: 12 }, (_, index) => ({ macro: index + 1 })),
];

function describePosition(position: Position): string {
	return "micro" in position ? `${position.micro} microtask turns` : `${position.macro} event-loop turns`;
}

async function reach(position: Position): Promise<void> {
	if ("micro" in position) for (let i = 0; i < position.micro; i++) await Promise.resolve();
	else for (let i = 0; i < position.macro; i++) await tick();
}

/** Records what is started after the abort: noted hooks, tools and commands, and model requests. */
class AbortWatch {
	aborted = false;
	private readonly noted: string[] = [];
	private requestsAtAbort = 0;
	constructor(private readonly h: Harness) {}
	note(what: string): void {
		if (this.aborted) this.noted.push(what);
	}
	abort(abort: () => unknown): void {
		this.aborted = true;
		// A request counts from the moment the provider is called (a real one sends it then).
		this.requestsAtAbort = this.h.faux.requests.length;
		void abort();
	}
	/** What was started after the abort until now; the first call fixes the answer (later work is the test's own). */
	late(): string[] {
		this.seen ??= this.startedSinceAbort();
		return this.seen;
	}
	private seen: string[] | undefined;
	private startedSinceAbort(): string[] {
		const requests = this.aborted ? this.h.faux.requests.slice(this.requestsAtAbort) : [];
		return [
			...this.noted,
			...requests.map((request) => (isSummarization(request) ? "summary request" : "model request")),
		];
	}
}

/** An extension hook that takes an event-loop turn, like one that reads a file: an await window. */
const slowly = async () => {
	await tick();
	return undefined;
};

/**
 * The model from now on: every request (answer or summary) is noted and waits for `modelGate`,
 * released after the abort — it would answer if it had not been cancelled.
 */
function gateModel(h: Harness, first: AssistantMessage[] = []) {
	const modelGate = gate();
	const answered = first.map(
		(answer): FauxResponseStep =>
			() => ({ ...answer, timestamp: Date.now() }),
	);
	const gated: FauxResponseStep = async (context: Context) => {
		await modelGate.promise;
		return fauxAssistantMessage(isSummarization(context) ? "## Goal\nlate summary" : "late answer");
	};
	h.setResponses([...answered, ...Array.from({ length: 16 }, () => gated)]);
	return modelGate;
}

/** The session answers a prompt after the aborted operation. */
async function expectUsable(h: Harness, watch: AbortWatch): Promise<void> {
	expect(watch.late(), "started after the abort").toEqual([]);
	// A compaction the abort stopped may be due again: summary requests get a summary.
	const answer: FauxResponseStep = (context: Context) =>
		fauxAssistantMessage(isSummarization(context) ? "## Goal\nsummary" : "still usable");
	h.setResponses([answer, answer]);
	await h.session.prompt("are you there?");
	expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "still usable" }] });
	expect(h.session.lifecycle).toBe("idle");
}

function entriesOfType(h: Harness, type: string): number {
	return h.sessionManager.getEntries().filter((entry) => entry.type === type).length;
}

// The summarizer's modules, loaded on first use, are loaded before any position: a scenario run
// alone then reaches the same windows (and shows late work within the same turns) as after others.
beforeAll(async () => {
	await import("../../src/compaction/index.js");
});

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Runs `scenario` once per position, each on a fresh session; a failure names the position. */
async function sweep(
	options: HarnessOptions,
	scenario: (h: Harness, position: Position, watch: AbortWatch) => Promise<void>,
): Promise<void> {
	for (const position of POSITIONS) {
		h = await createHarness(options);
		const watch = new AbortWatch(h);
		try {
			await scenario(h, position, watch);
			expect(watch.late(), "started after the abort").toEqual([]);
		} catch (error) {
			throw new Error(`abort after ${describePosition(position)}: ${(error as Error).message}`, { cause: error });
		} finally {
			h.cleanup();
			h = undefined;
		}
	}
}

/** Two exchanges, so there is something to compact or to summarize. */
async function twoExchanges(h: Harness): Promise<void> {
	script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
	await h.session.prompt("first");
	await h.session.prompt("second");
}

/**
 * An extension with a slow `input` hook (an await window in the preflight) that notes each
 * `before_agent_start` on the current sweep position's watch, which the test sets.
 */
function slowInputProbe(): { factory: ExtensionFactory; watchOf: { current?: AbortWatch } } {
	const watchOf: { current?: AbortWatch } = {};
	const factory: ExtensionFactory = (pi) => {
		pi.on("input", slowly);
		pi.on("before_agent_start", async () => {
			watchOf.current?.note("before_agent_start");
			return undefined;
		});
	};
	return { factory, watchOf };
}

describe("an abort at every await position is never lost", () => {
	const compactionAborts: [string, (session: Harness["session"]) => void][] = [
		["abortCompaction()", (session) => session.abortCompaction()],
		["abort()", (session) => session.abort()],
	];
	it.each(compactionAborts)("manual compaction: compact() then %s", async (_name, abort) => {
		// Its session_before_compact hook must not run once the compaction is cancelled: a handler that
		// waits for the (already fired) abort event held `settle --rpc` until its stuck-run exit.
		const watchOf: { current?: AbortWatch } = {};
		const beforeCompactProbe: ExtensionFactory = (pi) => {
			pi.on("session_before_compact", async () => {
				watchOf.current?.note("session_before_compact");
				return undefined;
			});
		};
		const options = { settings: { compaction: { keepRecentTokens: 1 } }, extensionFactories: [beforeCompactProbe] };
		await sweep(options, async (h, position, watch) => {
			watchOf.current = watch;
			await twoExchanges(h);
			const modelGate = gateModel(h);
			h.events.length = 0;
			const outcome = h.session.compact().then(
				() => "compacted",
				(error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
			);
			await reach(position);
			watch.abort(() => abort(h.session));
			modelGate.release();
			expect(await outcome).toBe("ABORTED: Compaction cancelled");
			expect(entriesOfType(h, "compaction")).toBe(0);
			// Cancelled before it started (no events) or while it ran (compaction_end aborted).
			expect(h.eventsOfType("compaction_end").every((event) => event.aborted)).toBe(true);
			await expectUsable(h, watch);
		});
	});

	const navigationAborts: [string, (session: Harness["session"]) => void][] = [
		["abortBranchSummary()", (session) => session.abortBranchSummary()],
		["abort()", (session) => session.abort()],
	];
	it.each(navigationAborts)("tree navigation with a branch summary: navigateTree() then %s", async (_name, abort) => {
		await sweep({}, async (h, position, watch) => {
			await twoExchanges(h);
			const oldLeaf = h.sessionManager.getLeafId();
			const target = h.sessionManager
				.getEntries()
				.find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
			const modelGate = gateModel(h);
			const navigating = h.session.navigateTree(target.id, { summarize: true });
			await reach(position);
			watch.abort(() => abort(h.session));
			modelGate.release();
			expect(await navigating).toEqual({ cancelled: true, aborted: true });
			expect(entriesOfType(h, "branch_summary")).toBe(0);
			expect(h.sessionManager.getLeafId()).toBe(oldLeaf);
			await expectUsable(h, watch);
		});
	});

	it("user bash with a user_bash handler: executeBash() then abortBash()", async () => {
		const factory: ExtensionFactory = (pi) =>
			pi.on("user_bash", async () => {
				await tick();
				const local = createLocalBashOperations();
				return {
					operations: {
						exec: (command, cwd, options) => {
							watchOf.current?.note("shell command");
							return local.exec(command, cwd, options);
						},
					},
				};
			});
		const watchOf: { current?: AbortWatch } = {};
		await sweep({ extensionFactories: [factory] }, async (h, position, watch) => {
			watchOf.current = watch;
			const marker = join(h.tempDir, "ran-after-abort");
			const running = h.session.executeBash(`sleep 2; touch ${JSON.stringify(marker)}`);
			await reach(position);
			watch.abort(() => h.session.abortBash());
			const result = await running;
			expect(result).toMatchObject({ cancelled: true });
			expect(h.session.isBashRunning).toBe(false);
			expect(existsSync(marker)).toBe(false);
			await expectUsable(h, watch);
		});
	});

	it("a prompt through its preflight (input hook, pre-send compaction, before_agent_start): prompt() then abort()", async () => {
		const { factory, watchOf } = slowInputProbe();
		await sweep(
			{ settings: { compaction: { enabled: false, keepRecentTokens: 1 } }, extensionFactories: [factory] },
			async (h, position, watch) => {
				// An overflow is left in the context: the next prompt compacts before it is sent.
				script(h, [fauxAssistantMessage("first"), overflowReply()]);
				await h.session.prompt("one");
				await h.session.prompt("two");
				h.session.setAutoCompactionEnabled(true);
				watchOf.current = watch;
				const modelGate = gateModel(h);
				h.events.length = 0;
				const prompting = h.session.prompt("three");
				await reach(position);
				watch.abort(() => h.session.abort());
				modelGate.release();
				await prompting;
				expect(h.eventsOfType("agent_settled")).toHaveLength(1);
				expect(entriesOfType(h, "compaction")).toBe(0);
				watchOf.current = undefined;
				await expectUsable(h, watch);
			},
		);
	});

	it("a run with parallel tool calls (context and tool_execution_start hooks): prompt() then abort()", async () => {
		const factory: ExtensionFactory = (pi) => {
			pi.on("context", slowly);
			pi.on("tool_execution_start", slowly);
		};
		const watchOf: { current?: AbortWatch } = {};
		const probe = (name: string): AgentTool => ({
			name,
			label: name,
			description: `Probe ${name}`,
			parameters: Type.Object({}),
			execute: async () => {
				watchOf.current?.note(`tool ${name}`);
				return { content: [{ type: "text", text: `${name} done` }], details: {} };
			},
		});
		await sweep({ extensionFactories: [factory], tools: [probe("one"), probe("two")] }, async (h, position, watch) => {
			watchOf.current = watch;
			const modelGate = gateModel(h, [
				fauxAssistantMessage([fauxToolCall("one", {}), fauxToolCall("two", {})], { stopReason: "toolUse" }),
			]);
			const prompting = h.session.prompt("use both tools");
			await reach(position);
			watch.abort(() => h.session.abort());
			modelGate.release();
			await prompting;
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "aborted" });
			watchOf.current = undefined;
			await expectUsable(h, watch);
		});
	});
	it("a retried run (retryable error, backoff, retry): prompt() then abort()", async () => {
		await sweep({ settings: { retry: { baseDelayMs: 1, maxRetries: 3 } } }, async (h, position, watch) => {
			const modelGate = gateModel(h, [errorReply(OVERLOADED)]);
			const prompting = h.session.prompt("hi");
			await reach(position);
			watch.abort(() => h.session.abort());
			modelGate.release();
			await prompting;
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			await expectUsable(h, watch);
		});
	});

	it("overflow recovery (compaction in the run, then the retry): prompt() then abort() / abortCompaction()", async () => {
		for (const abort of ["abort", "abortCompaction"] as const) {
			await sweep({ settings: { compaction: { keepRecentTokens: 1 } } }, async (h, position, watch) => {
				script(h, [fauxAssistantMessage("first")]);
				await h.session.prompt("one");
				const modelGate = gateModel(h, [errorReply(OVERFLOW_TEXT)]);
				h.events.length = 0;
				const prompting = h.session.prompt("two");
				await reach(position);
				watch.abort(() => h.session[abort]());
				if (abort === "abortCompaction") {
					// abortCompaction() stops only a compaction: whatever else runs is ended by abort().
					await h.session.abort();
				}
				modelGate.release();
				await prompting;
				expect(h.eventsOfType("agent_settled")).toHaveLength(1);
				expect(entriesOfType(h, "compaction")).toBe(0);
				await expectUsable(h, watch);
			});
		}
	});

	it("compaction before a routed request (pi 1.6, inside the run): prompt() then abort() / dispose()", async () => {
		for (const stop of ["abort", "dispose"] as const) {
			await sweep(
				{
					models: [{ id: "small", contextWindow: 4000 }, { id: "big" }],
					tools: [],
					persistence: "disk",
					settings: { compaction: { reserveTokens: 1000, keepRecentTokens: 1 } },
				},
				async (h, position, watch) => {
					// Requests go to big, except the second one: small, which the long first answer does not fit.
					let routed = 0;
					h.modelRuntime.registerVirtualModel({
						provider: "router",
						id: "auto",
						name: "Auto",
						route: (request) => ({
							model: h.getModel(request.reason !== "direct" && ++routed === 2 ? "small" : "big")!,
							thinkingLevel: "off",
						}),
					});
					await h.session.setModel(h.modelRuntime.getModel("router", "auto")!);
					script(h, [fauxAssistantMessage("y".repeat(16_000))]);
					await h.session.prompt("one");
					const modelGate = gateModel(h);
					h.events.length = 0;
					const outcome = h.session.prompt("two").then(
						() => "settled",
						(error: { code?: string }) => error.code,
					);
					await reach(position);
					watch.abort(() => h.session[stop]());
					modelGate.release();
					if (stop === "dispose") {
						expect(["settled", "SESSION_CLOSED"]).toContain(await outcome);
						for (let i = 0; i < 5; i++) await tick();
						expect(entriesOfType(h, "compaction")).toBe(0);
						return;
					}
					expect(await outcome).toBe("settled");
					expect(h.eventsOfType("agent_settled")).toHaveLength(1);
					expect(entriesOfType(h, "compaction")).toBe(0);
					expect(h.faux.requests.some((request) => request.model.id === "small")).toBe(false);
					await expectUsable(h, watch);
				},
			);
		}
	});

	it("dispose() during a prompt's preflight and pre-send compaction: nothing is started after it", async () => {
		const { factory, watchOf } = slowInputProbe();
		await sweep(
			{
				persistence: "disk",
				settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
				extensionFactories: [factory],
			},
			async (h, position, watch) => {
				script(h, [fauxAssistantMessage("first"), overflowReply()]);
				await h.session.prompt("one");
				await h.session.prompt("two");
				h.session.setAutoCompactionEnabled(true);
				watchOf.current = watch;
				const modelGate = gateModel(h);
				const outcome = h.session.prompt("three").then(
					() => "settled",
					(error: { code?: string }) => error.code,
				);
				await reach(position);
				watch.abort(() => h.session.dispose());
				modelGate.release();
				expect(["settled", "SESSION_CLOSED"]).toContain(await outcome);
				// Let anything still running after dispose() finish before looking at the file.
				for (let i = 0; i < 5; i++) await tick();
				expect(entriesOfType(h, "compaction")).toBe(0);
				watchOf.current = undefined;
			},
		);
	});
});
