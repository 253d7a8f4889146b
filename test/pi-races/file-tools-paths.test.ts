/**
 * Reports about the file tools (`write`, `edit`) and the paths they land at, replayed with a model's
 * calls in a real session on real files, and (`pi-peer`) the same call to pi 0.73.1's tool.
 * claude-code#28376: `write` / `edit` on a symlinked dotfile replaced the link with a regular file and
 * left the file it pointed at unchanged, saying nothing. pi#64: the numbered diff of an edit counted
 * the context lines before the change from 1 instead of their line numbers in the file. pi#3894: an
 * `edit` to a write-protected file that exists said "File not found". pi#7523: the `sed` command
 * `read` suggests for a line over 50 KB named the path unquoted, so a path with a space or a quote
 * gave the model a command that fails. pi#2327: two `edit` calls to one file in the same message both
 * reported success, but only the write that landed last survived. A `write` to `notes/` (a path
 * ending in a slash) made a file named `notes`. qwen-code#3839, opencode#30765: `write` replaced a
 * file changed on disk since the model read it, silently dropping that change; mistral-vibe#1064: a
 * rewrite to the same size within one tick of the file system's clock kept size and time, so a
 * check by those alone missed it.
 */
import {
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { type Answer, comparable, reopenedContext, script, writeProtect } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each tool result the model received, in call order. */
function toolResults(harness: Harness): { isError: boolean; text: string; details: unknown }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						isError: message.isError,
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						details: message.details,
					},
				]
			: [],
	);
}

/** Runs the model's tool calls (one turn each) in a real disk session; `prepare` lays out its cwd. */
async function modelCalls(
	prepare: (cwd: string) => void,
	calls: { name: string; args: Record<string, unknown> }[],
	tools: string[] = ["read", "write", "edit"],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: tools });
	prepare(harness.tempDir);
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("change the files");
	return harness;
}

describe("claude-code#28376: write and edit replace symlinks with regular files", () => {
	it("claude-code#28376: write then edit through settings.json -> canonical/settings.json change the target; the link stays a link", async () => {
		h = await modelCalls(
			(cwd) => {
				mkdirSync(join(cwd, "canonical"));
				writeFileSync(join(cwd, "canonical", "settings.json"), '{ "enabled": true }\n');
				symlinkSync(join("canonical", "settings.json"), join(cwd, "settings.json"));
			},
			[
				{ name: "write", args: { path: "settings.json", content: '{ "enabled": false }\n' } },
				{ name: "edit", args: { path: "settings.json", edits: [{ oldText: "false", newText: "null" }] } },
			],
		);
		expect(toolResults(h).map(({ isError, text }) => ({ isError, text }))).toEqual([
			{ isError: false, text: "Successfully wrote 21 bytes to settings.json" },
			{ isError: false, text: "Successfully replaced 1 block(s) in settings.json." },
		]);
		expect(lstatSync(join(h.tempDir, "settings.json")).isSymbolicLink()).toBe(true);
		expect(readFileSync(join(h.tempDir, "canonical", "settings.json"), "utf8")).toBe('{ "enabled": null }\n');
	});

	it("claude-code#28376: a dangling link whose target folder is missing (notes.md -> drafts/2026/notes.md) is written through: the folder is made, the link stays, a later edit lands there too", async () => {
		h = await modelCalls(
			(cwd) => symlinkSync(join("drafts", "2026", "notes.md"), join(cwd, "notes.md")),
			[
				{ name: "write", args: { path: "notes.md", content: "# Notes\n\ndraft\n" } },
				{ name: "edit", args: { path: "notes.md", edits: [{ oldText: "draft", newText: "final" }] } },
			],
		);
		expect(toolResults(h).map(({ isError, text }) => ({ isError, text }))).toEqual([
			{ isError: false, text: "Successfully wrote 15 bytes to notes.md" },
			{ isError: false, text: "Successfully replaced 1 block(s) in notes.md." },
		]);
		expect(lstatSync(join(h.tempDir, "notes.md")).isSymbolicLink()).toBe(true);
		expect(readFileSync(join(h.tempDir, "drafts", "2026", "notes.md"), "utf8")).toBe("# Notes\n\nfinal\n");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("claude-code#28376: a chain of links (a.md -> b.md -> out/c.md, out missing) is followed to its end; both links stay", async () => {
		h = await modelCalls(
			(cwd) => {
				symlinkSync(join("out", "c.md"), join(cwd, "b.md"));
				symlinkSync("b.md", join(cwd, "a.md"));
			},
			[{ name: "write", args: { path: "a.md", content: "chained\n" } }],
		);
		expect(toolResults(h)[0]).toMatchObject({ isError: false, text: "Successfully wrote 8 bytes to a.md" });
		expect(lstatSync(join(h.tempDir, "a.md")).isSymbolicLink()).toBe(true);
		expect(lstatSync(join(h.tempDir, "b.md")).isSymbolicLink()).toBe(true);
		expect(readFileSync(join(h.tempDir, "out", "c.md"), "utf8")).toBe("chained\n");
	});

	it("claude-code#28376 (pi-peer): pi 0.73.1's write through the dangling link fails with ENOENT and creates nothing", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-cc-28376-"));
		try {
			await symlink(join("drafts", "2026", "notes.md"), join(cwd, "notes.md"));
			const tool = pi.createWriteToolDefinition(cwd);
			await expect(
				tool.execute("c", { path: "notes.md", content: "# Notes\n" }, undefined, undefined, undefined as never),
			).rejects.toThrow(/ENOENT/);
			expect(() => lstatSync(join(cwd, "drafts"))).toThrow(/ENOENT/);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("pi#64: edit output shows incorrect line numbers before first change", () => {
	it("pi#64: an edit at line 109 of a 120-line file shows lines 105–108 before it under their own numbers", async () => {
		const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`);
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "notes.md"), `${lines.join("\n")}\n`),
			[{ name: "edit", args: { path: "notes.md", edits: [{ oldText: "line 109\n", newText: "LINE 109\n" }] } }],
		);
		const [result] = toolResults(h);
		if (!result) throw new Error("no tool result");
		expect(result).toMatchObject({ isError: false, text: "Successfully replaced 1 block(s) in notes.md." });
		expect((result.details as { diff: string }).diff.split("\n")).toEqual([
			"     ...",
			" 105 line 105",
			" 106 line 106",
			" 107 line 107",
			" 108 line 108",
			"-109 line 109",
			"+109 LINE 109",
			" 110 line 110",
			" 111 line 111",
			" 112 line 112",
			" 113 line 113",
			"     ...",
		]);
		expect((result.details as { firstChangedLine: number }).firstChangedLine).toBe(109);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("pi#3894: edit reports File not found when the file exists but is write protected", () => {
	it("pi#3894: an edit to a write-protected file is refused as Permission denied (not File not found); the file keeps its bytes and the session goes on", async () => {
		let undo: (() => void) | undefined;
		try {
			h = await modelCalls(
				(cwd) => {
					writeFileSync(join(cwd, "Game.as"), "var speed = 1;\n");
					undo = writeProtect(join(cwd, "Game.as"));
				},
				[{ name: "edit", args: { path: "Game.as", edits: [{ oldText: "1", newText: "2" }] } }],
			);
			expect(toolResults(h).map(({ isError, text }) => ({ isError, text }))).toEqual([
				// What happened, that nothing was changed, and what to do.
				{
					isError: true,
					text: `Permission denied: ${join(h.tempDir, "Game.as")}. Nothing was changed. Check the file's permissions (ls -l) or ask the user to change them, or pick a path you can write to.`,
				},
			]);
			expect(readFileSync(join(h.tempDir, "Game.as"), "utf8")).toBe("var speed = 1;\n");
			expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
		} finally {
			undo?.();
		}
	});
});

describe("pi#7523: the read tool's bash fallback for a long line does not shell-quote the path", () => {
	const path = "my notes/it's min.js";
	const longLine = `var data = "${"y".repeat(60_000)}";`;

	it("pi#7523: the sed command suggested for a 60 KB line in `my notes/it's min.js` quotes the path, and the model running it gets the line", async () => {
		const runTheHint: Answer = (context) => {
			const result = context.messages.findLast((message) => message.role === "toolResult");
			const text = result?.role === "toolResult" && result.content[0]?.type === "text" ? result.content[0].text : "";
			const command = /Use bash: (.*)\]$/.exec(text)?.[1] ?? "no hint";
			return fauxAssistantMessage([fauxToolCall("bash", { command })], { stopReason: "toolUse" });
		};
		const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "bash"] });
		h = harness;
		mkdirSync(join(harness.tempDir, "my notes"));
		writeFileSync(join(harness.tempDir, path), `// header\n${longLine}\nconsole.log(data.length);\n`);
		script(harness, [
			fauxAssistantMessage([fauxToolCall("read", { path, offset: 2 })], { stopReason: "toolUse" }),
			runTheHint,
			fauxAssistantMessage("done"),
		]);
		await harness.session.prompt("look at the data line");
		const [read, bash] = toolResults(harness);
		expect(read).toMatchObject({
			isError: false,
			text: `[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' 'my notes/it'\\''s min.js' | head -c 51200]`,
		});
		expect(bash?.isError).toBe(false);
		expect(bash?.text.startsWith(`var data = "${"y".repeat(1000)}`)).toBe(true);
		expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("pi#7523 (pi-peer): pi 0.73.1 suggests the path unquoted", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-7523-"));
		try {
			mkdirSync(join(cwd, "my notes"));
			writeFileSync(join(cwd, path), `// header\n${longLine}\n`);
			const tool = pi.createReadToolDefinition(cwd);
			const result = await tool.execute("c", { path, offset: 2 }, undefined, undefined, undefined as never);
			expect(result.content[0]).toMatchObject({
				text: `[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' my notes/it's min.js | head -c 51200]`,
			});
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("pi#2327: parallel edit tool calls on the same file overwrite each other", () => {
	it("pi#2327: three edits to race-test.txt in one message (one through a symlink, one as sub/../race-test.txt) all land; each reports success", async () => {
		const numbers = Array.from({ length: 100 }, (_, i) => `${i + 1}`);
		h = await modelCallsInOneMessage(
			(cwd) => {
				writeFileSync(join(cwd, "race-test.txt"), `${numbers.join("\n")}\n`);
				mkdirSync(join(cwd, "sub"));
				symlinkSync("race-test.txt", join(cwd, "link.txt"));
			},
			[
				{ path: "race-test.txt", edits: [{ oldText: "\n50\n", newText: "\nFIFTY\n" }] },
				{ path: "link.txt", edits: [{ oldText: "\n75\n", newText: "\nSEVENTY-FIVE\n" }] },
				{ path: "sub/../race-test.txt", edits: [{ oldText: "\n99\n", newText: "\nNINETY-NINE\n" }] },
			],
		);
		expect(toolResults(h).map(({ isError }) => isError)).toEqual([false, false, false]);
		const expected = numbers.map((n) => ({ 50: "FIFTY", 75: "SEVENTY-FIVE", 99: "NINETY-NINE" })[n] ?? n);
		expect(readFileSync(join(h.tempDir, "race-test.txt"), "utf8")).toBe(`${expected.join("\n")}\n`);
		expect(lstatSync(join(h.tempDir, "link.txt")).isSymbolicLink()).toBe(true);
	});
});

/** One model message with an `edit` call per entry of `edits` (run as one parallel batch), then "done". */
async function modelCallsInOneMessage(
	prepare: (cwd: string) => void,
	edits: Record<string, unknown>[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["edit"] });
	prepare(harness.tempDir);
	script(harness, [
		fauxAssistantMessage(
			edits.map((args) => fauxToolCall("edit", args)),
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("make the edits in parallel");
	return harness;
}

describe("write to a path ending in a slash (`newdir/`) creates a file named newdir", () => {
	it("write to `notes/` is refused as naming a folder (INVALID_ARGUMENT, nothing created); the model's next write to notes/todo.md lands in a new folder", async () => {
		h = await modelCalls(() => {}, [
			{ name: "write", args: { path: "notes/", content: "- buy milk\n" } },
			{ name: "write", args: { path: "notes/todo.md", content: "- buy milk\n" } },
		]);
		expect(toolResults(h).map(({ isError, text }) => ({ isError, text }))).toEqual([
			{
				isError: true,
				text: 'Cannot write notes/: the path ends with "/", so it names a folder, not a file. Nothing was written. Pass the path of a file inside it (for example notes/README.md); write creates missing folders itself.',
			},
			{ isError: false, text: "Successfully wrote 11 bytes to notes/todo.md" },
		]);
		expect(lstatSync(join(h.tempDir, "notes")).isDirectory()).toBe(true);
		expect(readFileSync(join(h.tempDir, "notes", "todo.md"), "utf8")).toBe("- buy milk\n");
	});

	it("write to an existing folder given with its slash (`src/`) leaves the folder and its files as they were", async () => {
		h = await modelCalls(
			(cwd) => {
				mkdirSync(join(cwd, "src"));
				writeFileSync(join(cwd, "src", "a.ts"), "export {};\n");
			},
			[{ name: "write", args: { path: "src/", content: "oops" } }],
		);
		expect(toolResults(h)[0]).toMatchObject({ isError: true, text: expect.stringContaining("names a folder") });
		expect(readdirSync(join(h.tempDir, "src"))).toEqual(["a.ts"]);
	});

	it("(pi-peer) pi 0.73.1's write to `notes/` creates a regular file named notes", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-write-slash-"));
		try {
			const tool = pi.createWriteToolDefinition(cwd);
			await tool.execute("c", { path: "notes/", content: "- buy milk\n" }, undefined, undefined, undefined as never);
			expect(lstatSync(join(cwd, "notes")).isFile()).toBe(true);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("qwen-code#3839, opencode#30765: write silently overwrites a file changed on disk since the model read it", () => {
	const refused = `Cannot write notes.md: the file has been modified since you last read it (by the user, a formatter or another program). Nothing was written. Read it again, then write your change on top of its current content.`;

	it("qwen-code#3839: read notes.md, another process appends a line, write notes.md: refused, the line kept; read again, the write lands", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "notes.md"), "# Notes\n"),
			[
				{ name: "read", args: { path: "notes.md" } },
				{ name: "bash", args: { command: "printf -- '- added by the user\\n' >> notes.md" } },
				{ name: "write", args: { path: "notes.md", content: "# Notes\n- from the model\n" } },
				{ name: "read", args: { path: "notes.md" } },
				{ name: "write", args: { path: "notes.md", content: "# Notes\n- added by the user\n- from the model\n" } },
			],
			["read", "bash", "write"],
		);
		const results = toolResults(h).map(({ isError, text }) => ({ isError, text }));
		expect(results[2]).toEqual({ isError: true, text: refused });
		expect(results[3]).toEqual({ isError: false, text: "# Notes\n- added by the user\n" });
		expect(results[4]).toEqual({ isError: false, text: "Successfully wrote 45 bytes to notes.md" });
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe("# Notes\n- added by the user\n- from the model\n");
	});

	it("qwen-code#3839: a file never read in the session, a new file, and a file the model changed itself (read, edit, write, write) are written as before", async () => {
		h = await modelCalls(
			(cwd) => {
				writeFileSync(join(cwd, "unread.md"), "old\n");
				writeFileSync(join(cwd, "notes.md"), "# Notes\n");
			},
			[
				{ name: "write", args: { path: "unread.md", content: "new\n" } },
				{ name: "write", args: { path: "fresh.md", content: "one\n" } },
				{ name: "write", args: { path: "fresh.md", content: "two\n" } },
				{ name: "read", args: { path: "notes.md" } },
				{ name: "edit", args: { path: "notes.md", edits: [{ oldText: "Notes", newText: "Plan" }] } },
				{ name: "write", args: { path: "notes.md", content: "# Plan\n- step\n" } },
				{ name: "write", args: { path: "notes.md", content: "# Plan\n- step\n- next\n" } },
			],
		);
		expect(toolResults(h).filter((result) => result.isError)).toEqual([]);
		expect(readFileSync(join(h.tempDir, "unread.md"), "utf8")).toBe("new\n");
		expect(readFileSync(join(h.tempDir, "fresh.md"), "utf8")).toBe("two\n");
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe("# Plan\n- step\n- next\n");
	});

	it("qwen-code#3839: a file read through a link and changed through its target is refused when written through either name", async () => {
		h = await modelCalls(
			(cwd) => {
				mkdirSync(join(cwd, "canonical"));
				writeFileSync(join(cwd, "canonical", "notes.md"), "# Notes\n");
				symlinkSync(join("canonical", "notes.md"), join(cwd, "notes.md"));
			},
			[
				{ name: "read", args: { path: "notes.md" } },
				{ name: "bash", args: { command: "printf -- '- user\\n' >> canonical/notes.md" } },
				{ name: "write", args: { path: "canonical/notes.md", content: "lost\n" } },
			],
			["read", "bash", "write"],
		);
		expect(toolResults(h)[2]).toMatchObject({
			isError: true,
			text: expect.stringContaining("modified since you last read it"),
		});
		expect(readFileSync(join(h.tempDir, "canonical", "notes.md"), "utf8")).toBe("# Notes\n- user\n");
	});

	// A change within one tick of the file system's clock keeps the file's size and time; touch puts
	// the time back exactly (a whole second, so nothing is lost to rounding). The second is ahead of
	// now, so the stamp cannot tell it from "just changed", whatever the machine's load.
	const sameTick = Math.floor(Date.now() / 1000) + 60;
	const sameSizeAndTime = (cwd: string) => {
		writeFileSync(join(cwd, "notes.md"), "# Notes\n- first\n");
		utimesSync(join(cwd, "notes.md"), sameTick, sameTick);
	};

	it("mistral-vibe#1064: read notes.md, another process rewrites it to the same size and puts its modification time back, write notes.md: refused, the other text kept", async () => {
		h = await modelCalls(
			sameSizeAndTime,
			[
				{ name: "read", args: { path: "notes.md" } },
				{
					name: "bash",
					args: { command: `printf -- '# Notes\\n- other\\n' > notes.md && touch -d @${sameTick} notes.md` },
				},
				{ name: "write", args: { path: "notes.md", content: "# Notes\n- from the model\n" } },
			],
			["read", "bash", "write"],
		);
		expect(toolResults(h).map(({ isError, text }) => ({ isError, text }))[2]).toEqual({ isError: true, text: refused });
		expect(statSync(join(h.tempDir, "notes.md")).mtimeMs).toBe(sameTick * 1000);
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe("# Notes\n- other\n");
	});

	it("mistral-vibe#1064: a file read and left unchanged (its time set again to the same second) is still written", async () => {
		h = await modelCalls(
			sameSizeAndTime,
			[
				{ name: "read", args: { path: "notes.md" } },
				{ name: "bash", args: { command: `touch -d @${sameTick} notes.md` } },
				{ name: "write", args: { path: "notes.md", content: "# Notes\n- from the model\n" } },
			],
			["read", "bash", "write"],
		);
		expect(toolResults(h).filter((result) => result.isError)).toEqual([]);
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe("# Notes\n- from the model\n");
	});

	it("qwen-code#3839 (pi-peer): pi 0.73.1's write after its read replaces a file changed in between", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-stale-write-"));
		try {
			writeFileSync(join(cwd, "notes.md"), "# Notes\n");
			const [read, write] = [pi.createReadToolDefinition(cwd), pi.createWriteToolDefinition(cwd)];
			await read.execute("r", { path: "notes.md" }, undefined, undefined, undefined as never);
			writeFileSync(join(cwd, "notes.md"), "# Notes\n- added by the user\n");
			await write.execute("w", { path: "notes.md", content: "lost\n" }, undefined, undefined, undefined as never);
			expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("lost\n");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
