/**
 * `settle -i`'s session-tree commands and the other pi commands of a line UI (`/tree`, `/label`,
 * `/clone`, `/reload`, `/copy`, `/hotkeys`), driven through a pipe as a user would (real child
 * process, the faux model), checked on the session files on disk. Waits are on output markers.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/llm/types.js";
import { useCliProject } from "./helpers.js";
import {
	bannerSessionFile,
	fileAppears,
	GATED_COMMAND,
	messageEntry,
	navigateTree,
	Repl,
	readEntries,
	TREE_QUESTION,
	type TreeEntry,
	transcript,
} from "./interactive.helpers.js";
import { slowProvider } from "./slow-provider.js";

const cli = useCliProject("settle-interactive-tree-");

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

function script(steps: unknown[]): string {
	const file = join(cli.dir, "script.json");
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** The ids from an entry's parent up to its root. */
function ancestorIds(file: string, entry: TreeEntry): string[] {
	const byId = new Map((readEntries(file) as TreeEntry[]).map((each) => [each.id, each]));
	const ids: string[] = [];
	for (let cursor: TreeEntry | undefined = entry; cursor?.parentId; cursor = byId.get(cursor.parentId)) {
		ids.push(cursor.parentId);
	}
	return ids;
}

/**
 * The shortest prefix of `id` (at least 5 characters) no other entry of `file` starts with: a prefix
 * cut at a fixed length could, rarely, be shared by another entry's random id.
 */
function uniquePrefix(file: string, id: string): string {
	const others = readEntries(file)
		.map((entry) => String(entry.id))
		.filter((other) => other !== id);
	for (let length = 5; length < id.length; length++) {
		const prefix = id.slice(0, length);
		if (!others.some((other) => other.startsWith(prefix))) return prefix;
	}
	return id;
}

/**
 * A session file with entries of chosen ids (user and assistant messages, one branch) after a
 * thinking-level entry (without it, resuming would append one and move the current position).
 */
function writeSession(ids: string[]): string {
	const dir = join(cli.dir, "fixture");
	mkdirSync(dir, { recursive: true });
	const file = join(dir, "fixture.jsonl");
	const time = (index: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
	const header = { type: "session", version: 3, id: "fixture-session", timestamp: time(0), cwd: cli.project };
	const lines = ids.map((id, index) => {
		const role = index % 2 === 0 ? "user" : "assistant";
		const text = `message ${index + 1}`;
		const message =
			role === "user"
				? { role, content: text, timestamp: Date.parse(time(index)) }
				: {
						role,
						content: [{ type: "text", text }],
						api: "faux",
						provider: "faux",
						model: "faux-1",
						usage: emptyUsage(),
						stopReason: "stop",
						timestamp: Date.parse(time(index)),
					};
		return {
			type: "message",
			id,
			parentId: index === 0 ? "0fffffff" : ids[index - 1],
			timestamp: time(index + 1),
			message,
		};
	});
	const thinking = {
		type: "thinking_level_change",
		id: "0fffffff",
		parentId: null,
		timestamp: time(0),
		thinkingLevel: "off",
	};
	writeFileSync(file, `${[header, thinking, ...lines].map((line) => JSON.stringify(line)).join("\n")}\n`);
	return file;
}

describe("settle -i: /tree and /label", () => {
	it("/tree <id> goes back to an entry (no summary): the next message branches there; /tree then draws both branches, the current one marked", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("first question", "first question\n>");
		await chat.say("second question", "second question\n>");
		const file = bannerSessionFile(chat.stdout);
		const firstAnswer = messageEntry(file, "assistant", "first question");
		const secondAnswer = messageEntry(file, "assistant", "second question");

		const before = await chat.say("/tree");
		expect(before).toContain("Session tree (• the current branch, ← here: where your next message goes):\n");
		expect(before).toContain(`• ${firstAnswer.id} assistant: first question\n`);
		expect(before).toContain(`• ${secondAnswer.id} assistant: second question  ← here\n`);

		const moved = await navigateTree(chat, uniquePrefix(file, firstAnswer.id), "1");
		expect(moved).toContain(
			"Summarize the branch you leave?\n  1. No summary\n  2. Summarize\n  3. Summarize with custom prompt\n",
		);
		expect(moved).toContain(`Now at ${firstAnswer.id}: assistant: first question\n`);
		await chat.say("another second", "another second\n>");

		// On disk: the new message is a child of the entry gone to, beside the old second question.
		const another = messageEntry(file, "user", "another second");
		expect(another.parentId).toBe(firstAnswer.id);
		expect(readEntries(file).filter((entry) => entry.type === "branch_summary")).toHaveLength(0);
		const secondQuestion = messageEntry(file, "user", "second question");
		expect(secondQuestion.parentId).toBe(firstAnswer.id);
		const anotherAnswer = messageEntry(file, "assistant", "another second");

		const after = (await chat.say("/tree")).split("\n");
		// The current branch first, drawn as a branch; the old one after it, unmarked.
		const current = after.indexOf(`├─ • ${another.id} user: another second`);
		const old = after.indexOf(`└─   ${secondQuestion.id} user: second question`);
		expect(current).toBeGreaterThan(0);
		expect(old).toBeGreaterThan(current);
		expect(after).toContain(`│  • ${anotherAnswer.id} assistant: another second  ← here`);
		expect(after).toContain(`     ${secondAnswer.id} assistant: second question`);
		expect(after.filter((line) => line.endsWith("  ← here"))).toHaveLength(1);
		expect(await chat.end()).toBe(0);
	});

	it("/tree <your message>: Summarize writes a branch_summary the next message follows; the message comes back to send again", async () => {
		const steps = script(["answer one", "answer two", "The branch tried answer two."]);
		const chat = repl(["--faux-script", steps]);
		await chat.idle(0);
		await chat.say("question one", "answer one\n>");
		await chat.say("question two", "answer two\n>");
		const file = bannerSessionFile(chat.stdout);
		const questionTwo = messageEntry(file, "user", "question two");
		const oldLeaf = messageEntry(file, "assistant", "answer two");

		const moved = await navigateTree(chat, questionTwo.id, "2");
		expect(moved).toContain("Summarizing the branch you leave… (Ctrl+C cancels)\n");
		const answerOne = messageEntry(file, "assistant", "answer one");
		expect(moved).toContain(
			`Now at ${answerOne.id}, just before your message ${questionTwo.id}: question two\nSend it again, edited, or type another one.\n`,
		);
		const summary = (readEntries(file) as TreeEntry[]).find((entry) => entry.type === "branch_summary");
		expect(summary).toMatchObject({ parentId: answerOne.id, fromId: oldLeaf.id });
		// pi's summarizer puts a preamble before the model's text.
		expect(summary?.summary).toMatch(/\n\nThe branch tried answer two\.$/);
		expect(moved).toContain(`The branch you left is summarized in entry ${summary!.id}.\n`);

		await chat.say("question two, better", "question two, better\n>");
		expect(messageEntry(file, "user", "question two, better").parentId).toBe(summary!.id);
		const tree = await chat.say("/tree");
		expect(tree).toContain(`• ${summary!.id} [branch summary] The user explored a different conversation branch`);
		expect(await chat.end()).toBe(0);
	});

	it("pi#8845: a branch summary whose answer stops at its token cap is one clear error: no summary written (its cost recorded), still at the same point; Summarize again records the complete summary", async () => {
		const steps = script([
			"answer one",
			"answer two",
			{ text: "## Goal\nRename the par", stopReason: "length" },
			"## Goal\nRename the parser module",
		]);
		const chat = repl(["--faux-script", steps]);
		await chat.idle(0);
		await chat.say("question one", "answer one\n>");
		await chat.say("question two", "answer two\n>");
		const file = bannerSessionFile(chat.stdout);
		const answerOne = messageEntry(file, "assistant", "answer one");
		const linesBefore = readEntries(file).length;

		const failed = await navigateTree(chat, answerOne.id, "2");
		expect(failed).toContain(
			"Error: Branch summarization failed: the answer reached its 2048-token cap before the summary was complete",
		);
		// No summary and no move: only the cut answer's cost is recorded (mindroom#2151).
		const after = readEntries(file);
		expect(after).toHaveLength(linesBefore + 1);
		expect(after.at(-1)).toMatchObject({ type: "usage", kind: "branch_summary" });

		const moved = await navigateTree(chat, answerOne.id, "2");
		expect(moved).toContain(`Now at ${answerOne.id}:`);
		const summary = (readEntries(file) as TreeEntry[]).find((entry) => entry.type === "branch_summary");
		expect(summary?.summary).toMatch(/Rename the parser module$/);
		expect(await chat.end()).toBe(0);
	});

	it("Summarize with custom prompt asks for the instructions, and they reach the summarizer", async () => {
		// The faux model without a script step echoes the request's last user message: the summary prompt.
		const chat = repl(["--faux-script", script(["answer one", "answer two"])]);
		await chat.idle(0);
		await chat.say("question one", "answer one\n>");
		await chat.say("question two", "answer two\n>");
		const file = bannerSessionFile(chat.stdout);
		const answerOne = messageEntry(file, "assistant", "answer one");
		const shown = await navigateTree(chat, answerOne.id, "3", {
			question: "Custom summarization instructions: ",
			answer: "mention the word PINEAPPLE",
		});
		expect(shown).toContain(`Now at ${answerOne.id}: assistant: answer one\n`);
		const summary = (readEntries(file) as TreeEntry[]).find((entry) => entry.type === "branch_summary");
		expect(summary?.summary).toContain("mention the word PINEAPPLE");
		expect(summary?.parentId).toBe(answerOne.id);
		expect(await chat.end()).toBe(0);
	});

	it("Ctrl+C while the branch is summarized cancels the navigation: nothing written, still at the same point", async () => {
		const extension = join(cli.dir, "slow.ts");
		writeFileSync(extension, slowProvider());
		const chat = repl(["--faux", "-e", extension]);
		await chat.idle(0);
		await chat.say("question one", "question one\n>");
		await chat.say("question two", "question two\n>");
		const file = bannerSessionFile(chat.stdout);
		const answerOne = messageEntry(file, "assistant", "question one");
		const answerTwo = messageEntry(file, "assistant", "question two");
		// The summary is asked of the current model: one that streams until aborted.
		await chat.say("/model slow/slow-1", "Model: slow/slow-1");
		let from = chat.mark();
		chat.send(`/tree ${answerOne.id}`);
		await chat.until(TREE_QUESTION, from);
		from = chat.mark();
		chat.send("2");
		await chat.until("Summarizing the branch you leave… (Ctrl+C cancels)\n", from);
		chat.child.kill("SIGINT");
		const cancelled = await chat.idle(from, "Branch summarization cancelled: still at the same point.\n");
		expect(cancelled).not.toContain("Now at");
		expect(readEntries(file).filter((entry) => entry.type === "branch_summary")).toEqual([]);
		await chat.say("/model faux/faux-1", "Model: faux/faux-1");
		await chat.say("question three", "question three\n>");
		expect(await chat.end()).toBe(0);
		// The next message still follows the old position (after the model change entries).
		expect(ancestorIds(file, messageEntry(file, "user", "question three"))).toContain(answerTwo.id);
	});

	it("with branchSummary.skipPrompt no question is asked (no summary); an extension's session_before_tree can cancel", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ branchSummary: { skipPrompt: true } }));
		const extension = join(cli.dir, "guard.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("session_before_tree", (event) => (event.preparation.targetId === "abc00001" ? { cancel: true } : undefined));
}
`,
		);
		const file = writeSession(["abc00001", "abc00002", "abd00003", "abd00004"]);
		const chat = repl(["--faux", "--session", file, "-e", extension]);
		await chat.idle(0);
		const moved = await chat.say("/tree abc00002");
		expect(moved).not.toContain("Summarize the branch you leave?");
		expect(moved).toContain("Now at abc00002: assistant: message 2\n");
		expect(await chat.say("/tree abc00001")).toContain("Navigation cancelled by an extension.\n");
		await chat.say("again", "again\n>");
		expect(await chat.end()).toBe(0);
		// Settle records the system prompt before the first request of a resumed file: it comes in between.
		const ancestors = ancestorIds(file, messageEntry(file, "user", "again"));
		expect(ancestors).toContain("abc00002");
		expect(ancestors).not.toContain("abd00003");
	});

	it("an empty answer cancels; the current point is 'Already at this point'; unknown and ambiguous prefixes are one clear error", async () => {
		const file = writeSession(["abc00001", "abc00002", "abd00003", "abd00004"]);
		const chat = repl(["--faux", "--session", file]);
		await chat.idle(0);
		expect(await chat.say("/tree abc00004")).toContain(
			"Error: No entry of this session has an id starting with abc00004: /tree lists them.\n",
		);
		const ambiguous = await chat.say("/tree ab");
		expect(ambiguous).toContain(
			"Error: 4 entries have an id starting with ab: abc00001 (user: message 1), abc00002 (assistant: message 2), abd00003 (user: message 3), abd00004 (assistant: message 4). Give more of the id.\n",
		);
		expect(await chat.say("/tree abd00004")).toContain("Already at this point.\n");
		const from = chat.mark();
		chat.send("/tree abc00002");
		await chat.until(TREE_QUESTION, from);
		expect(await chat.say("")).toContain("Navigation cancelled.\n");
		expect(await chat.say("/label zz x")).toContain("Error: No entry of this session has an id starting with zz");
		expect(await chat.end()).toBe(0);
		// Nothing was written by the refused or cancelled commands.
		expect(readEntries(file).map((entry) => entry.id)).toEqual([
			"0fffffff",
			"abc00001",
			"abc00002",
			"abd00003",
			"abd00004",
		]);
	});

	it("/label sets a label (shown in /tree and /label, a label entry in the file); latest wins; no text clears it", async () => {
		// The entries named by a prefix have ids no generated id can start with (those are 8 hex digits):
		// a label entry made on the way (random id) never makes the prefix ambiguous (b0: 1 in 256 each).
		const file = writeSession(["a0000001", "k0000002", "m0000003", "d0000004"]);
		const chat = repl(["--faux", "--session", file]);
		await chat.idle(0);
		expect(await chat.say("/label")).toContain("No entry has a label.");
		expect(await chat.say("/label k0 before the refactor")).toContain("Label of k0000002: before the refactor\n");
		expect(await chat.say("/label k0 checkpoint")).toContain("Label of k0000002: checkpoint\n");
		expect(await chat.say("/tree")).toContain("• k0000002 [checkpoint] assistant: message 2\n");
		expect(await chat.say("/label")).toContain("Labels:\n  k0000002 [checkpoint] assistant: message 2\n");
		expect(await chat.say("/label k0")).toContain("Label of k0000002 cleared (it was: checkpoint).\n");
		expect(await chat.say("/tree")).toContain("• k0000002 assistant: message 2\n");
		expect(await chat.say("/label m0")).toContain("Entry m0000003 has no label.\n");
		expect(await chat.end()).toBe(0);
		const labels = readEntries(file).filter((entry) => entry.type === "label");
		expect(labels.map((entry) => [entry.targetId, entry.label])).toEqual([
			["k0000002", "before the refactor"],
			["k0000002", "checkpoint"],
			["k0000002", undefined],
		]);
	});

	it("a long session: /tree stays within 40 lines, keeps the current position and says how to see all; /tree all lists every entry", async () => {
		const ids = Array.from({ length: 120 }, (_, index) => `e${String(index).padStart(7, "0")}`);
		const file = writeSession(ids);
		const chat = repl(["--faux", "--session", file]);
		await chat.idle(0);
		const tree = await chat.say("/tree");
		const lines = tree.split("\n").slice(1, -1);
		expect(lines.length).toBeLessThanOrEqual(40);
		expect(tree).toContain(`• ${ids[119]} assistant: message 120  ← here\n`);
		expect(tree).toContain(`• ${ids[0]} user: message 1\n`);
		expect(tree).toMatch(/ {2}… \d+ entries\n/);
		expect(tree).toMatch(/\d+ of 120 entries shown: \/tree all lists every entry/);
		const all = await chat.say("/tree all");
		for (const id of ids) expect(all).toContain(`• ${id} `);
		expect(await chat.end()).toBe(0);
	});

	it("/tree prints while a run streams; /tree <id>, /label <id>, /clone and /reload are refused until the session is idle, and say so", async () => {
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "done"]),
		]);
		await chat.idle(0);
		chat.send("work");
		await fileAppears(cli.project, "started");
		let from = chat.mark();
		chat.send("/tree");
		await chat.until("/label <id> <text> labels it.\n", from);
		expect(chat.stdout.slice(from)).toContain("user: work");
		for (const command of ["/tree 0", "/label 0 x", "/clone", "/reload"]) {
			from = chat.mark();
			chat.send(command);
			await chat.until(
				`${command.split(" ")[0]} needs an idle session and was not run: press Ctrl+C to abort the run, or send it again once the run has finished.\n`,
				from,
			);
		}
		writeFileSync(join(cli.project, "gate"), "");
		await chat.idle(from, "done\n");
		expect(await chat.end()).toBe(0);
		// "was not run" is true: none of them ran once the session was idle (no label, no clone).
		expect(readEntries(bannerSessionFile(chat.stdout)).filter((entry) => entry.type === "label")).toEqual([]);
		expect(chat.stdout).not.toContain("Cloned into a new session");
	});
});

describe("settle -i: /clone", () => {
	it("copies the current branch into a new session file and switches to it; the old file is left as it was", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("one", "one\n>");
		await chat.say("two", "two\n>");
		const oldFile = bannerSessionFile(chat.stdout);
		const cloned = await chat.say("/clone");
		const [, newId, newFile] = /^Cloned into a new session (\S+): (\S+\.jsonl)$/m.exec(cloned) ?? [];
		expect(newFile).toBeDefined();
		expect(newFile).not.toBe(oldFile);
		expect(dirname(newFile!)).toBe(dirname(oldFile));
		expect(existsSync(newFile!)).toBe(true);
		expect(transcript(newFile!)).toEqual(transcript(oldFile));
		const [header] = readEntriesWithHeader(newFile!);
		expect(header).toMatchObject({ type: "session", id: newId, parentSession: oldFile });
		expect(await chat.say("/session")).toContain(`  file: ${newFile}\n`);
		await chat.say("three", "three\n>");
		expect(await chat.end()).toBe(0);
		expect(transcript(newFile!)).toEqual([
			"user: one",
			"assistant: one",
			"user: two",
			"assistant: two",
			"user: three",
			"assistant: three",
		]);
		expect(transcript(oldFile)).toEqual(["user: one", "assistant: one", "user: two", "assistant: two"]);
		expect(readdirSync(dirname(oldFile))).toHaveLength(2);
	});
});

/** The header and the entries of a session file. */
function readEntriesWithHeader(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim())
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("settle -i: /reload, /copy, /hotkeys, /help", () => {
	it("/reload picks up a prompt template written after the start", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		expect(await chat.say("/greet Bob")).toContain("Error: unknown command /greet.");
		mkdirSync(join(cli.agentDir, "prompts"), { recursive: true });
		writeFileSync(
			join(cli.agentDir, "prompts", "greet.md"),
			"---\ndescription: Greets someone\n---\nSay hello to $1 please",
		);
		const reloaded = await chat.say("/reload");
		expect(reloaded).toContain("Reloading extensions, skills, prompt templates and context files…\n");
		expect(reloaded).toMatch(/^Reloaded: 0 extensions, 0 skills, 1 prompt template, \d+ context files?\.$/m);
		expect(await chat.say("/help")).toMatch(/^ {2}\/greet +Greets someone$/m);
		expect(await chat.say("/greet Bob", "Say hello to Bob please\n>")).toContain("Say hello to Bob please\n");
		expect(await chat.end()).toBe(0);
	});

	it("/copy on a pipe copies nothing and says why; with no answer yet it says so", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		expect(await chat.say("/copy")).toContain("Error: No agent messages to copy yet.\n");
		await chat.say("hello", "hello\n>");
		const refused = await chat.say("/copy");
		expect(refused).toContain(
			"Error: /copy writes to the clipboard through the terminal (OSC 52), and the output is not a terminal: nothing copied.\n",
		);
		expect(refused).not.toContain("\x1b]52");
		expect(await chat.end()).toBe(0);
	});

	it("/help lists the new commands and leaves out pi's full-screen ones; /hotkeys lists the keys", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		const help = await chat.say("/help");
		for (const usage of [
			"/clone",
			"/tree [all|entry-id]",
			"/label [entry-id [text]]",
			"/reload",
			"/copy",
			"/hotkeys",
			"/export [file.html|file.jsonl]",
			"/import <file.jsonl>",
		]) {
			expect(help).toContain(`  ${usage} `);
		}
		for (const absent of ["/settings", "/scoped-models", "/login", "/share", "/changelog"]) {
			expect(help).not.toContain(absent);
		}
		const keys = await chat.say("/hotkeys");
		expect(keys).toContain("Keys of the input line (in a terminal):\n");
		expect(keys).toMatch(/^ {2}Ctrl\+U \/ Ctrl\+K +Delete to the start \/ end of the line$/m);
		expect(await chat.say("/settings")).toContain("Error: unknown command /settings. Type /help for the commands.\n");
		expect(await chat.end()).toBe(0);
	});
});
