/**
 * Reports about an extension's handles after a compaction, replayed against Settle through its
 * public API on a real session file. pi#7154: in long-running sessions an extension's captured
 * `pi` threw "This extension ctx is stale after session replacement or reload" after a
 * compaction, and for the rest of the process: every autonomous `pi.sendUserMessage()` /
 * `pi.sendMessage()` after it was lost. rpiv-mono#52: `dispose()` while an auto-compaction still
 * ran invalidated the extensions, and the compaction's `session_compact` then reached handlers
 * whose `ctx.cwd` / `ctx.sessionManager` threw. What the extension should see: a compaction
 * replaces nothing, so its `pi` and `ctx` stay live after every kind of compaction; a session
 * closed during a compaction tells it `session_shutdown` and no compaction event comes after.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	BIG_ANSWER,
	comparable,
	fileEntries,
	gate,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	timesPersisted,
	until,
} from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi#7154: compaction invalidates the extension runtime; the captured pi throws 'stale' forever", () => {
	it("pi#7154: after a threshold compaction, a manual compact() and an extension's ctx.compact(), the captured pi still sends: each message runs a turn and is saved once; session_compact's ctx reads its session; no extension error", async () => {
		let api!: ExtensionAPI;
		let compactFromExtension!: () => Promise<void>;
		const seenInSessionCompact: string[] = [];
		const commandLog: string[] = [];
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
					pi.on("session_compact", (event, ctx) => {
						// The reads that threw in the report's handlers.
						seenInSessionCompact.push(
							`${event.compactionEntry.type} ${ctx.cwd === h!.tempDir} ${ctx.sessionManager.getLeafId() === event.compactionEntry.id}`,
						);
					});
					pi.registerCommand("compact-now", {
						description: "compacts",
						handler: async (_args, ctx) => {
							ctx.compact({
								onComplete: () => commandLog.push("compacted"),
								onError: (error) => commandLog.push(error.message),
							});
						},
					});
					compactFromExtension = () => h!.session.prompt("/compact-now");
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("noted"),
			fauxAssistantMessage("answered the first autonomous message"),
			fauxAssistantMessage("answered the second autonomous message"),
			fauxAssistantMessage("answered the third autonomous message"),
		]);
		const file = harness.session.sessionFile!;
		const sendAfter = async (text: string) => {
			const settled = harness.eventsOfType("agent_settled").length;
			// The report's autonomous extension: a message from the captured pi, not from a handler.
			api.sendUserMessage(text);

			await until(harness, () => harness.eventsOfType("agent_settled").length > settled, `${text} answered`);
			expect(timesPersisted(file, text)).toBe(1);
		};

		// A threshold compaction inside an operation.
		await harness.session.prompt(`read this log: ${BIG_ANSWER}`);

		expect(harness.eventsOfType("compaction_end")).toMatchObject([{ reason: "threshold", aborted: false }]);
		await sendAfter("first autonomous message");
		// A manual compaction.
		await harness.session.compact();
		await sendAfter("second autonomous message");
		// A compaction the extension asks for, from a command.
		await compactFromExtension();
		await until(harness, () => commandLog.length > 0, "the extension's compaction done");
		expect(commandLog).toEqual(["compacted"]);
		await sendAfter("third autonomous message");

		expect(harness.eventsOfType("compaction_end").map((event) => [event.reason, event.aborted])).toEqual([
			["threshold", false],
			["manual", false],
			["manual", false],
		]);
		expect(seenInSessionCompact).toEqual(["compaction true true", "compaction true true", "compaction true true"]);
		expect(answerRequests).toHaveLength(4);
		expect(harness.extensionErrors).toEqual([]);
		expect(fileEntries(file).filter((entry) => entry.type === "compaction")).toHaveLength(3);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("rpiv-mono#52: dispose() while an auto-compaction runs; its session_compact reaches handlers with a stale ctx", () => {
	it("rpiv-mono#52: dispose() while a threshold compaction summarizes: no session_compact reaches the extension afterwards (nor any other handler), nothing is written after the disposal, no extension error", async () => {
		const summaryAsked = gate();
		const releaseSummary = gate();
		const heard: string[] = [];
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_compact", (_event, ctx) => {
						heard.push(`session_compact ${ctx.cwd === h!.tempDir}`);
					});
					pi.on("agent_settled", (_event, ctx) => {
						heard.push(`agent_settled ${ctx.cwd === h!.tempDir}`);
					});
				},
			],
		});
		const harness = h;
		script(harness, [fauxAssistantMessage("noted")], {
			summary: () => {
				summaryAsked.release();
				return releaseSummary.promise.then(() => fauxAssistantMessage("## Goal\nlate summary"));
			},
		});
		const running = harness.session.prompt(`read this log: ${BIG_ANSWER}`).then(
			() => "resolved",
			(error: unknown) => (error as { code?: string }).code ?? String(error),
		);
		await summaryAsked.promise;
		const file = harness.session.sessionFile!;
		const bytesAtDispose = fileEntries(file).length;
		const disposed = harness.session.dispose();
		releaseSummary.release();
		await disposed;
		await running;
		expect(heard).toEqual([]);
		expect(fileEntries(file)).toHaveLength(bytesAtDispose);
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("a command that waits for its own ctx.compact() (found replaying pi#7154)", () => {
	/** An extension with `/compact-now`: `ctx.compact()`, awaited through its callbacks or not. */
	function compactCommand(log: string[], awaited: boolean) {
		return (pi: ExtensionAPI) => {
			pi.registerCommand("compact-now", {
				description: "compacts",
				handler: async (_args, ctx) => {
					const done = new Promise<void>((resolve) => {
						ctx.compact({
							customInstructions: "keep the names",
							onComplete: () => {
								log.push("onComplete");
								resolve();
							},
							onError: (error) => {
								log.push(`onError ${error.message}`);
								resolve();
							},
						});
					});
					if (awaited) await done;
					log.push("command done");
				},
			});
		};
	}

	it("a command awaiting ctx.compact()'s onComplete: the compaction runs during the command (isCompacting), the command goes on, its prompt() resolves; the next prompt runs on the compacted context (it hung forever: the compaction waited for the command's operation, which waited for the command)", async () => {
		const log: string[] = [];
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [compactCommand(log, true)],
		});
		const harness = h;
		const compactingSeen: boolean[] = [];
		harness.session.subscribe((event) => {
			if (event.type === "compaction_start") compactingSeen.push(harness.session.isCompacting);
		});
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("answered on the summary"),
		]);
		await harness.session.prompt("first");
		await harness.session.prompt("second");
		let resolved = false;
		const command = harness.session.prompt("/compact-now").then(() => {
			resolved = true;
		});
		await until(harness, () => resolved, "the command's prompt() resolved");
		await command;
		expect(log).toEqual(["onComplete", "command done"]);
		expect(compactingSeen).toEqual([true]);
		expect(harness.eventsOfType("compaction_end")).toMatchObject([{ reason: "manual", aborted: false }]);
		expect(JSON.stringify(summaryRequests[0]?.messages)).toContain("keep the names");
		expect(harness.session.isIdle).toBe(true);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(2);
		const file = harness.session.sessionFile!;
		expect(fileEntries(file).at(-1)?.type).toBe("compaction");
		await harness.session.prompt("third");
		expect(answerRequests).toHaveLength(3);
		expect(JSON.stringify(answerRequests[2]!.messages)).toContain("## Goal");
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
		expect(harness.extensionErrors).toEqual([]);
	});

	it("a command that does not wait (pi's trigger-compact.ts): the compaction completes before the command's prompt() resolves; abort() during it cancels it (onError 'Compaction cancelled') and nothing is written", async () => {
		const log: string[] = [];
		const summaryAsked = gate();
		const releaseSummary = gate();
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [compactCommand(log, false)],
		});
		const harness = h;
		let holdSummary = false;
		script(harness, [fauxAssistantMessage("one"), fauxAssistantMessage("two")], {
			summary: () => {
				if (!holdSummary) return undefined;
				summaryAsked.release();
				return releaseSummary.promise.then(() => fauxAssistantMessage("## Goal\nlate summary"));
			},
		});
		await harness.session.prompt("first");
		await harness.session.prompt("second");
		await harness.session.prompt("/compact-now");
		expect(log).toEqual(["command done", "onComplete"]);
		expect(harness.eventsOfType("compaction_end")).toMatchObject([{ reason: "manual", aborted: false }]);

		// Again, aborted while it summarizes.
		log.length = 0;
		holdSummary = true;
		await harness.session.prompt("another one");
		const file = harness.session.sessionFile!;
		const command = harness.session.prompt("/compact-now");
		await summaryAsked.promise;
		const entries = fileEntries(file).length;
		await harness.session.abort();
		releaseSummary.release();
		await command;
		await harness.session.waitForIdle();
		expect(log).toEqual(["command done", "onError Compaction cancelled"]);
		expect(harness.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: true });
		expect(fileEntries(file)).toHaveLength(entries);
		expect(harness.session.isCompacting).toBe(false);
		expect(harness.extensionErrors).toEqual([]);
	});
	it.each([
		["input", "an input handler"],
		["before_agent_start", "a before_agent_start handler"],
	] as const)(
		"%s: %s calls ctx.compact() and then its result throws: the compaction still ends inside the prompt (onComplete, then prompt() rejects with the error; not compacting after it, the next prompt runs on the compacted context); it outlived the prompt, isCompacting true while idle",
		async (event, _handler) => {
			const log: string[] = [];
			let armed = false;
			h = await createHarness({
				persistence: "disk",
				settings: { compaction: { keepRecentTokens: 1 } },
				extensionFactories: [
					(pi: ExtensionAPI) => {
						const handler = (_event: unknown, ctx: ExtensionContext) => {
							if (!armed) return undefined;
							armed = false;
							ctx.compact({ onComplete: () => log.push("onComplete"), onError: (error) => log.push(error.message) });
							// A result the host reads only after the handler returned: reading it throws.
							const broken = {
								get action(): never {
									throw new Error("broken result");
								},
								get message(): never {
									throw new Error("broken result");
								},
							};
							return broken as never;
						};
						if (event === "input") pi.on("input", handler);
						else pi.on("before_agent_start", handler);
					},
				],
			});
			const harness = h;
			const { answerRequests } = script(harness, [
				fauxAssistantMessage("one"),
				fauxAssistantMessage("two"),
				fauxAssistantMessage("answered on the summary"),
			]);
			await harness.session.prompt("first");
			await harness.session.prompt("second");
			armed = true;
			const outcome = await harness.session.prompt("third").then(
				() => "resolved",
				(error: Error) => `rejected: ${error.message}`,
			);
			log.push(outcome);
			expect(log).toEqual(["onComplete", "rejected: broken result"]);
			expect(harness.session.isCompacting).toBe(false);
			expect(harness.session.isIdle).toBe(true);
			expect(harness.eventsOfType("compaction_end")).toMatchObject([{ reason: "manual", aborted: false }]);
			await harness.session.prompt("fourth");
			expect(answerRequests).toHaveLength(3);
			expect(JSON.stringify(answerRequests[2]!.messages)).toContain("## Goal");
		},
	);
});
