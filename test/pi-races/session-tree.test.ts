/**
 * pi's reports about the session tree and what it records: the thinking level a branch says after
 * `/tree` moved back past a level change (pi#3544), the file `createBranchedSession` promises for a
 * branch with no answer yet (pi#4837, pi#5048, pi#6080), and an extension that branches through
 * `ctx.sessionManager` while its tool runs (pi#3263) — replayed against Settle on real JSONL files,
 * with pi 0.73.1's own `SessionManager` side by side where it is cheap. What the user should see: a
 * resumed leaf comes back on the level its turns ran at; a returned path names a file on disk; a
 * tool's result lands in the session that called it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { readEntries } from "./disk-harness.js";

const harnesses: Harness[] = [];
const dirs: string[] = [];
afterEach(() => {
	for (const harness of harnesses.splice(0)) harness.cleanup();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-pi-races-tree-"));
	dirs.push(dir);
	return dir;
}

const REASONING = [{ id: "reasoner", reasoning: true }];

/** The thinking levels recorded in a session file, in file order. */
function recordedLevels(file: string): unknown[] {
	return readEntries(file)
		.filter((entry) => entry.type === "thinking_level_change")
		.map((entry) => entry.thinkingLevel);
}

function assistantIds(harness: Harness): string[] {
	return harness.session.sessionManager
		.getEntries()
		.filter((entry: SessionEntry) => entry.type === "message" && entry.message.role === "assistant")
		.map((entry) => entry.id);
}

/** A disk session on `high` with three faux answers queued, after its first prompt: the harness and that answer's id. */
async function answeredAtHigh(): Promise<{ h: Harness; firstAnswer: string }> {
	const h = await createHarness({ persistence: "disk", models: REASONING, thinkingLevel: "high" });
	harnesses.push(h);
	h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
	await h.session.prompt("first question");
	return { h, firstAnswer: assistantIds(h)[0]! };
}

describe("pi#3544: /tree back past a thinking level change, then resume: the level differs from the one the branch ran at", () => {
	it("pi#3544: after /tree to before `high` → `low` the next turn runs at `low` (as in pi, /tree restores nothing), the file records `low` on the new branch, and resuming that leaf comes back on `low`", async () => {
		const { h, firstAnswer } = await answeredAtHigh();
		h.session.setThinkingLevel("low");
		await h.session.prompt("second question");
		await h.session.navigateTree(firstAnswer, { summarize: false });
		// pi's maintainers kept this: navigating does not change the live level.
		expect(h.session.thinkingLevel).toBe("low");
		await h.session.prompt("third question, on the other branch");
		const file = h.session.sessionManager.getSessionFile()!;
		// high (start), low (the switch), low (the new branch, recorded before its turn).
		expect(recordedLevels(file)).toEqual(["high", "low", "low"]);
		// Quit and resume the file (as `settle --session <file>` does).
		h.session.dispose();
		h.session.sessionManager.close();
		const reopened = SessionManager.open(file);
		const resumed = await createHarness({ sessionManager: reopened, models: REASONING });
		harnesses.push(resumed);
		expect(resumed.session.thinkingLevel).toBe("low");
	});

	it("pi#3544: a branch that already says the live level gets no extra entry: navigating without a level change and prompting records nothing more", async () => {
		const { h, firstAnswer } = await answeredAtHigh();
		await h.session.prompt("second question");
		await h.session.navigateTree(firstAnswer, { summarize: false });
		await h.session.prompt("third question, on the other branch");
		expect(recordedLevels(h.session.sessionManager.getSessionFile()!)).toEqual(["high"]);
	});

	it("pi#3544: /tree to before the change and back to where the level was set, then a prompt: the branch already says the live level, so nothing more is recorded", async () => {
		const { h, firstAnswer } = await answeredAtHigh();
		h.session.setThinkingLevel("low");
		await h.session.prompt("second question");
		const [, secondAnswer] = assistantIds(h);
		await h.session.navigateTree(firstAnswer, { summarize: false });
		await h.session.navigateTree(secondAnswer!, { summarize: false });
		await h.session.prompt("third question, on the same branch");
		expect(recordedLevels(h.session.sessionManager.getSessionFile()!)).toEqual(["high", "low"]);
	});
});

describe("pi#4837, pi#5048, pi#6080: createBranchedSession returns the path of a file that does not exist", () => {
	it("pi#4837: a branch holding a prompt with no answer yet is written at once — the returned path exists, opens, and names its parent; pi 0.73.1 returns a path with no file", () => {
		const dir = tempDir();
		const settle = SessionManager.create(dir, join(dir, "settle"));
		const peer = pi.SessionManager.create(dir, join(dir, "pi"));
		for (const manager of [settle, peer]) {
			manager.appendModelChange("faux", "faux-1");
			manager.appendThinkingLevelChange("off");
			manager.appendMessage({ role: "user", content: [{ type: "text", text: "plan the work" }], timestamp: 1 });
		}
		const parent = settle.getSessionFile()!;
		const branched = settle.createBranchedSession(settle.getLeafId()!)!;
		expect(existsSync(branched)).toBe(true);
		const reopened = SessionManager.open(branched, undefined, undefined, { readOnly: true });
		expect(reopened.getHeader()).toMatchObject({ parentSession: parent });
		expect(reopened.buildSessionContext().messages).toMatchObject([{ role: "user" }]);
		reopened.close();
		settle.close();
		// The report's pi: the path is returned, the file is not there (a subagent launch fails).
		const piBranched = peer.createBranchedSession(peer.getLeafId()!)!;
		expect(existsSync(piBranched)).toBe(false);
	});
});

describe("pi#3263: createBranchedSession from an extension repoints the live session to the child file", () => {
	it("pi#3263: a tool that calls ctx.sessionManager.createBranchedSession gets a typed EXTENSION error naming ctx.fork; the session stays on its file and the tool's result lands there, after its call", async () => {
		const heard: string[] = [];
		const h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(api: ExtensionAPI) => {
					api.registerTool({
						name: "subagent",
						label: "Subagent",
						description: "prepares a forked child session",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, _onUpdate, ctx) => {
							try {
								(ctx.sessionManager as unknown as { createBranchedSession(id: string): string }).createBranchedSession(
									ctx.sessionManager.getLeafId()!,
								);
								heard.push("branched");
							} catch (error) {
								heard.push(error instanceof SettleError ? `${error.code}: ${error.message}` : `untyped: ${error}`);
							}
							return { content: [{ type: "text", text: "child finished" }], details: {} };
						},
					});
				},
			],
		});
		harnesses.push(h);
		const file = h.session.sessionManager.getSessionFile()!;
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("subagent", {}, { id: "call-sub" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("delegate the work");
		expect(heard).toHaveLength(1);
		expect(heard[0]).toMatch(/^EXTENSION: ctx\.sessionManager\.createBranchedSession\(\) is not available.*ctx\.fork/);
		expect(h.session.sessionManager.getSessionFile()).toBe(file);
		const entries = readEntries(file) as { id: string; parentId: string; message?: Record<string, unknown> }[];
		const call = entries.find((entry) => JSON.stringify(entry.message ?? {}).includes('"call-sub"'));
		const result = entries.find((entry) => entry.message?.role === "toolResult");
		expect(result).toMatchObject({ parentId: call!.id, message: { toolCallId: "call-sub", isError: false } });
		expect(entries.at(-1)).toMatchObject({ message: { role: "assistant" } });
	});
});
