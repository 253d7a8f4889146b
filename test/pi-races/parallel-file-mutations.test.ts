/**
 * Reports about one model answer with several file-changing tool calls (run as one parallel batch),
 * replayed in a real session on real files, and (`pi-peer`) against pi 0.73.1's own code.
 * pi#9389, pi#7041: the per-file mutation queue keyed a file that did not exist yet by the path as
 * given, so `alias/new.txt` (alias → target) and `target/new.txt` got two queues and their write
 * and edit ran at once: the edit read a file the write had not made yet.
 * gemini-cli#29244: a read running beside a write of the same file (parallel tool calls) saw a
 * truncated prefix (the write truncates, then fills the file). pi's `read` stays out of the per-file
 * queue of `edit` and `write` too, so which content a read in the same answer as an edit gets is a
 * race: "read notes.md, then edit it" came back with the edited text. What the user should see:
 * each read of the answer sees the file as the calls before it left it.
 * qwen-code#8493: a cancelled `edit` or `write` still changed the file once the step it waited on
 * finished. What the user should see: an abort while an answer's edit and write of a file wait
 * behind a slow mutation of it (an extension's formatter) leaves them unapplied for good, each
 * saved as aborted, even when the formatter finishes afterwards.
 */
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { withFileMutationQueue } from "../../src/tools/index.js";
import { comparable, gate, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each tool result of the session, in the order the model gets them: [toolCallId, isError, text]. */
function toolResults(harness: Harness): [string, boolean, string][] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					[
						message.toolCallId,
						message.isError,
						message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
					] as [string, boolean, string],
				]
			: [],
	);
}

/** One model answer holding every call of `calls` (one parallel batch), then "done", in a disk session. */
async function oneAnswer(
	prepare: (cwd: string) => void,
	calls: { id: string; name: string; args: Record<string, unknown> }[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "write", "edit"] });
	prepare(harness.tempDir);
	script(harness, [
		fauxAssistantMessage(
			calls.map((call) => fauxToolCall(call.name, call.args, { id: call.id })),
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("do all of it at once");
	return harness;
}

/** `target/` and `alias -> target`, nothing in them yet. */
function aliasedFolder(cwd: string): void {
	mkdirSync(join(cwd, "target"));
	symlinkSync("target", join(cwd, "alias"));
}

describe("pi#9389, pi#7041: a new file reached through a folder symlink bypasses the mutation queue", () => {
	it("pi#9389: write alias/notes.md (new) and edit target/notes.md in one answer: the edit waits for the write, both succeed and the file holds the edit", async () => {
		h = await oneAnswer(aliasedFolder, [
			{ id: "call-write", name: "write", args: { path: "alias/notes.md", content: "status: draft\n" } },
			{ id: "call-edit", name: "edit", args: { path: "target/notes.md", oldText: "draft", newText: "final" } },
		]);
		expect(toolResults(h)).toEqual([
			["call-write", false, "Successfully wrote 14 bytes to alias/notes.md"],
			["call-edit", false, "Successfully replaced 1 block(s) in target/notes.md."],
		]);
		expect(readFileSync(join(h.tempDir, "target", "notes.md"), "utf8")).toBe("status: final\n");
		expect(lstatSync(join(h.tempDir, "alias")).isSymbolicLink()).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("pi#7041: the same with a folder that is missing too (alias/docs/notes.md, target/docs/notes.md): the folder is made once and the edit lands", async () => {
		h = await oneAnswer(aliasedFolder, [
			{ id: "call-write", name: "write", args: { path: "alias/docs/notes.md", content: "status: draft\n" } },
			{ id: "call-edit", name: "edit", args: { path: "target/docs/notes.md", oldText: "draft", newText: "final" } },
		]);
		expect(toolResults(h).map(([id, isError]) => [id, isError])).toEqual([
			["call-write", false],
			["call-edit", false],
		]);
		expect(readFileSync(join(h.tempDir, "target", "docs", "notes.md"), "utf8")).toBe("status: final\n");
	});

	it("pi#9389 (pi-peer): pi 0.73.1's withFileMutationQueue lets alias/new.txt in while target/new.txt still holds the queue", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-9389-"));
		try {
			aliasedFolder(cwd);
			const held = gate();
			const order: string[] = [];
			const first = pi.withFileMutationQueue(join(cwd, "target", "new.txt"), async () => {
				order.push("target:start");
				await held.promise;
				order.push("target:end");
			});
			let aliasStarted!: () => void;
			const started = new Promise<void>((resolve) => {
				aliasStarted = resolve;
			});
			const second = pi.withFileMutationQueue(join(cwd, "alias", "new.txt"), async () => {
				order.push("alias:start");
				aliasStarted();
			});
			await started;
			expect(order).toEqual(["target:start", "alias:start"]);
			held.release();
			await Promise.all([first, second]);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("gemini-cli#29244: a read beside a write of the same file sees it half-written", () => {
	const lines = Array.from({ length: 20_000 }, (_, i) => `build step ${i + 1} ok`);
	const log = `${lines.join("\n")}\n`;

	it("gemini-cli#29244: an answer writing a 400 KB build.log, then reading it whole and from line 19,999: both reads see the new file, all 20,000 lines", async () => {
		h = await oneAnswer(
			(cwd) => writeFileSync(join(cwd, "build.log"), "old build\n"),
			[
				{ id: "call-write", name: "write", args: { path: "build.log", content: log } },
				{ id: "call-head", name: "read", args: { path: "build.log" } },
				{ id: "call-tail", name: "read", args: { path: "build.log", offset: 19_999 } },
			],
		);
		const [write, head, tail] = toolResults(h);
		expect(write).toEqual(["call-write", false, `Successfully wrote ${log.length} bytes to build.log`]);
		expect(head?.[1]).toBe(false);
		expect(head?.[2].startsWith("build step 1 ok\nbuild step 2 ok\n")).toBe(true);
		expect(
			head?.[2].endsWith("build step 2000 ok\n\n[Showing lines 1-2000 of 20000. Use offset=2001 to continue.]"),
		).toBe(true);
		expect(tail).toEqual(["call-tail", false, "build step 19999 ok\nbuild step 20000 ok\n"]);
		expect(readFileSync(join(h.tempDir, "build.log"), "utf8")).toBe(log);
	});

	it("gemini-cli#29244: an answer reading notes.md, then editing it: the read sees the text before the edit, the file the text after", async () => {
		h = await oneAnswer(
			(cwd) => writeFileSync(join(cwd, "notes.md"), "status: draft\n"),
			[
				{ id: "call-read", name: "read", args: { path: "notes.md" } },
				{ id: "call-edit", name: "edit", args: { path: "notes.md", oldText: "draft", newText: "final" } },
			],
		);
		expect(toolResults(h)).toEqual([
			["call-read", false, "status: draft\n"],
			["call-edit", false, "Successfully replaced 1 block(s) in notes.md."],
		]);
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe("status: final\n");
	});

	it("gemini-cli#29244 (pi-peer): pi 0.73.1's read answers with the old text while a mutation of the file holds its queue", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-gemini-29244-"));
		try {
			const file = join(cwd, "notes.md");
			writeFileSync(file, "status: draft\n");
			const held = gate();
			const mutation = pi.withFileMutationQueue(file, async () => {
				await held.promise;
				writeFileSync(file, "status: final\n");
			});
			const read = pi.createReadToolDefinition(cwd);
			const result = await read.execute("c", { path: "notes.md" }, undefined, undefined, undefined as never);
			expect(result.content).toEqual([{ type: "text", text: "status: draft\n" }]);
			held.release();
			await mutation;
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("qwen-code#8493: a cancelled file tool still changes the file", () => {
	it("qwen-code#8493: abort while an edit and a write of notes.md wait behind an extension's formatter: both are saved as aborted and never land, the formatter's text stays", async () => {
		const held = gate();
		let formatterRunning!: () => void;
		const running = new Promise<void>((resolve) => {
			formatterRunning = resolve;
		});
		let formatted: Promise<void> | undefined;
		const formatter = (pi: ExtensionAPI) => {
			pi.registerTool({
				name: "format_notes",
				label: "format_notes",
				description: "Format notes.md",
				parameters: { type: "object", properties: {} },
				execute: async (_id, _params, signal, _onUpdate, ctx) => {
					const file = join(ctx.cwd, "notes.md");
					// The formatter's own mutation goes on after the abort; the call itself answers at once.
					formatted = withFileMutationQueue(file, async () => {
						formatterRunning();
						await held.promise;
						writeFileSync(file, "# Notes\n\nstatus: draft\n");
					});
					await new Promise<void>((_, reject) => {
						signal?.addEventListener("abort", () => reject(new Error("formatting stopped")), { once: true });
					});
					return { content: [], details: {} };
				},
			});
		};
		h = await createHarness({
			persistence: "disk",
			initialActiveToolNames: ["edit", "write", "format_notes"],
			extensionFactories: [formatter],
		});
		const harness = h;
		writeFileSync(join(harness.tempDir, "notes.md"), "status: draft\n");
		script(harness, [
			fauxAssistantMessage(
				[
					fauxToolCall("format_notes", {}, { id: "call-format" }),
					fauxToolCall("edit", { path: "notes.md", oldText: "draft", newText: "final" }, { id: "call-edit" }),
					fauxToolCall("write", { path: "notes.md", content: "overwritten\n" }, { id: "call-write" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("not reached"),
		]);
		const prompt = harness.session.prompt("format the notes, mark them final, then rewrite them");
		await running;
		await harness.session.abort();
		await prompt;

		held.release();
		await formatted;
		// Queued after the edit and the write: once it runs, theirs have had their turn.
		await withFileMutationQueue(join(harness.tempDir, "notes.md"), async () => {});
		expect(readFileSync(join(harness.tempDir, "notes.md"), "utf8")).toBe("# Notes\n\nstatus: draft\n");
		expect(toolResults(harness)).toEqual([
			["call-format", true, "formatting stopped"],
			["call-edit", true, "Operation aborted"],
			["call-write", true, "Operation aborted"],
		]);
		expect(reopenedContext(harness.session.sessionFile!).map(comparable)).toEqual(
			harness.session.messages.map(comparable),
		);
	});
});
