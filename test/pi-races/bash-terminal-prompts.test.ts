/**
 * Reports of commands that ask for a password on the terminal, and of shell state the model expects
 * to carry from one bash call to the next, replayed with real child processes.
 * - opencode#652 / opencode#1852: the model ran `sudo apt update`; sudo opened the terminal for the
 *   password and the app hung until the timeout.
 * - codex#6339: `rsync` to a host that fell back to password auth: ssh's `password:` prompt was
 *   never shown and the call sat until the user aborted.
 *   sudo and ssh read a password from /dev/tty, not stdin; neither is installed as a server here
 *   (no sshd, no root), so both are scripts on PATH that open /dev/tty the way the real ones do and
 *   print the real ones' message when there is no terminal. `settle -p` runs inside a
 *   pseudo-terminal (util-linux `script`), so a command sharing its terminal would block.
 * - dagster-io/erk#4251: with EDITOR=vim the model ran `${EDITOR:-code} plan.md` in Claude Code's bash
 *   tool; vim waited for a terminal and the call sat until its timeout. `crontab -e` and `kubectl edit`
 *   open `$VISUAL` / `$EDITOR` the same way: here scripts on PATH that pick the editor by the real
 *   ones' rules (crontab: VISUAL, EDITOR, vi, through sh; kubectl: KUBE_EDITOR, EDITOR, vi, split).
 *   The user's KUBE_EDITOR, FCEDIT, SUDO_EDITOR, HGEDITOR, SVN_EDITOR and JJ_EDITOR (opened first by
 *   `kubectl edit`, bash's `fc`, `sudoedit`, `hg commit`, `svn commit`, `jj describe`) likewise.
 *   An editor the user names in SETTLE_BASH_EDITOR (one needing no terminal) is kept.
 * - claude-code#79891: a `cd` in one bash call carried to the next call, or not, depending on
 *   whether the call's exit code was 0 (claude-code#37659, the carrying itself: project-folders).
 * - zai-org/feedback#521: the agent's bash kept the folder a `cd` went to; a test run then deleted
 *   that folder, and every later call failed `spawn /bin/zsh ENOENT` for the rest of the session.
 * - claude-code#45 / claude-code#35 / claude-code#3505: the harness sourced the user's shell config
 *   for every command: `set -o noclobber` in ~/.bashrc broke its redirects, `exec zsh` in ~/.bashrc
 *   and `eval $(ssh-agent)` in ~/.bash_profile made every bash call hang until the timeout.
 */

import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { cliCommand, trackChild, useCliProject } from "../cli/helpers.js";
import { diskSessionsPerTest, fileMessages } from "./disk-harness.js";

const sessions = diskSessionsPerTest();
const cli = useCliProject("settle-pi-races-prompts-");

/** A script that reads a password from /dev/tty, or fails with `noTerminal` (and `code`) when it cannot open one. */
function ttyPrompter(bin: string, name: string, prompt: string, noTerminal: string, code: number): void {
	const file = join(bin, name);
	writeFileSync(
		file,
		[
			"#!/bin/bash",
			`if ! { exec 3<>/dev/tty; } 2>/dev/null; then printf '%s\\n' '${noTerminal}' >&2; exit ${code}; fi`,
			`printf '%s' '${prompt}' >&3`,
			"IFS= read -r password <&3",
			'echo "ran as root: $*"',
		].join("\n"),
	);
	chmodSync(file, 0o755);
}

/** Runs `settle -p` with the bash tool inside a pseudo-terminal; the text of each bash result. */
async function settleInTerminal(commands: string[], path: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
	const script = join(cli.dir, "script.json");
	// The tool's timeout only bounds the run when the bug is back: the prompt would wait on the terminal.
	const toolCalls = commands.map((command) => ({ name: "bash", arguments: { command, timeout: 20 } }));
	writeFileSync(script, JSON.stringify([{ toolCalls }, "done"]));
	const out = join(cli.dir, "events.jsonl");
	const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
	const settle = [process.execPath, ...cliCommand(), "--faux-script", script, "--tools", "bash", "--no-session"];
	const line = `${[...settle, "--mode", "json", "-p", "deploy"].map(quote).join(" ")} > ${quote(out)} 2>&1`;
	const child = spawn("script", ["-qec", line, "/dev/null"], {
		cwd: cli.project,
		env: { ...process.env, ...env, PATH: path, SETTLE_AGENT_DIR: cli.agentDir, SSH_ASKPASS: "", SUDO_ASKPASS: "" },
		stdio: ["pipe", "ignore", "ignore"],
	});
	expect(await trackChild(child)).toBe(0);
	return readFileSync(out, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l) as { type: string; result?: { content: { text?: string }[] } })
		.filter((e) => e.type === "tool_execution_end")
		.map((e) => e.result?.content.map((c) => c.text ?? "").join("") ?? "");
}

describe("opencode#652, codex#6339: a password prompt on the terminal does not hang the call", () => {
	it("opencode#652, codex#6339: `sudo apt update` and `rsync` over ssh asking a password, run by the bash tool of a `settle -p` that has a terminal, fail at once with sudo's and ssh's own reasons", async () => {
		const bin = join(cli.dir, "bin");
		mkdirSync(bin, { recursive: true });
		ttyPrompter(
			bin,
			"sudo",
			"[sudo] password for dev: ",
			"sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper",
			1,
		);
		ttyPrompter(
			bin,
			"ssh",
			"root@203.0.113.7's password: ",
			"root@203.0.113.7: Permission denied (publickey,password).",
			255,
		);
		// The two calls of one turn may end in either order: each result is found by its own line.
		const results = await settleInTerminal(
			["sudo apt update; echo sudo-exit:$?", "ssh root@203.0.113.7 'rsync --server -av . /opt/app/'; echo ssh-exit:$?"],
			`${bin}:${process.env.PATH}`,
		);
		expect(results).toHaveLength(2);
		const sudo = results.find((text) => text.includes("sudo-exit:")) ?? "";
		const ssh = results.find((text) => text.includes("ssh-exit:")) ?? "";
		expect(sudo).not.toContain("timed out");
		expect(sudo).toContain("sudo: a terminal is required to read the password");
		expect(sudo).toContain("sudo-exit:1");
		expect(ssh).not.toContain("timed out");
		expect(ssh).toContain("Permission denied (publickey,password)");
		expect(ssh).toContain("ssh-exit:255");
	});
});

describe("claude-code#79891: a bash call starts in the project folder, whatever the last one did", () => {
	it("claude-code#79891: after `cd server && export … && false` and `cd server && true`, the next call runs in the project folder without the variable, whatever the exit code of the call before", async () => {
		const s = await sessions.session();
		mkdirSync(join(s.dir, "server"));
		const meta = { api: s.provider.model.api, provider: s.provider.model.provider, model: s.provider.model.id };
		const calls = [
			"cd server && export BUILD_MODE=release && false",
			"pwd; echo mode:[$BUILD_MODE]",
			"cd server && true",
			"pwd",
		];
		for (const [i, command] of calls.entries()) {
			s.provider.answer({
				...fauxAssistantMessage([fauxToolCall("bash", { command, timeout: 20 }, { id: `call-${i}` })], {
					stopReason: "toolUse",
				}),
				...meta,
			});
		}
		s.provider.answer({ ...fauxAssistantMessage("done"), ...meta });
		await s.session.prompt("build the server, then stage everything");
		const results = fileMessages(s.session.sessionFile!)
			.filter((m) => m.role === "toolResult")
			.map((m) => (m as unknown as { content: { text?: string }[] }).content.map((c) => c.text ?? "").join(""));
		expect(results).toHaveLength(4);
		expect(results[0]).toContain("Command exited with code 1");
		expect(results[1]).toBe(`${s.dir}\nmode:[]\n`);
		expect(results[3]).toBe(`${s.dir}\n`);
	});
});

describe("zai-org/feedback#521: a folder a `cd` went to, deleted later, broke every later call", () => {
	it("zai-org/feedback#521: `cd` into a test output folder, the folder deleted by the next call: the call after it and a `!` command run in the project folder", async () => {
		const s = await sessions.session();
		const meta = { api: s.provider.model.api, provider: s.provider.model.provider, model: s.provider.model.id };
		const calls = [
			"mkdir -p tests/output/trace && cd tests/output/trace && pwd",
			"rm -rf tests/output",
			"echo alive; pwd",
		];
		for (const [i, command] of calls.entries()) {
			s.provider.answer({
				...fauxAssistantMessage([fauxToolCall("bash", { command, timeout: 20 }, { id: `call-${i}` })], {
					stopReason: "toolUse",
				}),
				...meta,
			});
		}
		s.provider.answer({ ...fauxAssistantMessage("done"), ...meta });
		await s.session.prompt("run the e2e tests again");
		const results = fileMessages(s.session.sessionFile!)
			.filter((m) => m.role === "toolResult")
			.map((m) => m as unknown as { isError: boolean; content: { text?: string }[] })
			.map((m) => [m.isError, m.content.map((c) => c.text ?? "").join("")]);
		expect(results).toEqual([
			[false, `${join(s.dir, "tests/output/trace")}\n`],
			[false, "(no output)"],
			[false, `alive\n${s.dir}\n`],
		]);
		const user = await s.session.executeBash("pwd");
		expect(user).toMatchObject({ output: `${s.dir}\n`, exitCode: 0, cancelled: false });
	});
});

describe("claude-code#45, claude-code#35, claude-code#3505: the user's shell config does not run with every command", () => {
	it("claude-code#45, claude-code#35, claude-code#3505: with a ~/.bashrc that sets noclobber, defines an alias and execs another shell, and a ~/.bash_profile that starts an agent in the background, the model's call and a `!` command run at once; redirects overwrite; the alias is reported not found", async () => {
		const s = await sessions.session();
		const home = join(s.dir, "home");
		mkdirSync(home);
		// `sleep 600` stands in for the reports' `exec zsh` and `ssh-agent`: either would hold the call.
		writeFileSync(join(home, ".bashrc"), "set -o noclobber\nalias ll='ls -l'\nexec sleep 600\n");
		writeFileSync(join(home, ".bash_profile"), "sleep 600 &\n. ~/.bashrc\n");
		const savedHome = process.env.HOME;
		process.env.HOME = home;
		try {
			const meta = { api: s.provider.model.api, provider: s.provider.model.provider, model: s.provider.model.id };
			const command = "echo one > out.txt; echo two > out.txt; cat out.txt; ll";
			s.provider.answer({
				...fauxAssistantMessage([fauxToolCall("bash", { command, timeout: 20 }, { id: "call-1" })], {
					stopReason: "toolUse",
				}),
				...meta,
			});
			s.provider.answer({ ...fauxAssistantMessage("done"), ...meta });
			await s.session.prompt("write the file");
			const result = fileMessages(s.session.sessionFile!).find((m) => m.role === "toolResult") as unknown as {
				content: { text?: string }[];
			};
			const text = result.content.map((c) => c.text ?? "").join("");
			expect(text).not.toContain("timed out");
			expect(text).toContain("two\n");
			expect(text).not.toContain("cannot overwrite existing file");
			expect(text).toContain("ll: command not found");
			expect(text).toContain("Command exited with code 127");
			const user = await s.session.executeBash("echo three > out.txt && cat out.txt", undefined, { timeout: 20 });
			expect(user).toMatchObject({ output: "three\n", exitCode: 0, cancelled: false });
		} finally {
			process.env.HOME = savedHome;
		}
	});
});

/** A script that writes a temporary file and opens the editor `pick` names with `run`, as the real `name` does. */
function editorOpener(bin: string, name: string, pick: string, run: string): void {
	const file = join(bin, name);
	writeFileSync(
		file,
		[
			"#!/bin/bash",
			`editor=${pick}`,
			'tmp=$(mktemp); echo "# edit me" > "$tmp"',
			run,
			'status=$?; if [ $status -ne 0 ]; then echo "$0: \\"$editor\\" exited with status $status" >&2; exit 1; fi',
			"echo installed",
		].join("\n"),
	);
	chmodSync(file, 0o755);
}

describe("dagster-io/erk#4251: a command that opens the user's editor itself fails at once, saying how to go on", () => {
	it("dagster-io/erk#4251: the model's `$EDITOR plan.md`, `crontab -e` (VISUAL before EDITOR, run through sh) and `kubectl edit` (KUBE_EDITOR, EDITOR, split into words), run by the bash tool of a `settle -p` whose user has VISUAL=vi and EDITOR=vim, fail with the bash tool's reason instead of opening vim", async () => {
		const bin = join(cli.dir, "bin");
		mkdirSync(bin, { recursive: true });
		const tmp = join(cli.dir, "tmp");
		mkdirSync(tmp, { recursive: true });
		editorOpener(bin, "crontab", `"\${VISUAL:-\${EDITOR:-vi}}"`, 'sh -c "$editor \\"$tmp\\""');
		editorOpener(
			bin,
			"kubectl",
			`"\${KUBE_EDITOR:-\${EDITOR:-vi}}"`,
			`if [[ $editor == *[\\"\\']* ]]; then sh -c "$editor" "$tmp"; else $editor "$tmp"; fi`,
		);
		const results = await settleInTerminal(
			[
				`\${EDITOR:-code} plan.md; echo plan-exit:$?`,
				"crontab -e; echo crontab-exit:$?",
				"kubectl edit deployment/web; echo kubectl-exit:$?",
			],
			`${bin}:${process.env.PATH}`,
			{ VISUAL: "vi", EDITOR: "vim", TMPDIR: tmp },
		);
		// One folder per user, reused by every process: none left behind per process.
		expect(readdirSync(tmp).filter((name) => name.startsWith("settle-no-editor-"))).toEqual([
			`settle-no-editor-${process.getuid?.() ?? "user"}`,
		]);
		expect(results).toHaveLength(3);
		for (const tool of ["plan", "crontab", "kubectl"]) {
			const text = results.find((t) => t.includes(`${tool}-exit:`)) ?? "";
			expect(text).not.toContain("timed out");
			expect(text).not.toContain("Vim:");
			expect(text).toContain(
				"settle: no editor in the bash tool (no terminal): pass the text another way, e.g. -m, --body or a file",
			);
			expect(text).toContain(`${tool}-exit:1`);
			expect(text).not.toContain("installed");
		}
	});

	it("dagster-io/erk#4251: with the user's KUBE_EDITOR, FCEDIT, SUDO_EDITOR, HGEDITOR, SVN_EDITOR and JJ_EDITOR set to vim, `kubectl edit`, bash's own `fc`, `sudoedit`, `hg commit`, `svn commit` and `jj describe` (each opening its own variable before VISUAL and EDITOR) fail with the bash tool's reason instead of opening vim", async () => {
		const bin = join(cli.dir, "bin");
		mkdirSync(bin, { recursive: true });
		editorOpener(bin, "kubectl", `"\${KUBE_EDITOR:-\${EDITOR:-vi}}"`, '$editor "$tmp"');
		editorOpener(bin, "sudoedit", `"\${SUDO_EDITOR:-\${VISUAL:-\${EDITOR:-vi}}}"`, '$editor "$tmp"');
		editorOpener(bin, "hg", `"\${HGEDITOR:-\${VISUAL:-\${EDITOR:-vi}}}"`, 'sh -c "$editor \\"$tmp\\""');
		editorOpener(bin, "svn", `"\${SVN_EDITOR:-\${VISUAL:-\${EDITOR:-vi}}}"`, 'sh -c "$editor \\"$tmp\\""');
		editorOpener(bin, "jj", `"\${JJ_EDITOR:-\${VISUAL:-\${EDITOR:-vi}}}"`, '$editor "$tmp"');
		const results = await settleInTerminal(
			[
				"kubectl edit deployment/web; echo kubectl-exit:$?",
				// bash's history is on for fc, each command on its own line.
				"set -o history\necho fc-me\nfc; echo fc-exit:$?",
				"sudoedit /etc/hosts; echo sudoedit-exit:$?",
				"hg commit; echo hg-exit:$?",
				"svn commit; echo svn-exit:$?",
				"jj describe; echo jj-exit:$?",
			],
			`${bin}:${process.env.PATH}`,
			{ KUBE_EDITOR: "vim", FCEDIT: "vim", SUDO_EDITOR: "vim", HGEDITOR: "vim", SVN_EDITOR: "vim", JJ_EDITOR: "vim" },
		);
		expect(results).toHaveLength(6);
		for (const tool of ["kubectl", "fc", "sudoedit", "hg", "svn", "jj"]) {
			const text = results.find((t) => t.includes(`${tool}-exit:`)) ?? "";
			expect(text, tool).not.toContain("timed out");
			expect(text, tool).toContain(
				"settle: no editor in the bash tool (no terminal): pass the text another way, e.g. -m, --body or a file",
			);
			expect(text, tool).toContain(`${tool}-exit:1`);
		}
	});

	it("dagster-io/erk#4251: an editor the user names in SETTLE_BASH_EDITOR (one that needs no terminal) is what `crontab -e` and a `!` command's `$EDITOR` open, over VISUAL=vi", async () => {
		const s = await sessions.session();
		const bin = join(s.dir, "bin");
		mkdirSync(bin);
		editorOpener(bin, "crontab", `"\${VISUAL:-\${EDITOR:-vi}}"`, 'sh -c "$editor \\"$tmp\\""');
		const editor = join(bin, "append-edit");
		writeFileSync(editor, '#!/bin/sh\necho "edited by $(basename "$0")" >> "$1"\n');
		chmodSync(editor, 0o755);
		const saved = {
			PATH: process.env.PATH,
			VISUAL: process.env.VISUAL,
			SETTLE_BASH_EDITOR: process.env.SETTLE_BASH_EDITOR,
		};
		Object.assign(process.env, { PATH: `${bin}:${process.env.PATH}`, VISUAL: "vi", SETTLE_BASH_EDITOR: editor });
		try {
			const result = await s.session.executeBash("crontab -e && $EDITOR note.txt && cat note.txt", undefined, {
				timeout: 20,
			});
			expect(result).toMatchObject({ output: "installed\nedited by append-edit\n", exitCode: 0, cancelled: false });
		} finally {
			for (const [key, value] of Object.entries(saved)) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
		}
	});
});
