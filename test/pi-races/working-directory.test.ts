/**
 * Reports about the session's working directory, replayed against real `settle` processes.
 * pi#9836 (after pi#4877): the session folder is named after the whole cwd (`--<path with / as
 * ->--`); a deep path, or one in CJK (3 bytes a character in UTF-8), makes a name past the 255
 * bytes a file name can take, and pi could not start a saved session there at all (`ENAMETOOLONG`).
 * pi#6617 (oh-my-pi#11357 the same in a fork): in a git worktree kept inside its main checkout
 * (`repo/.worktrees/feature`), the walk up from the cwd found the worktree's `AGENTS.md` and then the
 * main checkout's — the same tracked file on another branch: the rules twice, the stale copy beside
 * the current one (through the public runtime and real `git`). oh-my-pi#12094: the command printed
 * for resuming a session names its cwd; a cwd with a space or an apostrophe must come out quoted, so
 * that pasted into a shell it resumes the session. oh-my-pi#11565: `--continue` from an unrelated
 * folder, while the project of a session in the same folder had been deleted, took that session
 * as a moved project: relocated it and rewrote its header's cwd. pi#2992 (pi#2102, pi#5478): an
 * extension that moves the process (`process.chdir` into a worktree) mid-session: pi's tools, footer
 * and session stay on the session's cwd (pi: "currently unsupported"); what must not happen is a
 * split where some tools follow the process and others the session.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// pi 0.73.1's own collector, for the side-by-side check (the module alone, not pi's package index).
import { loadProjectContextFiles as piLoadProjectContextFiles } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/resource-loader.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { cliCommand, runSettle, useCliProject } from "../cli/helpers.js";
import { runtimePerTest, startRuntimeWithEmptyHome, type Workspace } from "../runtime/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-cwd-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

function settleIn(cwd: string, ...args: string[]): ReturnType<typeof runSettle> {
	return runSettle(args, { cwd, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
}

/** The user texts saved in a session file, in order. */
function userTexts(file: string): string[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } })
		.filter((entry) => entry.type === "message" && entry.message?.role === "user")
		.map((entry) => {
			const content = entry.message!.content;
			return typeof content === "string" ? content : (content as { text: string }[]).map((part) => part.text).join("");
		});
}

describe("pi#9836: a session folder name past 255 bytes (a deep or CJK path) cannot be created", () => {
	it("pi#9836: settle -p in a deep CJK folder saves its session, and -c there continues it", () => {
		// The report's path: each CJK character is 3 bytes of the folder's name.
		const deep = join(
			cli.project,
			"测试",
			"哲学",
			"伦理学",
			"逻辑学",
			"语言学",
			"分析哲学",
			"科学哲学",
			"心灵哲学",
			"规范的形式化",
			"规范的形式化规范的形式化",
			"规范的形式化规范的形式化规范的形式化",
			"逻辑实在论与权利",
			"逻辑实在论与权利逻辑实在论",
		);
		mkdirSync(deep, { recursive: true });
		expect(Buffer.byteLength(`--${deep.slice(1).replaceAll("/", "-")}--`)).toBeGreaterThan(255);

		const first = settleIn(deep, "--faux", "-p", "first");
		expect(first).toEqual({ code: 0, stdout: "first\n", stderr: "" });
		const folders = readdirSync(join(cli.agentDir, "sessions"));
		expect(folders).toHaveLength(1);
		const folder = folders[0]!;
		expect(Buffer.byteLength(folder)).toBeLessThanOrEqual(255);
		// As much of the path as fits, so the folder still says which project it is.
		expect(folder.startsWith(`--${cli.project.slice(1).replaceAll("/", "-")}-测试-哲学-`)).toBe(true);

		const again = settleIn(deep, "--faux", "-c", "-p", "second");
		expect(again).toEqual({ code: 0, stdout: "second\n", stderr: "" });
		const files = readdirSync(join(cli.agentDir, "sessions", folder));
		expect(files).toHaveLength(1);
		expect(userTexts(join(cli.agentDir, "sessions", folder, files[0]!))).toEqual(["first", "second"]);
	});

	it("pi#9836: two deep folders that share the first 255 bytes of their name keep their own sessions", () => {
		const base = join(cli.project, "规范的形式化".repeat(14));
		const a = join(base, "甲");
		const b = join(base, "乙");
		mkdirSync(a, { recursive: true });
		mkdirSync(b, { recursive: true });
		expect(settleIn(a, "--faux", "-p", "in a").code).toBe(0);
		expect(settleIn(b, "--faux", "-p", "in b").code).toBe(0);
		expect(readdirSync(join(cli.agentDir, "sessions"))).toHaveLength(2);
		expect(settleIn(a, "--faux", "-c", "-p", "a again").code).toBe(0);
		const [folderA] = readdirSync(join(cli.agentDir, "sessions")).filter((name) =>
			readdirSync(join(cli.agentDir, "sessions", name)).some((file) =>
				userTexts(join(cli.agentDir, "sessions", name, file)).includes("in a"),
			),
		);
		const fileA = readdirSync(join(cli.agentDir, "sessions", folderA!));
		expect(fileA).toHaveLength(1);
		expect(userTexts(join(cli.agentDir, "sessions", folderA!, fileA[0]!))).toEqual(["in a", "a again"]);
	});
});

describe("oh-my-pi#12094: the printed resume command, with a cwd holding spaces or an apostrophe", () => {
	it("oh-my-pi#12094: pasted into a real shell, the command named for another project's session resumes it there", () => {
		const other = join(cli.dir, "it's a project $(touch pwned)");
		mkdirSync(other);
		const there = settleIn(other, "--faux", "--json", "work over there");
		expect(there.code).toBe(0);
		const id = (JSON.parse(there.stdout.split("\n")[0]!) as { id: string }).id;

		const run = settleIn(cli.project, "--faux", "-p", "--session", id.slice(0, 12), "hi");
		expect(run.code).toBe(2);
		const command = /To resume it there: (settle .+)\n/.exec(run.stderr)?.[1];
		expect(command, run.stderr).toBeDefined();
		// `settle` in the pasted line is this test's CLI; the rest is the printed text, as a shell reads it.
		const settleWords = [process.execPath, ...cliCommand()].map((word) => `'${word}'`).join(" ");
		const pasted = `${settleWords}${command!.slice("settle".length)} --faux --json again`;
		const resumed = spawnSync("sh", ["-c", pasted], {
			cwd: cli.project,
			encoding: "utf8",
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			timeout: HANG_GUARD_MS,
		});
		expect(resumed.stderr).toBe("");
		expect(resumed.status).toBe(0);
		expect(JSON.parse(resumed.stdout.split("\n")[0]!)).toMatchObject({ id, cwd: other });
		expect(readdirSync(cli.dir)).not.toContain("pwned");
	});
});

describe("oh-my-pi#11565: --continue from an unrelated folder takes a deleted project's session as moved", () => {
	it("oh-my-pi#11565: with A's folder deleted, settle -c in B (one --session-dir) starts B's own session and leaves A's file as it was", () => {
		const shared = join(cli.dir, "shared-sessions");
		const a = join(cli.dir, "project-a");
		mkdirSync(a);
		const first = settleIn(a, "--faux", "--session-dir", shared, "-p", "in a");
		expect(first.code).toBe(0);
		const [aFile] = readdirSync(shared);
		const aBytes = readFileSync(join(shared, aFile!), "utf8");
		rmSync(a, { recursive: true });

		const b = settleIn(cli.project, "--faux", "--session-dir", shared, "-c", "-p", "in b");
		expect(b.code).toBe(0);
		expect(readFileSync(join(shared, aFile!), "utf8")).toBe(aBytes);
		const bFile = readdirSync(shared).find((name) => name !== aFile);
		expect(bFile).toBeDefined();
		const header = JSON.parse(readFileSync(join(shared, bFile!), "utf8").split("\n")[0]!) as { cwd: string };
		expect(header.cwd).toBe(cli.project);
		expect(userTexts(join(shared, bFile!))).toEqual(["in b"]);
	});
});

describe("pi#2992: an extension moves the process (process.chdir) mid-session", () => {
	it("pi#2992: after process.chdir in session_start, bash, read, ls, find, grep and write all act in the session's cwd", () => {
		const elsewhere = join(cli.dir, "worktree");
		mkdirSync(elsewhere);
		writeFileSync(join(elsewhere, "note.txt"), "ELSEWHERE-NOTE\n");
		writeFileSync(join(elsewhere, "elsewhere-only.txt"), "");
		writeFileSync(join(cli.project, "note.txt"), "PROJECT-NOTE\n");
		writeFileSync(join(cli.project, "project-only.txt"), "");
		const mover = join(cli.dir, "move-process.mjs");
		writeFileSync(
			mover,
			`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", () => {
		process.chdir(${JSON.stringify(elsewhere)});
		writeFileSync(${JSON.stringify(join(cli.dir, "moved-to.txt"))}, process.cwd());
	});
}
`,
		);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ name: "bash", arguments: { command: "pwd; cat note.txt" } },
						{ name: "read", arguments: { path: "note.txt" } },
						{ name: "ls", arguments: { path: "." } },
						{ name: "find", arguments: { pattern: "*.txt" } },
						{ name: "grep", arguments: { pattern: "NOTE" } },
						{ name: "write", arguments: { path: "made.txt", content: "made\n" } },
					],
				},
				"done",
			]),
		);
		const run = settleIn(
			cli.project,
			"--faux-script",
			script,
			"--tools",
			"bash,read,ls,find,grep,write",
			"-e",
			mover,
			"--no-session",
			"--mode",
			"json",
			"-p",
			"go",
		);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(readFileSync(join(cli.dir, "moved-to.txt"), "utf8")).toBe(elsewhere);
		const ends = toolEnds(run.stdout);
		const texts = Object.fromEntries(ends.map((end) => [end.toolName, end.result.content[0]?.text ?? ""]));
		// One batch, run in parallel: the events come in the order the calls finish.
		expect(ends.map((end) => [end.toolName, end.isError]).sort()).toEqual([
			["bash", false],
			["find", false],
			["grep", false],
			["ls", false],
			["read", false],
			["write", false],
		]);
		expect(texts.bash).toBe(`${cli.project}\nPROJECT-NOTE\n`);
		expect(texts.read).toContain("PROJECT-NOTE");
		expect(texts.grep).toContain("PROJECT-NOTE");
		expect(texts.grep).not.toContain("ELSEWHERE");
		expect(readFileSync(join(cli.project, "made.txt"), "utf8")).toBe("made\n");
		expect(readdirSync(elsewhere).sort()).toEqual(["elsewhere-only.txt", "note.txt"]);
		for (const listing of [texts.ls, texts.find]) {
			expect(listing).toContain("project-only.txt");
			expect(listing).not.toContain("elsewhere-only.txt");
		}
	});
});

const perTest = runtimePerTest();

function git(cwd: string, ...args: string[]): void {
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], {
		cwd,
		stdio: "ignore",
	});
}

/** The system prompt of the first request a session in `cwd` sends. */
async function firstSystemPrompt(workspace: Workspace, cwd: string): Promise<string> {
	const faux = createFauxProvider();
	const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, workspace, cwd));
	faux.setResponses([fauxAssistantMessage("ok")]);
	await runtime.session.prompt("hi");
	return faux.requests[0]!.systemPrompt ?? "";
}

/** A repository whose tracked AGENTS.md says `RULE-MAIN`, with a worktree `.worktrees/feature` inside it; the worktree's path. */
function repoWithNestedWorktree(workspace: Workspace): { repo: string; worktree: string } {
	const repo = join(workspace.root, "repo");
	mkdirSync(repo);
	git(repo, "init", "-q");
	writeFileSync(join(repo, "AGENTS.md"), "- Run the tests first (RULE-MAIN).\n");
	git(repo, "add", "AGENTS.md");
	git(repo, "commit", "-qm", "rules");
	git(repo, "worktree", "add", "-q", ".worktrees/feature", "-b", "feature");
	return { repo, worktree: join(repo, ".worktrees", "feature") };
}

describe("pi#6617: the main checkout's AGENTS.md also loads inside a git worktree nested under it", () => {
	it("pi#6617: the worktree's AGENTS.md (changed on its branch) reaches the model; the main checkout's copy does not", async () => {
		const ws = perTest.workspace();
		const { worktree } = repoWithNestedWorktree(ws);
		writeFileSync(join(worktree, "AGENTS.md"), "- Run the tests first (RULE-FEATURE).\n");
		// pi 0.73.1 collects both copies.
		expect(piLoadProjectContextFiles({ cwd: worktree, agentDir: ws.agentDir }).map((file) => file.path)).toEqual([
			join(ws.root, "repo", "AGENTS.md"),
			join(worktree, "AGENTS.md"),
		]);
		const sent = await firstSystemPrompt(ws, join(worktree));
		expect(sent).toContain("RULE-FEATURE");
		expect(sent).not.toContain("RULE-MAIN");
	});

	it("pi#6617: a worktree without its own AGENTS.md, and a folder above the main checkout, still bring theirs", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.root, "AGENTS.md"), "- Workspace rules (RULE-ABOVE).\n");
		const { worktree } = repoWithNestedWorktree(ws);
		rmSync(join(worktree, "AGENTS.md"));
		const sent = await firstSystemPrompt(ws, worktree);
		expect(sent).toContain("RULE-MAIN");
		expect(sent).toContain("RULE-ABOVE");
	});

	it("pi#6617: a git submodule inside the checkout keeps both files (a submodule is another project)", async () => {
		const ws = perTest.workspace();
		const library = join(ws.root, "library");
		mkdirSync(library);
		git(library, "init", "-q");
		writeFileSync(join(library, "AGENTS.md"), "- Library rules (RULE-LIBRARY).\n");
		git(library, "add", "AGENTS.md");
		git(library, "commit", "-qm", "rules");
		const { repo } = repoWithNestedWorktree(ws);
		git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "vendor/library");
		const sent = await firstSystemPrompt(ws, join(repo, "vendor", "library"));
		expect(sent).toContain("RULE-LIBRARY");
		expect(sent).toContain("RULE-MAIN");
	});
});
