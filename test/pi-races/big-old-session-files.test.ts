/**
 * Session files that grew big or old, replayed against Settle with real `settle` child processes on
 * real session files.
 *
 * openclaw#89085: pi's v1 → v2 migration gave each entry a fresh 8-hex id but never added it to the
 * set it checked against, so two entries of a long v1 file could get the same id; the rebuilt chain
 * then had an entry parented to itself and a branch that stopped there.
 * claude-code#24118: one line of ~12.8 MB (a `git diff` tool result) froze `--resume`.
 * claude-code#23373: a 100 MB session, named late, was listed by its first prompt, not its name.
 * opencode#5510: `--continue` took the session created last, not the one used last.
 * pi#9708: opening an older session rewrote it in place; a rewrite cut off (crash, full disk) had
 * nothing to fall back on. openclaw#44812: temp and backup copies piled up in the sessions folder.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/llm/types.js";
import { getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { cliCommand, runSettle, useCliProject } from "../cli/helpers.js";
import { RESUME_QUESTION, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-big-old-files-");

function settle(...args: string[]) {
	return runSettle(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

const at = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();
const ZERO_USAGE = emptyUsage();
const user = (text: string, ms: number) => ({ role: "user", content: text, timestamp: ms });
const assistant = (content: unknown[], ms: number, stopReason = "stop") => ({
	role: "assistant",
	content,
	api: "faux",
	provider: "faux",
	model: "faux-1",
	usage: ZERO_USAGE,
	stopReason,
	timestamp: ms,
});

describe("openclaw#89085: a long v1 session file migrated with two entries on one id", () => {
	it("openclaw#89085: `settle -p --session <v1 file>` of 300,000 entries answers; the file, rewritten as v3, gives every entry its own id and the branch from the leaf runs through all of them to the first", {
		timeout: 120_000,
	}, () => {
		// 300,000 ids of 8 hex digits: without a collision check ~10 pairs would share one.
		const count = 300_000;
		const file = join(cli.dir, "v1.jsonl");
		const lines = [JSON.stringify({ type: "session", id: "v1-session", timestamp: at(0), cwd: cli.project })];
		for (let k = 0; k < count; k++) {
			const message = k % 2 === 0 ? user(`question ${k}`, k) : assistant([{ type: "text", text: `answer ${k}` }], k);
			lines.push(JSON.stringify({ type: "message", timestamp: at(k), message }));
		}
		// v1 compactions name the first kept entry by its index (the header is index 0): the last question.
		lines.push(
			JSON.stringify({
				type: "compaction",
				timestamp: at(count),
				summary: "everything so far",
				firstKeptEntryIndex: count - 1,
				tokensBefore: 1_000_000,
			}),
		);
		writeFileSync(file, `${lines.join("\n")}\n`);

		const run = settle("-p", "--session", file, "next step");
		expect(run.stderr).not.toMatch(/Error/);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("next step");

		const entries = readEntries(file) as { id: string; parentId: string | null; type: string }[];
		expect(JSON.parse(readFileSync(file, "utf8").slice(0, 500).split("\n")[0]!)).toMatchObject({ version: 3 });
		expect(entries.length).toBeGreaterThanOrEqual(count + 3);
		expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
		const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
		try {
			expect(reopened.getBranch().length).toBe(entries.length);
			expect(reopened.getBranch()[0]!.parentId).toBeNull();
			expect(transcript(file).slice(-4)).toEqual([
				`user: question ${count - 2}`,
				`assistant: answer ${count - 1}`,
				"user: next step",
				"assistant: next step",
			]);
			const context = reopened
				.buildSessionContext()
				.messages.filter((message) => message.role !== "system")
				.map((message) => message.role);
			expect(context).toEqual(["compactionSummary", "user", "assistant", "user", "assistant"]);
		} finally {
			reopened.close();
		}
	});
});

/**
 * `settle <args>` with no file of the process allowed past `bytes` (`prlimit --fsize`, SIGXFSZ
 * ignored, so a write past it fails with EFBIG as on a full disk).
 */
function settleWithFileSizeLimit(bytes: number, args: string[]) {
	const quoted = [process.execPath, ...cliCommand(), "--faux", ...args].map(
		(arg) => `'${arg.replaceAll("'", "'\\''")}'`,
	);
	const run = spawnSync("sh", ["-c", `trap '' XFSZ; exec prlimit --fsize=${bytes} ${quoted.join(" ")}`], {
		cwd: cli.project,
		input: "",
		encoding: "utf8",
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A v`version` session file of 400 messages (~340 KB); v1 entries have no ids. */
function writeOldSession(file: string, version: 1 | 2, extraLines: string[] = []): void {
	const lines = [JSON.stringify({ type: "session", version, id: "old-session", timestamp: at(0), cwd: cli.project })];
	for (let k = 0; k < 400; k++) {
		const text = `${k % 2 === 0 ? "question" : "answer"} ${k} ${"x".repeat(700)}`;
		const message = k % 2 === 0 ? user(text, k) : assistant([{ type: "text", text }], k);
		const ids = version === 2 ? { id: `e${k}`, parentId: k === 0 ? null : `e${k - 1}` } : {};
		lines.push(JSON.stringify({ type: "message", ...ids, timestamp: at(k), message }));
	}
	writeFileSync(file, `${[...lines, ...extraLines].join("\n")}\n`);
}

describe("pi#9708: opening an older session rewrites it in place, with nothing to fall back on if the rewrite is cut off", () => {
	it("pi#9708: the rewrite of a v2 file (and of a v1 file with an unreadable line, kept as a .bak first) stopped by a full disk: exit 3 naming the file, the format and what to do; the file keeps its bytes, nothing half-written is left beside it; with room again it is migrated and continued", () => {
		const v2 = join(cli.dir, "v2.jsonl");
		writeOldSession(v2, 2);
		// A torn line mid-file: the migrated file drops it, so the original is kept as <file>.v1.bak first.
		const v1 = join(cli.dir, "v1.jsonl");
		writeOldSession(v1, 1, ['{"type":"message","timestamp":"cut off', JSON.stringify({ type: "label", label: "x" })]);
		for (const [file, version] of [[v2, 2] as const, [v1, 1] as const]) {
			const before = readFileSync(file);
			const limited = settleWithFileSizeLimit(Math.floor(before.length / 2), ["-p", "--session", file, "next step"]);
			expect(limited.stderr).toContain(
				`Could not migrate session file ${file} from format v${version} to v3: EFBIG: file too large, write. ` +
					"The file was left as it was. Free disk space (or raise the file size limit: ulimit -f), then open it again.",
			);
			expect(limited).toMatchObject({ code: 3, stdout: "" });
			expect(readFileSync(file).equals(before)).toBe(true);
			expect(readdirSync(cli.dir).filter((name) => name.startsWith(basename(file)))).toEqual([basename(file)]);

			const run = settle("-p", "--session", file, "next step");
			expect(run).toMatchObject({ code: 0, stdout: "next step\n" });
			expect(JSON.parse(readFileSync(file, "utf8").split("\n")[0]!)).toMatchObject({ version: 3, id: "old-session" });
			expect(transcript(file).slice(-3)).toEqual([
				`assistant: answer 399 ${"x".repeat(700)}`,
				"user: next step",
				"assistant: next step",
			]);
		}
		expect(readFileSync(`${v1}.v1.bak`, "utf8")).toContain('"cut off');
	});
});

describe("openclaw#44812: temp and backup copies left in the sessions folder pile up, never removed", () => {
	it("openclaw#44812: the half-written copies two killed migrations left beside an old session are removed when `settle -p --session` migrates it; another session's copy and a file of the user's stay", () => {
		const file = join(cli.dir, "v2.jsonl");
		writeOldSession(file, 2);
		const bytes = readFileSync(file);
		// What a migration killed mid-rewrite leaves: part of the new file, under the dead process's pid.
		const half = bytes.subarray(0, bytes.length >> 1);
		for (const pid of [deadPid(), deadPid()]) writeFileSync(`${file}.migrating-${pid}`, half);
		writeFileSync(join(cli.dir, `other.jsonl.migrating-${deadPid()}`), half);
		writeFileSync(`${file}.migrating-notes`, "mine\n");
		expect(readdirSync(cli.dir).filter((name) => name.includes(".migrating-"))).toHaveLength(4);

		const run = settle("-p", "--session", file, "next step");
		expect(run).toMatchObject({ code: 0, stdout: "next step\n" });
		expect(JSON.parse(readFileSync(file, "utf8").split("\n")[0]!)).toMatchObject({ version: 3, id: "old-session" });
		expect(
			readdirSync(cli.dir)
				.filter((name) => name.includes(".migrating-"))
				.map((name) => name.replace(/\d+$/, "<pid>"))
				.sort(),
		).toEqual(["other.jsonl.migrating-<pid>", "v2.jsonl.migrating-notes"]);
	});
});

/** The pid of a process that has exited. */
function deadPid(): number {
	const done = spawnSync(process.execPath, ["-e", ""]);
	expect(done.status).toBe(0);
	return done.pid;
}

/** A current-format session file of `entries` (each gets an id chained to the one before) under `cwd`. */
function writeSession(file: string, entries: Record<string, unknown>[], cwd = cli.project): string[] {
	const ids = entries.map((_, index) => `e${String(index).padStart(7, "0")}`);
	const lines = [JSON.stringify({ type: "session", version: 3, id: "big-line", timestamp: at(0), cwd })];
	for (const [index, entry] of entries.entries()) {
		lines.push(JSON.stringify({ ...entry, id: ids[index], parentId: index === 0 ? null : ids[index - 1] }));
	}
	writeFileSync(file, `${lines.join("\n")}\n`);
	return ids;
}

describe("claude-code#24118: resuming a session one of whose lines is a 12.8 MB tool result", () => {
	it("claude-code#24118: `settle -p --session <file>` of 19 lines, one a 12.8 MB `git diff` result, compacts the diff away (over the window), answers and appends; the big line keeps its bytes", {
		timeout: 120_000,
	}, () => {
		const diff = `diff --git a/snap b/snap\n${"+ snapshot line with some content that changed\n".repeat(272_000)}`;
		const entries: Record<string, unknown>[] = [];
		for (let k = 0; k < 8; k++) {
			entries.push({ type: "message", timestamp: at(2 * k), message: user(`step ${k}`, 2 * k) });
			entries.push({
				type: "message",
				timestamp: at(2 * k + 1),
				message: assistant([{ type: "text", text: `done ${k}` }], 2 * k + 1),
			});
		}
		entries.push({
			type: "message",
			timestamp: at(20),
			message: assistant(
				[{ type: "toolCall", id: "call-diff", name: "bash", arguments: { command: "git diff" } }],
				20,
				"toolUse",
			),
		});
		entries.push({
			type: "message",
			timestamp: at(21),
			message: {
				role: "toolResult",
				toolCallId: "call-diff",
				toolName: "bash",
				content: [{ type: "text", text: diff }],
				isError: false,
				timestamp: 21,
			},
		});
		entries.push({
			type: "message",
			timestamp: at(22),
			message: assistant([{ type: "text", text: "the snapshots changed" }], 22),
		});
		const file = join(cli.dir, "big-line.jsonl");
		writeSession(file, entries);
		const before = readFileSync(file, "utf8");
		const bigLine = before.split("\n")[18]!;
		expect(bigLine.length).toBeGreaterThan(12_800_000);

		const run = settle("-p", "--session", file, "summarize the diff");
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("summarize the diff");
		const after = readFileSync(file, "utf8");
		expect(after.startsWith(before)).toBe(true);
		// The diff alone is over the model's window: the run compacts it away before sending the prompt.
		const appended = after
			.slice(before.length)
			.split("\n")
			.filter((line) => line)
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string } });
		expect(
			appended.map((entry) => entry.message?.role ?? entry.type).filter((kind) => kind !== "thinking_level_change"),
		).toEqual(["compaction", "system", "user", "assistant"]);
		expect(transcript(file).slice(-2)).toEqual(["user: summarize the diff", "assistant: summarize the diff"]);
	});
});

describe("claude-code#23373: a 100 MB session of few messages, named late, listed by its first prompt", () => {
	it("claude-code#23373: 14 messages among 35,500 lines of extension progress (100 MB), named at the end: `settle -i -r` in a 64 MiB heap lists it by its name, and `settle -p --session <name>` continues it", {
		timeout: 120_000,
	}, () => {
		const sm = SessionManager.create(cli.project, getDefaultSessionDirPath(cli.project, cli.agentDir));
		const progress = { agent: "ticket-worker", log: "x".repeat(2_900) };
		for (let k = 0; k < 14; k++) {
			sm.appendMessage(
				k % 2 === 0
					? (user(k === 0 ? "work through the ticket queue" : `ticket ${k}`, k) as never)
					: (assistant([{ type: "text", text: `ticket ${k - 1} done` }], k) as never),
			);
			for (let line = 0; line < 35_500 / 14; line++) sm.appendCustomEntry("subagent-progress", progress);
		}
		sm.appendSessionInfo("ticket sweep");
		const file = sm.getSessionFile()!;
		const id = sm.getSessionId();
		sm.close();
		expect(readFileSync(file).length).toBeGreaterThan(100_000_000);

		const picker = runSettle(["--faux", "-i", "-r"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			input: "\n",
			env: { NODE_OPTIONS: "--max-old-space-size=64" },
		});
		expect(picker.stderr).toBe("");
		expect(picker.code).toBe(0);
		expect(picker.stdout).toMatch(
			new RegExp(`  1\\. ${id}  .* 14 msgs  ticket sweep: work through the ticket queue\n`),
		);

		const run = settle("-p", "--session", "ticket sweep", "next ticket");
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("next ticket");
		expect(transcript(file).slice(-3)).toEqual([
			"assistant: ticket 12 done",
			"user: next ticket",
			"assistant: next ticket",
		]);
	});
});

describe("opencode#5510: --continue took the session created last, not the one used last", () => {
	it("opencode#5510: session A started, then B, then A continued: `settle -c` continues A (used last, created first), and `settle -r` lists A first", async () => {
		const started = (prompt: string, ...args: string[]) => {
			const run = runSettle(["--faux", "--json", ...args, prompt], { cwd: cli.project, agentDir: cli.agentDir });
			expect(run.code).toBe(0);
			return (JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id;
		};
		const a = started("first task");
		const b = started("second task");
		expect(started("back to the first", "--session", a)).toBe(a);

		expect(started("carry on", "-c")).toBe(a);
		const [fileA] = sessionFilesUnder(cli.agentDir).filter((path) => path.endsWith(`_${a}.jsonl`));
		const [fileB] = sessionFilesUnder(cli.agentDir).filter((path) => path.endsWith(`_${b}.jsonl`));
		expect(transcript(fileA!)).toEqual([
			"user: first task",
			"assistant: first task",
			"user: back to the first",
			"assistant: back to the first",
			"user: carry on",
			"assistant: carry on",
		]);
		expect(transcript(fileB!)).toEqual(["user: second task", "assistant: second task"]);

		const picker = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await picker.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${a}  .*first task\n  2\\. ${b}  .*second task\n`),
		);
		picker.send("");
		await picker.until(">");
		expect(await picker.end()).toBe(0);
	});
});

describe("codex#28139: one session file saved with a UTF-8 byte-order mark", () => {
	it("codex#28139: a session re-saved by an editor with a BOM ahead of its header: `settle -r` lists it beside the others, and `settle -c` continues it with its history", async () => {
		const started = (prompt: string, ...args: string[]) => {
			const run = runSettle(["--faux", "--json", ...args, prompt], { cwd: cli.project, agentDir: cli.agentDir });
			expect(run.code).toBe(0);
			return (JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id;
		};
		const other = started("an older task");
		const id = started("the edited session");
		const [file] = sessionFilesUnder(cli.agentDir).filter((path) => path.endsWith(`_${id}.jsonl`));
		writeFileSync(file!, `\uFEFF${readFileSync(file!, "utf8")}`);

		const picker = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await picker.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${id}  .*the edited session\n  2\\. ${other}  .*an older task\n`),
		);
		picker.send("");
		await picker.until(">");
		expect(await picker.end()).toBe(0);

		const run = runSettle(["--faux", "-c", "-p", "carry on"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		// The mark stays where the editor put it; what follows is the session with the new turn.
		const text = readFileSync(file!, "utf8");
		expect(text.charCodeAt(0)).toBe(0xfeff);
		const copy = join(cli.dir, "without-bom.jsonl");
		writeFileSync(copy, text.slice(1));
		expect(transcript(copy)).toEqual([
			"user: the edited session",
			"assistant: the edited session",
			"user: carry on",
			"assistant: carry on",
		]);
	});
});

describe("claude-code#87392, claude-code#24435: the resume picker lists only the newest sessions; older ones are unreachable without their id", () => {
	/** `count` saved sessions of the project, one message each a minute apart: their ids, oldest first. */
	function savedSessions(count: number): string[] {
		const dir = getDefaultSessionDirPath(cli.project, cli.agentDir);
		const ids: string[] = [];
		for (let k = 0; k < count; k++) {
			const sm = SessionManager.create(cli.project, dir);
			sm.appendMessage(user(`task ${k}`, Date.UTC(2025, 0, 1) + k * 60_000) as never);
			ids.push(sm.getSessionId());
			sm.close();
		}
		return ids;
	}

	it("claude-code#87392: in a project of 45 sessions, `settle -i -r` lists 20, then 20 more and the last 5 for `more`, numbered on; `45` resumes the oldest", () => {
		const ids = savedSessions(45);
		const run = runSettle(["--faux", "-i", "-r"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			input: "more\nmore\nmore\n45\n",
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(new RegExp(` 1\\. ${ids[44]}  .*task 44\n`));
		expect(run.stdout).toContain("  … and 25 older: answer more to list the next 20\n");
		expect(run.stdout).toMatch(new RegExp(`21\\. ${ids[24]}  .*task 24\n`));
		expect(run.stdout).toContain("  … and 5 older: answer more to list the next 5\n");
		expect(run.stdout).toMatch(new RegExp(`45\\. ${ids[0]}  .*task 0\n`));
		expect(run.stdout).toContain("No older sessions: all are listed above.\n");
		expect(run.stdout).not.toContain("Error");
		expect(run.stdout).toContain(`Resumed ${ids[0]} (`);
	});

	it("claude-code#87392: in the chat, `/resume` lists 20 of the 45 sessions, `/resume more` the next 20 and the last 5; the oldest, listed, resumes by its id", () => {
		const ids = savedSessions(45);
		const run = runSettle(["--faux", "-i"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			input: `/resume\n/resume more\n/resume more\n/resume more\n/resume ${ids[0]}\n`,
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(new RegExp(`  ${ids[44]}  .*task 44\n`));
		expect(run.stdout).toContain("  … and 25 older: /resume more lists the next 20\n");
		expect(run.stdout).toMatch(new RegExp(`  ${ids[24]}  .*task 24\n`));
		expect(run.stdout).toContain("  … and 5 older: /resume more lists the next 5\n");
		expect(run.stdout).toMatch(new RegExp(`  ${ids[0]}  .*task 0\n`));
		expect(run.stdout).toContain("No older sessions: all are listed above.\n");
		expect(run.stdout).toContain(`Resumed ${ids[0]} (`);
	});

	it("`/resume more` after a `/resume all` that found nothing says there is nothing more, not the next page of the list before it", () => {
		const ids = savedSessions(25);
		const dir = getDefaultSessionDirPath(cli.project, cli.agentDir);
		const aside = join(cli.dir, "aside");
		// The project's sessions moved away and back with the chat's own shell lines, between the lists.
		const run = runSettle(["--faux", "-i"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			input: `/resume\n!!mv '${dir}' '${aside}'\n/resume all\n!!mv '${aside}' '${dir}'\n/resume more\n`,
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("  … and 5 older: /resume more lists the next 5\n");
		expect(run.stdout).toContain("No saved sessions in any project.\n");
		expect(run.stdout).toContain(
			"Nothing more to list: /resume all found no saved sessions. Give it again to list them anew.\n",
		);
		expect(run.stdout).not.toContain(ids[0]);
	});
});
