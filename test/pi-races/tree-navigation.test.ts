/**
 * pi's reports about moving around the session tree while something else is under way — a
 * compaction preparing its summary (pi#9178), a prompt arriving while `session_before_tree` runs
 * (pi#9155), a navigation an extension cancels (pi#3688), a `/tree` or a reload from an extension
 * command while a tool runs (pi#6558, pi#9221) — replayed against Settle on a real session file.
 * What the user should see: the operation that came second is refused with a typed error saying
 * what to wait for; the one under way ends on the branch it started on; nothing stays busy.
 *
 * oh-my-pi#821: the context a navigation returned was built before the `session_tree` handlers ran,
 * so what they wrote (a label, a custom entry, a message) was missing until a later rebuild. What the
 * user should see: what a `session_tree` handler writes lands on the new branch, right after the
 * branch summary, is in the live context as soon as `navigateTree` resolves, reaches the next
 * request, and is there again when the file is reopened.
 *
 * oh-my-pi#5747: a `!` command's result was recorded on whatever branch was current when it ended,
 * so a move in the tree while it ran put its output into the other branch's context. What the user
 * should see: the move is refused (typed BUSY) until the command has recorded its result, which
 * follows the entry it was typed after.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { gate, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The outcome of a call that may be refused: `ok`, or the SettleError's code. */
function outcome(promise: Promise<unknown>): Promise<string> {
	return promise.then(
		() => "ok",
		(error: unknown) => (error instanceof SettleError ? error.code : `untyped: ${String(error)}`),
	);
}

/** The assistant message entries of the session, in file order. */
function assistantEntries(harness: Harness): SessionEntry[] {
	return harness.session.sessionManager
		.getEntries()
		.filter((entry) => entry.type === "message" && entry.message.role === "assistant");
}

describe("pi#9178: manual compaction can attach its summary to the wrong tree branch", () => {
	it("pi#9178: navigateTree while compact() waits in session_before_compact is refused (typed BUSY); the compaction lands on the branch it summarized, and assistant B stays in the next request", async () => {
		const inHook = gate();
		const releaseHook = gate();
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 10 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", async () => {
						inHook.release();
						await releaseHook.promise;
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage(`assistant A ${"words ".repeat(40)}`),
			fauxAssistantMessage(`assistant B ${"words ".repeat(40)}`),
			fauxAssistantMessage("after the compaction"),
		]);
		// The report's tree: user -> assistant A -> user -> assistant B.
		await harness.session.prompt(`first ${"question ".repeat(30)}`);
		await harness.session.prompt(`second ${"question ".repeat(30)}`);
		const [assistantA, assistantB] = assistantEntries(harness);
		const compacting = outcome(harness.session.compact());
		await inHook.promise;
		const navigation = await harness.session.navigateTree(assistantA!.id, { summarize: false }).then(
			() => "ok",
			(error: unknown) => error,
		);
		expect(navigation).toBeInstanceOf(SettleError);
		expect(navigation).toMatchObject({ code: "BUSY", message: expect.stringMatching(/Wait for the compaction/) });
		expect(harness.session.sessionManager.getLeafId()).toBe(assistantB!.id);
		releaseHook.release();
		expect(await compacting).toBe("ok");
		// The compaction follows assistant B, and the entry it keeps from is on that branch.
		const compaction = harness.session.sessionManager.getEntries().find((entry) => entry.type === "compaction");
		expect(compaction).toMatchObject({ parentId: assistantB!.id });
		const branchIds = harness.session.sessionManager.getBranch(compaction!.id).map((entry) => entry.id);
		expect(branchIds).toContain((compaction as { firstKeptEntryId: string }).firstKeptEntryId);
		await harness.session.prompt("go on");
		const next = answerRequests.at(-1)!;
		expect(JSON.stringify(next.messages)).toContain("assistant B");
		expect(userTexts(next).at(-1)).toBe("go on");
		expect(harness.session.isCompacting).toBe(false);
	});
});

describe("pi#9155 (in pi#9179): a prompt that starts during tree navigation", () => {
	it("pi#9155: a prompt sent while session_before_tree runs is refused (typed BUSY), never run on the branch being left; the navigation completes and the next prompt continues from its target", async () => {
		const inHook = gate();
		const releaseHook = gate();
		let hold = false;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_tree", async () => {
						if (!hold) return;
						inHook.release();
						await releaseHook.promise;
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage("answer two"),
			fauxAssistantMessage("answer on the new branch"),
		]);
		await harness.session.prompt("question one");
		await harness.session.prompt("question two");
		const [answerOne] = assistantEntries(harness);
		hold = true;
		const navigating = harness.session.navigateTree(answerOne!.id);
		await inHook.promise;
		expect(harness.session.isIdle).toBe(false);
		const during = await outcome(harness.session.prompt("typed while navigating"));
		expect(during).toBe("BUSY");
		releaseHook.release();
		expect(await navigating).toEqual({ cancelled: false });
		expect(harness.session.sessionManager.getLeafId()).toBe(answerOne!.id);
		await harness.session.prompt("question on the new branch");
		// The new question's parent is the navigation's target; "question two" is not in its request.
		const entries = harness.session.sessionManager.getEntries();
		const newQuestion = entries.find(
			(entry) => entry.type === "message" && JSON.stringify(entry.message).includes("question on the new branch"),
		);
		expect(newQuestion?.parentId).toBe(answerOne!.id);
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["question one", "question on the new branch"]);
		expect(timesPersisted(harness.session.sessionFile!, "typed while navigating")).toBe(0);
		expect(answerRequests).toHaveLength(3);
	});
});

describe("pi#3688: a tree navigation cancelled by session_before_tree leaves the session busy", () => {
	it("pi#3688: after session_before_tree cancels a summarizing navigation, isCompacting is false, the leaf is where it was, and the next prompt is answered", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_tree", () => ({ cancel: true }));
				},
			],
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage("answer two"),
			fauxAssistantMessage("answer three"),
		]);
		await harness.session.prompt("question one");
		await harness.session.prompt("question two");
		const leaf = harness.session.sessionManager.getLeafId();
		const [answerOne] = assistantEntries(harness);
		expect(await harness.session.navigateTree(answerOne!.id, { summarize: true })).toEqual({ cancelled: true });
		expect(harness.session.isCompacting).toBe(false);
		expect(harness.session.isIdle).toBe(true);
		expect(harness.session.sessionManager.getLeafId()).toBe(leaf);
		await harness.session.prompt("question three");
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["question one", "question two", "question three"]);
		expect(summaryRequests).toHaveLength(0);
	});
});

describe("pi#6558 / pi#9221: /tree or a reload from an extension command while a tool runs", () => {
	it("pi#6558 / pi#9221: ctx.navigateTree() and ctx.reload() from a command sent while a tool runs are refused (typed BUSY); the tool's successful result stays with its call and reaches the next request", async () => {
		const toolStarted = gate();
		const finishTool = gate();
		const slow: AgentTool = {
			name: "slow",
			label: "Slow",
			description: "takes a while",
			parameters: { type: "object" },
			execute: async () => {
				toolStarted.release();
				await finishTool.promise;
				return { content: [{ type: "text", text: "tool finished fine" }], details: {} };
			},
		};
		const heard: string[] = [];
		let target = "";
		h = await createHarness({
			persistence: "disk",
			tools: [slow],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("go-back", {
						description: "navigate the tree",
						handler: async (_args, ctx) => {
							heard.push(
								await ctx.navigateTree(target).then(
									() => "tree: ok",
									(error: unknown) => `tree: ${(error as SettleError).code}: ${(error as Error).message}`,
								),
							);
						},
					});
					pi.registerCommand("reload-now", {
						description: "reload the extensions",
						handler: async (_args, ctx) => {
							heard.push(`reload: ${await outcome(ctx.reload())}`);
						},
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage([fauxToolCall("slow", {}, { id: "call-slow" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("used the result"),
		]);
		await harness.session.prompt("question one");
		target = assistantEntries(harness)[0]!.id;
		const running = harness.session.prompt("use the slow tool");
		await toolStarted.promise;
		await harness.session.prompt("/go-back");
		await harness.session.prompt("/reload-now");
		expect(heard).toEqual([
			"tree: BUSY: Wait for the current response to finish before navigating the session tree.",
			"reload: BUSY",
		]);
		finishTool.release();
		await running;
		expect(harness.extensionErrors).toEqual([]);
		const entries = harness.session.sessionManager.getEntries();
		const call = entries.find(
			(entry) => entry.type === "message" && JSON.stringify(entry.message).includes("call-slow"),
		);
		const result = entries.find((entry) => entry.type === "message" && entry.message.role === "toolResult");
		expect(result).toMatchObject({
			parentId: call!.id,
			message: { isError: false, content: [{ type: "text", text: "tool finished fine" }] },
		});
		const last = answerRequests.at(-1)!.messages.at(-1);
		expect(last).toMatchObject({ role: "toolResult", toolCallId: "call-slow", isError: false });
		expect(harness.session.isIdle).toBe(true);
	});
});

describe("oh-my-pi#821: what a session_tree handler writes during a navigation", () => {
	it("oh-my-pi#821: a label, a custom entry and a message written by session_tree land after the branch summary, are in the context navigateTree leaves, reach the next request and survive a reopen", async () => {
		const handlerErrors: unknown[] = [];
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_tree", async (event) => {
						try {
							pi.setLabel(event.newLeafId!, "back-on-main");
							pi.appendEntry("branch-state", { at: event.newLeafId });
							await pi.sendMessage({ customType: "branch-note", content: "NOTE-FROM-SESSION-TREE", display: true });
						} catch (error) {
							handlerErrors.push(error);
						}
					});
				},
			],
		});
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage("answer two"),
			fauxAssistantMessage("answer three"),
		]);
		await harness.session.prompt("question one");
		await harness.session.prompt("question two");
		const [answerOne] = assistantEntries(harness);

		const result = await harness.session.navigateTree(answerOne!.id, { summarize: true });

		expect(handlerErrors).toEqual([]);
		const summaryId = result.summaryEntry!.id;
		const manager = harness.session.sessionManager;
		const afterSummary = manager
			.getBranch()
			.slice(manager.getBranch().findIndex((entry) => entry.id === summaryId))
			.map((entry) => (entry.type === "custom" || entry.type === "custom_message" ? entry.customType : entry.type));
		expect(afterSummary).toEqual(["branch_summary", "label", "branch-state", "branch-note"]);
		expect(manager.getLabel(summaryId)).toBe("back-on-main");
		expect(JSON.stringify(harness.session.messages)).toContain("NOTE-FROM-SESSION-TREE");

		await harness.session.prompt("question three");
		expect(userTexts(answerRequests.at(-1)!)).toEqual([
			"question one",
			expect.stringContaining("summary"),
			"NOTE-FROM-SESSION-TREE",
			"question three",
		]);
		expect(JSON.stringify(reopenedContext(manager.getSessionFile()!))).toContain("NOTE-FROM-SESSION-TREE");
	});
});

describe("oh-my-pi#5747: a `!` command's result recorded on the branch moved to while it ran", () => {
	it("oh-my-pi#5747: navigateTree while a `!` command runs is refused (typed BUSY); its output joins the branch it was typed on, and the branch moved to afterwards never sees it", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		script(harness, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
		await harness.session.prompt("question one");
		await harness.session.prompt("question two");
		const [answerOne, answerTwo] = assistantEntries(harness);
		// A real child process that prints, then waits until the test lets it end.
		const go = join(harness.tempDir, "go");
		let printed!: () => void;
		const started = new Promise<void>((resolve) => (printed = resolve));
		const command = harness.session.executeBash(
			`echo typed-on-branch-two; until [ -e '${go}' ]; do sleep 0.05; done`,
			() => printed(),
		);
		await started;
		const navigation = await harness.session.navigateTree(answerOne!.id, { summarize: false }).then(
			() => "ok",
			(error: unknown) => error,
		);
		expect(navigation).toBeInstanceOf(SettleError);
		expect(navigation).toMatchObject({ code: "BUSY", message: expect.stringMatching(/shell command/) });
		expect(harness.session.sessionManager.getLeafId()).toBe(answerTwo!.id);
		writeFileSync(go, "");
		expect((await command).output).toContain("typed-on-branch-two");
		// The output follows the answer it was typed after, in the file as in the live context.
		const recorded = harness.session.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "bashExecution");
		expect(recorded).toMatchObject({ parentId: answerTwo!.id });
		// Once it has ended, the move goes through, and the branch moved to holds nothing of it.
		expect(await outcome(harness.session.navigateTree(answerOne!.id, { summarize: false }))).toBe("ok");
		expect(JSON.stringify(harness.session.messages)).not.toContain("typed-on-branch-two");
		expect(harness.session.isBashRunning).toBe(false);
	});
});
