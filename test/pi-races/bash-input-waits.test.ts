/**
 * Reports of commands that wait for input or a terminal, replayed with real git repositories and
 * real child processes through the model's bash tool and the user's `!` commands (executeBash).
 * A command has no terminal here: stdin is /dev/null and it runs in its own session.
 * - pi#9936: `git rebase --continue` runs `git commit -e`, which opened vi; vi waited for keys
 *   that never come and the session hung silently (77 minutes in the report).
 * - pi#6432: pi hung on an interactive rebase; here `git rebase -i` with a `sequence.editor` in git
 *   config, which git opens for the todo list before GIT_EDITOR.
 * - oh-my-pi#4021: git asking for HTTPS credentials opened /dev/tty and waited there forever; here
 *   replayed with `settle -p` started inside a pseudo-terminal (util-linux `script`), so a command
 *   that shared its controlling terminal would block on the prompt.
 * - ANOLISA#1988: a long `git log` went into the pager (`less`) and waited for `q`.
 * - claude-code#58938: a command with its own `<` / `<<` redirect made the tool drop its
 *   `< /dev/null`, so a later `y/N` prompt in the same command read the harness's open stdin forever.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { cliCommand, trackChild, useCliProject } from "../cli/helpers.js";
import { type DiskSession, diskSessionsPerTest, fileMessages, type ManualProvider } from "./disk-harness.js";

const sessions = diskSessionsPerTest();
const cli = useCliProject("settle-pi-races-input-");

// A result whose text left out git's `\r\x1b[K` names the full-output file of the raw bytes, in the
// OS temp folder; it stays for the model to read (pi#7521), so the test removes the ones named.
afterEach(() => {
	for (const { session } of sessions.open) {
		if (!session.sessionFile || !existsSync(session.sessionFile)) continue;
		for (const message of fileMessages(session.sessionFile)) {
			const details = message.details as { fullOutputPath?: string } | undefined;
			const path = details?.fullOutputPath ?? (message.fullOutputPath as string | undefined);
			if (path) rmSync(path, { force: true });
		}
	}
});

// The report's setup: no GIT_EDITOR, an editor that needs a terminal (vi, git's default).
const savedEditor = process.env.GIT_EDITOR;
beforeAll(() => {
	delete process.env.GIT_EDITOR;
});
afterAll(() => {
	if (savedEditor !== undefined) process.env.GIT_EDITOR = savedEditor;
});

function git(dir: string, ...args: string[]): string {
	return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_EDITOR: "true" } });
}

/** A git repository in the session's directory whose editor is vi and whose pager is less. */
function gitRepo(dir: string, commits = 1): void {
	git(dir, "init", "-q");
	git(dir, "config", "user.email", "dev@example.com");
	git(dir, "config", "user.name", "dev");
	git(dir, "config", "core.editor", "vi");
	git(dir, "config", "core.pager", "less");
	for (let i = 0; i < commits; i++) {
		writeFileSync(join(dir, "file.txt"), `version ${i}\n`);
		git(dir, "add", "file.txt");
		git(dir, "commit", "-q", "-m", `commit ${i}`);
	}
	writeFileSync(join(dir, "file.txt"), "resolved\n");
	git(dir, "add", "file.txt");
}

/** The model's reply: run `command` with the bash tool (bounded by `timeout` seconds), then "done". */
function runsBash(provider: ManualProvider, command: string, timeout: number): void {
	const meta = { api: provider.model.api, provider: provider.model.provider, model: provider.model.id };
	provider.answer({
		...fauxAssistantMessage([fauxToolCall("bash", { command, timeout }, { id: "call-1" })], { stopReason: "toolUse" }),
		...meta,
	});
	provider.answer({ ...fauxAssistantMessage("done"), ...meta });
}

/** The text of the tool result recorded in the session file. */
function toolResultText(s: DiskSession): string {
	const result = fileMessages(s.session.sessionFile!).find((m) => m.role === "toolResult") as
		| { content: { type: string; text?: string }[]; isError: boolean }
		| undefined;
	return result?.content.map((c) => c.text ?? "").join("") ?? "";
}

describe("pi#9936: git opening an editor does not hang a command that has no terminal", () => {
	it("pi#9936: the bash tool's `git commit -e -F <message>` (what `git rebase --continue` runs) commits the prepared message instead of waiting in vi", async () => {
		const s = await sessions.session();
		gitRepo(s.dir);
		writeFileSync(join(s.dir, "message.txt"), "resolve the conflict\n");
		// The timeout only bounds the test when the bug is back: vi would sit until it fires.
		runsBash(s.provider, "git commit -e -F message.txt && echo committed", 20);
		await s.session.prompt("finish the rebase");
		const text = toolResultText(s);
		expect(text).not.toContain("timed out");
		expect(text).toContain("committed");
		expect(git(s.dir, "log", "-1", "--format=%s").trim()).toBe("resolve the conflict");
	});

	it("pi#9936: a user `!git commit` with no message stops at once with git's own reason, not after the timeout", async () => {
		const s = await sessions.session();
		gitRepo(s.dir);
		const result = await s.session.executeBash("git commit", undefined, { timeout: 20 });
		expect(result.cancelled).toBe(false);
		expect(result.exitCode).toBe(1);
		expect(result.output).toContain("Aborting commit due to empty commit message");
		expect(git(s.dir, "log", "-1", "--format=%s").trim()).toBe("commit 0");
	});

	it("pi#6432: `git rebase -i HEAD~2` with a `sequence.editor` in git config (it outranks GIT_EDITOR for the todo list) rebases as prepared instead of waiting in vi", async () => {
		const s = await sessions.session();
		gitRepo(s.dir, 3);
		git(s.dir, "commit", "-q", "-m", "resolved");
		git(s.dir, "config", "sequence.editor", "vi");
		// The timeout only bounds the test when the bug is back: vi would sit until it fires.
		runsBash(s.provider, "git rebase -i HEAD~2 && echo rebased", 20);
		await s.session.prompt("clean up the history");
		const text = toolResultText(s);
		expect(text).not.toContain("timed out");
		expect(text).toContain("rebased");
		expect(git(s.dir, "log", "--format=%s").trim().split("\n")).toEqual([
			"resolved",
			"commit 2",
			"commit 1",
			"commit 0",
		]);
	});

	it("pi#9936: a GIT_EDITOR the environment sets is kept (the user chose it)", async () => {
		const s = await sessions.session();
		gitRepo(s.dir);
		process.env.GIT_EDITOR = "sed -i 1s/^/edited:/";
		try {
			const result = await s.session.executeBash("git commit -q -e -m msg && git log -1 --format=%s");
			expect(result.exitCode).toBe(0);
			expect(result.output.trim()).toBe("edited:msg");
		} finally {
			delete process.env.GIT_EDITOR;
		}
	});
});

describe("ANOLISA#1988: git's pager does not wait for `q`", () => {
	it("ANOLISA#1988: a `git log` longer than a screen, with core.pager=less, prints everything and ends", async () => {
		const s = await sessions.session();
		gitRepo(s.dir, 80);
		// git's own stdout is the tool's pipe, as in the report (no `| cat`, no --no-pager).
		runsBash(s.provider, "git log --oneline", 60);
		await s.session.prompt("summarize the commits");
		const text = toolResultText(s);
		expect(text).not.toContain("timed out");
		const lines = text.trim().split("\n");
		expect(lines).toHaveLength(80);
		expect(lines[79]).toMatch(/^[0-9a-f]+ commit 0$/);
	});
});

describe("claude-code#58938: a command's own stdin redirect does not give later commands a live stdin", () => {
	it("claude-code#58938: `cat < file` and a heredoc, then a `y/N` prompt in the same command: the prompt reads end-of-file at once", async () => {
		const s = await sessions.session();
		writeFileSync(join(s.dir, "notes.txt"), "from the file\n");
		const command = [
			"cat < notes.txt",
			"cat <<'EOF'\nfrom the heredoc\nEOF",
			'read -r -p "Proceed? [y/N] " answer; echo "prompt-ended:$? answer:[$answer]"',
		].join("\n");
		runsBash(s.provider, command, 20);
		await s.session.prompt("clean up");
		const text = toolResultText(s);
		expect(text).not.toContain("timed out");
		expect(text).toContain("from the file\nfrom the heredoc\n");
		expect(text).toContain("prompt-ended:1 answer:[]");
	});
});

describe("oh-my-pi#4021: a credential prompt does not wait on the user's terminal", () => {
	it("oh-my-pi#4021: `git ls-remote` of an HTTPS remote answering 401, run by the bash tool of a `settle -p` that has a terminal, fails at once saying it could not read a username", async () => {
		const server = createServer((_req, res) => {
			res.writeHead(401, { "WWW-Authenticate": 'Basic realm="private"' }).end();
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		try {
			const remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}/private.git`;
			const script = join(cli.dir, "script.json");
			// The tool's timeout only bounds the run when the bug is back: git would sit on the prompt.
			const command = `git ls-remote ${remote}; echo exit:$?`;
			writeFileSync(
				script,
				JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command, timeout: 20 } }] }, "done"]),
			);
			const out = join(cli.dir, "events.jsonl");
			const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
			const settle = [process.execPath, ...cliCommand(), "--faux-script", script, "--tools", "bash", "--no-session"];
			const line = `${[...settle, "--mode", "json", "-p", "push"].map(quote).join(" ")} > ${quote(out)} 2>&1`;
			// `script` gives settle a pseudo-terminal as its controlling terminal; its stdin (our pipe)
			// stays open, so a read from that terminal would block instead of getting end-of-file.
			const child = spawn("script", ["-qec", line, "/dev/null"], {
				cwd: cli.project,
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir, GIT_ASKPASS: "", SSH_ASKPASS: "" },
				stdio: ["pipe", "ignore", "ignore"],
			});
			expect(await trackChild(child)).toBe(0);
			const end = readFileSync(out, "utf8")
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l) as { type: string; result?: { content: { text?: string }[] } })
				.find((e) => e.type === "tool_execution_end");
			const text = end?.result?.content[0]?.text ?? "";
			expect(text).not.toContain("timed out");
			expect(text).toContain("could not read Username");
			expect(text).toContain("exit:128");
		} finally {
			server.close();
		}
	});
});
