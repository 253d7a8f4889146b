/**
 * What a session reads before the first prompt, in trees that are big or odd, replayed against real
 * `settle` processes on the faux model (`--mode json` shows the system prompt it was sent).
 *
 * claude-code#80291: started where the reads are forbidden (a folder whose access was revoked), the
 * agent died on its first read. In Settle's scan the same kind of folder, one inside the skills
 * folder, was passed over without a word (as in pi 0.73.1): its skills were just not there. What the
 * user should see: the session starts, the other skills load, and the folder is named once, with
 * what to do. Root ignores file modes, so the runs drop the capabilities that let it (setpriv).
 *
 * opencode#30337: `.opencode/node_modules` (thousands of files) was walked at every start, a hang. In
 * Settle nothing under a `node_modules` or a git-ignored folder of the skills, prompts or extensions
 * folders may be entered: here such folders are unreadable, and entering one would be named.
 *
 * deepagents#2245, deepagents#2255: an `AGENTS.md` that is a symbolic link crashed the start
 * (ELOOP). Settle reads a link to `CLAUDE.md` once; a link that leads back to itself was reported
 * as a link to a file "which does not exist", while the file is there: it now says it is a loop.
 *
 * codex#25651: a stray, empty `.git` folder in a sub-folder was taken for the repository root, so
 * the repository's `.agents/skills` were not loaded from there (pi 0.73.1 and Settle stopped there
 * too). Git walks past it; Settle now does as git does, and still stops at a real nested repository.
 *
 * yoyo-evolve#333: started in the home folder, the agent's first scan crawled the whole of it (caches,
 * module stores) before the first prompt. Settle reads, below the cwd, only its configuration folders:
 * a 20k-file tree there is not listed (each folder's access time, set to 1970, is left as it was).
 *
 * opencode#18215: the skills listing came in another order from one run to the next, so the system
 * prompt changed and the provider's prompt cache missed every time. The same tree, even written
 * in another order, must give the same system prompt.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, cliCommand, runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-odd-trees-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

/**
 * `settle <args>` in `cwd` as a user file modes apply to: root (these tests' usual user) without
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, through util-linux's setpriv.
 */
function settleBoundByModes(args: string[], cwd = cli.project, input = "") {
	const argv = [process.execPath, ...cliCommand(), ...args];
	const drop = "-dac_override,-dac_read_search";
	const command =
		process.getuid?.() === 0 ? ["setpriv", `--inh-caps=${drop}`, `--bounding-set=${drop}`, ...argv] : argv;
	const result = spawnSync(command[0]!, command.slice(1), {
		cwd,
		input,
		encoding: "utf8",
		timeout: HANG_GUARD_MS,
		killSignal: "SIGKILL",
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeSkill(dir: string, name: string, body = `${name.toUpperCase()} BODY`): void {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}\n`);
}

function occurrences(text: string, needle: string): number {
	return text.split(needle).length - 1;
}

describe("claude-code#80291: a folder the user cannot read, in the tree read at start", () => {
	it("claude-code#80291: a skills sub-folder and a prompts sub-folder with mode 000: settle -p answers, the other skill is offered, and each folder is named once with what to do", () => {
		const skills = join(cli.agentDir, "skills");
		writeSkill(join(skills, "demo"), "demo");
		const locked = join(skills, "team");
		writeSkill(join(locked, "deploy"), "deploy");
		const prompts = join(cli.agentDir, "prompts");
		mkdirSync(prompts);
		writeFileSync(join(prompts, "review.md"), "Review this\n");
		const lockedPrompts = join(cli.project, ".settle", "prompts");
		mkdirSync(lockedPrompts, { recursive: true });
		writeFileSync(join(lockedPrompts, "ship.md"), "Ship it\n");
		chmodSync(locked, 0o000);
		chmodSync(lockedPrompts, 0o000);
		try {
			const run = settleBoundByModes(["--faux", "--no-session", "--mode", "json", "-p", "hi"]);
			expect(run.code).toBe(0);
			const [systemPrompt] = baselinePrompts(run.stdout);
			expect(systemPrompt).toContain("<name>demo</name>");
			expect(systemPrompt).not.toContain("deploy");
			expect(occurrences(run.stderr, "cannot read folder")).toBe(2);
			expect(run.stderr).toContain(`cannot read folder: EACCES: permission denied, scandir '${locked}'`);
			expect(run.stderr).toContain(`the skills in it are not loaded. Give read access to it (chmod u+rx ${locked})`);
			expect(run.stderr).toContain(
				`cannot read folder: EACCES: permission denied, scandir '${lockedPrompts}'; the prompts in it are not loaded`,
			);
		} finally {
			chmodSync(locked, 0o755);
			chmodSync(lockedPrompts, 0o755);
		}
	});

	it.each([
		["-p", ["--mode", "json", "-p", "hi"]],
		["--rpc", ["--mode", "rpc"]],
		["-i", ["-i"]],
	])(
		"claude-code#80291: %s: a folder with mode 000 in an installed package's skills and in a folder an extension's resources_discover adds: the session starts, the other skills load, and each folder is named once with what to do",
		(_mode, args) => {
			const pkg = join(cli.project, "pkg");
			writeSkill(join(pkg, "skills", "pkg-ok"), "pkg-ok");
			const pkgLocked = join(pkg, "skills", "pkg-team");
			writeSkill(join(pkgLocked, "pkg-hidden"), "pkg-hidden");
			const added = join(cli.project, "added-skills");
			writeSkill(join(added, "added-ok"), "added-ok");
			const addedLocked = join(added, "team");
			writeSkill(join(addedLocked, "added-hidden"), "added-hidden");
			mkdirSync(join(cli.agentDir, "extensions"), { recursive: true });
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ packages: [pkg] }));
			writeFileSync(
				join(cli.agentDir, "extensions", "discover.ts"),
				`export default function (pi) {\n\tpi.on("resources_discover", () => ({ skillPaths: [${JSON.stringify(added)}] }));\n}\n`,
			);
			chmodSync(pkgLocked, 0o000);
			chmodSync(addedLocked, 0o000);
			try {
				const run = settleBoundByModes(["--faux", "--no-session", ...args]);
				expect(run.code, run.stderr).toBe(0);
				const shown = run.stdout + run.stderr;
				expect(occurrences(shown, "cannot read folder")).toBe(2);
				for (const locked of [pkgLocked, addedLocked]) {
					expect(occurrences(shown, `cannot read folder: EACCES: permission denied, scandir '${locked}'`)).toBe(1);
					expect(shown).toContain(`Give read access to it (chmod u+rx ${locked})`);
				}
				if (args.includes("-p")) {
					const [systemPrompt] = baselinePrompts(run.stdout);
					expect(systemPrompt).toContain("<name>pkg-ok</name>");
					expect(systemPrompt).toContain("<name>added-ok</name>");
				}
			} finally {
				chmodSync(pkgLocked, 0o755);
				chmodSync(addedLocked, 0o755);
			}
		},
	);

	it.each([
		["--rpc", ["--mode", "rpc"], `${JSON.stringify({ id: "rl", type: "prompt", message: "/rl" })}\n`],
		["-p", ["-p", "/rl"], ""],
		["-i", ["-i"], "/rl\n"],
		["-i /reload", ["-i"], "/reload\n"],
	] as const)(
		"claude-code#80291: %s: a reload (an extension command's ctx.reload(), -i's /reload) names again, once, a locked folder of the skills folder and one in a folder an extension's resources_discover adds",
		(_mode, args, input) => {
			const skills = join(cli.agentDir, "skills");
			writeSkill(join(skills, "demo"), "demo");
			const locked = join(skills, "locked");
			writeSkill(join(locked, "hidden"), "hidden");
			const added = join(cli.project, "added-skills");
			writeSkill(join(added, "added-ok"), "added-ok");
			const addedLocked = join(added, "team");
			writeSkill(join(addedLocked, "added-hidden"), "added-hidden");
			mkdirSync(join(cli.agentDir, "extensions"), { recursive: true });
			writeFileSync(
				join(cli.agentDir, "extensions", "discover.ts"),
				`export default function (pi) {
	pi.on("resources_discover", () => ({ skillPaths: [${JSON.stringify(added)}] }));
	pi.registerCommand("rl", { handler: async (_args, ctx) => { await ctx.reload(); } });
}
`,
			);
			chmodSync(locked, 0o000);
			chmodSync(addedLocked, 0o000);
			try {
				const run = settleBoundByModes(["--faux", "--no-session", ...args], cli.project, input);
				expect(run.code, run.stderr).toBe(0);
				const shown = run.stdout + run.stderr;
				// Once at start, once after the reload.
				for (const folder of [locked, addedLocked]) {
					expect(occurrences(shown, `cannot read folder: EACCES: permission denied, scandir '${folder}'`)).toBe(2);
				}
				expect(occurrences(shown, "cannot read folder")).toBe(4);
			} finally {
				chmodSync(locked, 0o755);
				chmodSync(addedLocked, 0o755);
			}
		},
	);

	it("claude-code#80291: `--skill` folders with a mode-000 sub-folder, one of them the skills folder discovery reads too: the other skills are offered, and each locked folder is named once with what to do", () => {
		const extra = join(cli.project, "extra-skills");
		writeSkill(join(extra, "extra-ok"), "extra-ok");
		const extraLocked = join(extra, "team");
		writeSkill(join(extraLocked, "extra-hidden"), "extra-hidden");
		const skills = join(cli.agentDir, "skills");
		writeSkill(join(skills, "demo"), "demo");
		const locked = join(skills, "locked");
		writeSkill(join(locked, "deploy"), "deploy");
		chmodSync(extraLocked, 0o000);
		chmodSync(locked, 0o000);
		try {
			const run = settleBoundByModes([
				"--faux",
				"--no-session",
				"--skill",
				extra,
				"--skill",
				skills,
				"--mode",
				"json",
				"-p",
				"hi",
			]);
			expect(run.code, run.stderr).toBe(0);
			const [systemPrompt] = baselinePrompts(run.stdout);
			expect(systemPrompt).toContain("<name>extra-ok</name>");
			expect(systemPrompt).toContain("<name>demo</name>");
			expect(occurrences(run.stderr, "cannot read folder")).toBe(2);
			for (const folder of [extraLocked, locked]) {
				expect(occurrences(run.stderr, `cannot read folder: EACCES: permission denied, scandir '${folder}'`)).toBe(1);
				expect(run.stderr).toContain(`Give read access to it (chmod u+rx ${folder})`);
			}
		} finally {
			chmodSync(extraLocked, 0o755);
			chmodSync(locked, 0o755);
		}
	});

	it.each([
		["-p", ["--mode", "json", "-p", "hi"]],
		["--rpc", ["--mode", "rpc"]],
		["-i", ["-i"]],
	])(
		"claude-code#80291: %s: `--prompt-template` folders with mode 000, one of them the prompts folder discovery reads too: the session starts, and each locked folder is named once with what to do",
		(_mode, args) => {
			const extra = join(cli.project, "extra-prompts");
			mkdirSync(extra, { recursive: true });
			writeFileSync(join(extra, "hidden.md"), "Hidden\n");
			const prompts = join(cli.project, ".settle", "prompts");
			mkdirSync(prompts, { recursive: true });
			writeFileSync(join(prompts, "ship.md"), "Ship it\n");
			chmodSync(extra, 0o000);
			chmodSync(prompts, 0o000);
			try {
				const run = settleBoundByModes([
					"--faux",
					"--no-session",
					"--prompt-template",
					extra,
					"--prompt-template",
					prompts,
					...args,
				]);
				expect(run.code, run.stderr).toBe(0);
				const shown = run.stdout + run.stderr;
				expect(occurrences(shown, "cannot read folder")).toBe(2);
				for (const folder of [extra, prompts]) {
					expect(occurrences(shown, `cannot read folder: EACCES: permission denied, scandir '${folder}'`)).toBe(1);
					expect(shown).toContain(`Give read access to it (chmod u+rx ${folder})`);
				}
				expect(shown).toContain(`scandir '${extra}'; the prompts in it are not loaded`);
			} finally {
				chmodSync(extra, 0o755);
				chmodSync(prompts, 0o755);
			}
		},
	);

	it("claude-code#80291: started in a folder that can be entered but not listed (mode 111): the session answers and its AGENTS.md reaches the model", () => {
		writeFileSync(join(cli.project, "AGENTS.md"), "RULES-80291: be brief\n");
		chmodSync(cli.project, 0o111);
		try {
			const run = settleBoundByModes(["--faux", "--no-session", "--mode", "json", "-p", "hi"]);
			expect(run).toMatchObject({ code: 0, stderr: "" });
			expect(baselinePrompts(run.stdout)[0]).toContain("RULES-80291: be brief");
		} finally {
			chmodSync(cli.project, 0o755);
		}
	});
});

describe("opencode#30337: node_modules inside the folders scanned at start", () => {
	it("opencode#30337: node_modules (2,000 files, a package with a SKILL.md, an unreadable folder) and a git-ignored folder in the skills, prompts and extensions folders are not entered: nothing of them loads or warns", () => {
		const settleDir = join(cli.project, ".settle");
		const skills = join(settleDir, "skills");
		writeSkill(join(skills, "demo"), "demo");
		const locked: string[] = [];
		for (const kind of ["skills", "prompts", "extensions"]) {
			const modules = join(settleDir, kind, "node_modules");
			writeSkill(join(modules, "some-pkg"), "from-node-modules");
			writeFileSync(join(modules, "some-pkg", "index.ts"), "throw new Error('NODE_MODULES IMPORTED');\n");
			writeFileSync(join(modules, "from-node-modules.md"), "PROMPT FROM NODE_MODULES\n");
			mkdirSync(join(modules, "locked"));
			locked.push(join(modules, "locked"));
			mkdirSync(join(settleDir, kind, "vendor", "locked"), { recursive: true });
			locked.push(join(settleDir, kind, "vendor", "locked"));
			writeFileSync(join(settleDir, kind, ".gitignore"), "vendor/\n");
		}
		const bulk = join(skills, "node_modules", "bulk");
		mkdirSync(bulk);
		for (let i = 0; i < 2000; i++) writeFileSync(join(bulk, `f${i}.md`), "---\nname: x\n---\n");
		writeSkill(join(cli.project, ".agents", "skills", "node_modules", "agents-pkg"), "agents-pkg");
		mkdirSync(join(cli.project, ".agents", "skills", "node_modules", "locked"));
		locked.push(join(cli.project, ".agents", "skills", "node_modules", "locked"));
		for (const dir of locked) chmodSync(dir, 0o000);
		try {
			const run = settleBoundByModes([
				"--faux",
				"--no-session",
				"--mode",
				"json",
				"--approve",
				"-p",
				"/from-node-modules",
			]);
			expect(run).toMatchObject({ code: 0, stderr: "" });
			const [systemPrompt] = baselinePrompts(run.stdout);
			expect(systemPrompt).toContain("<name>demo</name>");
			expect(systemPrompt).not.toContain("node-modules");
			expect(systemPrompt).not.toContain("agents-pkg");
			expect(run.stdout).not.toContain("PROMPT FROM NODE_MODULES");
		} finally {
			for (const dir of locked) chmodSync(dir, 0o755);
		}
	});
});

describe("deepagents#2245, deepagents#2255: AGENTS.md as a symbolic link", () => {
	it("deepagents#2245: AGENTS.md linked to CLAUDE.md beside it: the rules reach the model once, nothing warns", () => {
		writeFileSync(join(cli.project, "CLAUDE.md"), "RULES-2245: run the linter\n");
		symlinkSync("CLAUDE.md", join(cli.project, "AGENTS.md"));
		const run = cli.settle(["--faux", "--no-session", "--mode", "json", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(occurrences(baselinePrompts(run.stdout)[0]!, "RULES-2245")).toBe(1);
	});

	it("deepagents#2255: AGENTS.md linked to itself beside CLAUDE.md: CLAUDE.md is sent, and stderr says once that AGENTS.md is a link loop, not a missing file", () => {
		writeFileSync(join(cli.project, "CLAUDE.md"), "RULES-2255: keep it small\n");
		symlinkSync("AGENTS.md", join(cli.project, "AGENTS.md"));
		const run = runSettle(["--faux", "--no-session", "--mode", "json", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(0);
		expect(baselinePrompts(run.stdout)[0]).toContain("RULES-2255: keep it small");
		expect(run.stderr).toContain(
			'context file AGENTS.md is a symbolic link to "AGENTS.md", which leads back to itself (a symbolic link loop): fix the link',
		);
		expect(run.stderr).not.toContain("does not exist");
		expect(occurrences(run.stderr, join(cli.project, "AGENTS.md"))).toBe(1);
	});
});

describe("opencode#18215: the skills listing in another order from run to run", () => {
	it("opencode#18215: the same skills, prompts and context files written twice in opposite orders: two settle -p runs are sent byte-identical system prompts", () => {
		const names = ["zeta", "alpha", "mu", "beta", "omega", "kappa", "delta", "sigma"];
		const build = (order: string[]) => {
			for (const dir of [join(cli.agentDir, "skills"), join(cli.project, ".settle"), join(cli.project, ".agents")])
				rmSync(dir, { recursive: true, force: true });
			for (const name of order) {
				writeSkill(join(cli.agentDir, "skills", name), name);
				writeSkill(join(cli.project, ".settle", "skills", "group", `p-${name}`), `p-${name}`);
				writeSkill(join(cli.project, ".agents", "skills", `a-${name}`), `a-${name}`);
			}
		};
		const systemPrompt = () => {
			const run = cli.settle(["--faux", "--no-session", "--mode", "json", "-p", "hi"]);
			expect(run).toMatchObject({ code: 0, stderr: "" });
			return baselinePrompts(run.stdout)[0]!;
		};
		build(names);
		const first = systemPrompt();
		build([...names].reverse());
		const second = systemPrompt();
		// In name order, not the file system's (hash order on ext4, creation order on tmpfs): the same on every machine.
		const listed = [...first.matchAll(/<name>([a-z-]+)<\/name>/g)].map((match) => match[1]!);
		const sorted = [...names].sort();
		// The project's folders first, then the agent folder's (pi's precedence).
		expect(listed).toEqual([...sorted.map((name) => `p-${name}`), ...sorted.map((name) => `a-${name}`), ...sorted]);
		expect(second).toBe(first);
		expect(systemPrompt()).toBe(first);
	});
});

describe("codex#25651: a stray empty .git folder below the repository root", () => {
	function git(cwd: string, ...args: string[]): string {
		const run = spawnSync("git", args, { cwd, encoding: "utf8" });
		expect(run.status, run.stderr).toBe(0);
		return run.stdout.trim();
	}

	it("codex#25651: settle -p in repo/sub with an empty repo/sub/.git offers repo/.agents/skills, as git names repo the root; a real repository in sub stops the walk there", () => {
		const repo = join(cli.project, "repo");
		const sub = join(repo, "sub");
		mkdirSync(join(sub, ".git"), { recursive: true });
		git(repo, "init", "-q");
		writeSkill(join(repo, ".agents", "skills", "team-rules"), "team-rules");
		writeSkill(join(cli.project, ".agents", "skills", "outside-repo"), "outside-repo");
		expect(git(sub, "rev-parse", "--show-toplevel")).toBe(repo);
		const systemPrompt = () => {
			const run = runSettle(["--faux", "--no-session", "--mode", "json", "-p", "hi"], {
				cwd: sub,
				agentDir: cli.agentDir,
				timeoutMs: HANG_GUARD_MS,
			});
			expect(run).toMatchObject({ code: 0, stderr: "" });
			return baselinePrompts(run.stdout)[0]!;
		};

		const stray = systemPrompt();
		expect(stray).toContain("<name>team-rules</name>");
		expect(stray).not.toContain("outside-repo");

		rmSync(join(sub, ".git"), { recursive: true });
		git(sub, "init", "-q");
		expect(git(sub, "rev-parse", "--show-toplevel")).toBe(sub);
		const nested = systemPrompt();
		expect(nested).not.toContain("team-rules");
		expect(nested).not.toContain("outside-repo");
	});

	it("codex#25651: a repository whose .git folder the user cannot read (mode 000) is still the root: settle -p there offers its .agents/skills and none from above it", () => {
		const repo = join(cli.project, "repo");
		mkdirSync(repo);
		git(repo, "init", "-q");
		writeSkill(join(repo, ".agents", "skills", "team-rules"), "team-rules");
		writeSkill(join(cli.project, ".agents", "skills", "outside-repo"), "outside-repo");
		chmodSync(join(repo, ".git"), 0o000);
		try {
			const run = settleBoundByModes(["--faux", "--no-session", "--mode", "json", "-p", "hi"], repo);
			expect(run).toMatchObject({ code: 0, stderr: "" });
			const prompt = baselinePrompts(run.stdout)[0]!;
			expect(prompt).toContain("<name>team-rules</name>");
			expect(prompt).not.toContain("outside-repo");
		} finally {
			chmodSync(join(repo, ".git"), 0o755);
		}
	});
});

describe("yoyo-evolve#333: started in the home folder, the whole tree crawled before the first prompt", () => {
	/** Sets `dir`'s access time to 1970: a listing of it moves it (relatime), a stat does not. */
	function markUnlisted(dir: string): void {
		utimesSync(dir, 0, statSync(dir).mtime);
	}

	it("yoyo-evolve#333: settle -p in a home folder holding 20,000 files (code, caches, node_modules) lists none of its folders; AGENTS.md there reaches the model", (context) => {
		const home = cli.project;
		writeFileSync(join(home, "AGENTS.md"), "RULES-333: answer briefly\n");
		const folders: string[] = [];
		for (const top of ["src", ".cache", "go/pkg/mod", "node_modules"]) {
			for (let i = 0; i < 50; i++) {
				const dir = join(home, top, `d${i}`);
				mkdirSync(dir, { recursive: true });
				for (let j = 0; j < 100; j++) writeFileSync(join(dir, `f${j}.txt`), "x\n");
				folders.push(dir);
			}
			folders.push(join(home, top));
		}
		const probe = join(cli.dir, "probe");
		mkdirSync(probe);
		markUnlisted(probe);
		readdirSync(probe);
		// A file system mounted noatime records no listing: nothing to observe here.
		if (statSync(probe).atimeMs === 0) context.skip();
		for (const dir of folders) markUnlisted(dir);

		const run = runSettle(["--faux", "--no-session", "--mode", "json", "-p", "hi"], {
			cwd: home,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(baselinePrompts(run.stdout)[0]).toContain("RULES-333: answer briefly");
		expect(folders.filter((dir) => statSync(dir).atimeMs !== 0)).toEqual([]);
	});
});
