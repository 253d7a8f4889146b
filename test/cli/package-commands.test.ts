/**
 * `settle install|remove|list|update` as a pi user runs them (real `settle` child processes): local
 * paths, npm packages installed with the real `npm` from a tarball `npm pack` made (offline), git
 * packages cloned with the real `git` from a local bare repository (git's `url.<base>.insteadOf`
 * maps the host-based URL pi's source rules require onto it), and a package written for pi picked
 * up by a `settle -p` run on the faux model.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DefaultPackageManager, SettingsManager as PiSettingsManager } from "@mariozechner/pi-coding-agent";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cliCommand, runSettle } from "./helpers.js";
import {
	makeGitPackageRepo,
	makePackageFolders,
	type PackageFolders,
	settingsOf,
	write,
	writePiPackage,
} from "./package-fixtures.js";

let dir: string;
let agentDir: string;
let project: string;
let env: Record<string, string>;

beforeEach(() => {
	({ dir, agentDir, project, env } = makePackageFolders());
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function settle(args: string[], extraEnv: Record<string, string> = {}) {
	return runSettle(args, { cwd: project, agentDir, env: { ...env, ...extraEnv } });
}

describe("settle install / list / remove with a local path", () => {
	it("a package written for pi, installed by path, is picked up by settle -p: its extension runs, its skill and template expand", () => {
		writePiPackage(join(project, "vendor", "tools"), "tools");
		const install = settle(["install", "./vendor/tools"]);
		expect(install).toMatchObject({ code: 0, stdout: "Installing ./vendor/tools...\nInstalled ./vendor/tools\n" });
		// Given relative to the cwd, written relative to the settings file's folder, as pi writes it.
		expect(settingsOf(join(agentDir, "settings.json")).packages).toEqual(["../project/vendor/tools"]);

		const run = settle(["--faux", "--no-session", "-p", "/tools-review src/a.ts"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("Review src/a.ts with tools one.\n");
		expect(run.stderr).toContain("tools extension one ran");
		const skill = settle(["--faux", "--no-session", "-p", "/skill:tools-skill go"]);
		expect(skill.stdout).toContain("Skill body of tools one.");

		expect(settle(["list"]).stdout).toBe(
			`User packages:\n  ../project/vendor/tools\n    ${join(project, "vendor", "tools")}\n`,
		);
		// The same package again is not listed twice.
		expect(settle(["install", join(project, "vendor", "tools")]).code).toBe(0);
		expect(settingsOf(join(agentDir, "settings.json")).packages).toEqual(["../project/vendor/tools"]);

		expect(settle(["uninstall", "vendor/tools"])).toMatchObject({ code: 0 });
		expect(settingsOf(join(agentDir, "settings.json")).packages).toEqual([]);
		expect(settle(["list"]).stdout).toBe("No packages installed.\n");
		expect(settle(["--faux", "--no-session", "-p", "/tools-review x"]).stdout).toBe("/tools-review x\n");
	}, 60_000); // eight settle processes one after another

	it("settle --help names the package commands; settle install --help prints its usage", () => {
		expect(settle(["--help"]).stdout).toContain("settle install <source> [-l]          install a pi package");
		expect(settle(["install", "--help"])).toMatchObject({
			code: 0,
			stdout: "Usage: settle install <source> [-l|--local] [--cwd <dir>] [--agent-dir <dir>]\n",
		});
	});

	it("bad input is refused with what to do, and the settings file keeps what it held", () => {
		write(join(agentDir, "settings.json"), JSON.stringify({ packages: ["npm:kept"], theme: "dark" }));
		const before = readFileSync(join(agentDir, "settings.json"), "utf8");
		expect(settle(["install"])).toMatchObject({
			code: 2,
			stderr:
				"Error: Missing install source.\nUsage: settle install <source> [-l|--local] [--cwd <dir>] [--agent-dir <dir>]\n",
		});
		expect(settle(["list", "-l"])).toMatchObject({
			code: 2,
			stderr: 'Error: Unknown option -l for "list".\nUsage: settle list [--cwd <dir>] [--agent-dir <dir>]\n',
		});
		const missing = settle(["install", "./nowhere"]);
		expect(missing.code).toBe(1);
		expect(missing.stderr).toBe(
			`Error: Path does not exist: ${join(project, "nowhere")}. Give the folder (or extension file) of the package.\n`,
		);
		const unknown = settle(["remove", "npm:other"]);
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain(
			`Error: No matching package found for npm:other in ${join(agentDir, "settings.json")}.`,
		);
		expect(readFileSync(join(agentDir, "settings.json"), "utf8")).toBe(before);
	});
});

describe("differential: pi 0.73.1's installAndPersist / removeAndPersist write the same settings entries", () => {
	it("local paths given relative to the cwd, absolute, with -l, twice, then removed by another spelling", async () => {
		writePiPackage(join(project, "vendor", "tools"), "tools");
		writePiPackage(join(dir, "shared", "kit"), "kit");
		const steps: { op: "install" | "remove"; source: string; local: boolean }[] = [
			{ op: "install", source: "./vendor/tools", local: false },
			{ op: "install", source: join(dir, "shared", "kit"), local: true },
			{ op: "install", source: "vendor/tools", local: false },
			{ op: "install", source: "../shared/kit", local: false },
			{ op: "remove", source: join(project, "vendor", "tools"), local: false },
		];
		for (const step of steps) expect(settle([step.op, step.source, ...(step.local ? ["-l"] : [])]).code).toBe(0);
		const ours = [settingsOf(join(agentDir, "settings.json")), settingsOf(join(project, ".pi", "settings.json"))];

		const piAgentDir = join(dir, "pi-agent");
		rmSync(join(project, ".pi", "settings.json"));
		const settingsManager = PiSettingsManager.create(project, piAgentDir);
		const pi = new DefaultPackageManager({ cwd: project, agentDir: piAgentDir, settingsManager });
		for (const step of steps) {
			if (step.op === "install") await pi.installAndPersist(step.source, { local: step.local });
			else await pi.removeAndPersist(step.source, { local: step.local });
		}
		await settingsManager.flush();
		const theirs = [settingsOf(join(piAgentDir, "settings.json")), settingsOf(join(project, ".pi", "settings.json"))];
		// Each agent folder is its own, so global entries are relative to a folder at the same depth.
		expect(ours.map((file) => file.packages)).toEqual(theirs.map((file) => file.packages));
		expect(ours[0]!.packages).toEqual(["../shared/kit"]);
	});
});

describe("settle install with npm (the real npm, offline, from a tarball)", () => {
	/**
	 * The tools package (1.0.0, marker "one") as `npm pack` makes it, and that tarball installed by
	 * `npm install -g --prefix <folder>/elsewhere`: made once for these tests, which only read them
	 * (each installs from the tarball into its own folders, or loads from the prefix).
	 */
	const packed = { folders: undefined as PackageFolders | undefined, tarball: "", prefix: "" };
	beforeAll(() => {
		const folders = makePackageFolders("settle-packages-tarball-");
		packed.folders = folders;
		const source = join(folders.dir, "src-1.0.0");
		writePiPackage(source, "tools", "1.0.0", "one");
		const npmEnv = { ...process.env, ...folders.env };
		execFileSync("npm", ["pack", "--pack-destination", folders.dir], { cwd: source, env: npmEnv, stdio: "ignore" });
		packed.tarball = join(folders.dir, "tools-1.0.0.tgz");
		packed.prefix = join(folders.dir, "elsewhere");
		execFileSync("npm", ["install", "-g", "--prefix", packed.prefix, packed.tarball], { env: npmEnv, stdio: "ignore" });
	}, 60_000); // npm pack, npm install -g
	afterAll(() => {
		if (packed.folders) rmSync(packed.folders.dir, { recursive: true, force: true });
	});

	it("-l installs into the project's .pi/npm, records it in .pi/settings.json, loads it in a trusted run; remove -l uninstalls it", () => {
		const source = `npm:tools@file:${packed.tarball}`;
		const install = settle(["install", source, "-l"]);
		expect(install.code).toBe(0);
		expect(readFileSync(join(project, ".pi", "npm", "node_modules", "tools", "package.json"), "utf8")).toContain(
			'"1.0.0"',
		);
		expect(settingsOf(join(project, ".pi", "settings.json")).packages).toEqual([source]);
		expect(readFileSync(join(project, ".pi", "npm", ".gitignore"), "utf8")).toBe("*\n!.gitignore\n");

		expect(settle(["--faux", "--no-session", "--approve", "-p", "/tools-review x"]).stdout).toBe(
			"Review x with tools one.\n",
		);
		expect(settle(["list"]).stdout).toBe(
			`Project packages:\n  ${source}\n    ${join(project, ".pi", "npm", "node_modules", "tools")}\n`,
		);

		expect(settle(["remove", "npm:tools", "-l"]).code).toBe(0);
		expect(existsSync(join(project, ".pi", "npm", "node_modules", "tools"))).toBe(false);
		expect(settingsOf(join(project, ".pi", "settings.json")).packages).toEqual([]);
	}, 60_000); // npm install and uninstall, four settle processes

	it("without -l installs with npm install -g, where pi finds its global packages, and loads it", () => {
		const source = `npm:tools@file:${packed.tarball}`;
		expect(settle(["install", source]).code).toBe(0);
		const globalRoot = execFileSync("npm", ["root", "-g"], {
			env: { ...process.env, ...env },
			encoding: "utf8",
		}).trim();
		expect(existsSync(join(globalRoot, "tools", "prompts", "tools-review.md"))).toBe(true);
		expect(settingsOf(join(agentDir, "settings.json")).packages).toEqual([source]);
		expect(settle(["--faux", "--no-session", "-p", "/tools-review y"]).stdout).toBe("Review y with tools one.\n");
	}, 60_000); // npm install -g, two settle processes

	/**
	 * The global package installed by `npm install -g --prefix <folder>` (made once, above), then a
	 * `settle -p` run with an `npm` first on the PATH that notes each time it runs (then runs the real
	 * one), and without the npm_config_* variables `npm test` or `npx` put in the environment.
	 */
	function prefixedInstall(): { prefix: string; runs: string; runEnv: Record<string, string | undefined> } {
		const prefix = packed.prefix;
		const bin = join(dir, "bin");
		const runs = join(dir, "npm-runs");
		const realNpm = execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim();
		write(join(bin, "npm"), `#!/bin/sh\necho "$*" >> "${runs}"\nexec "${realNpm}" "$@"\n`);
		chmodSync(join(bin, "npm"), 0o755);
		write(join(agentDir, "settings.json"), JSON.stringify({ packages: ["npm:tools"] }));
		const npmVariables = Object.keys(process.env).filter((key) => /^npm_/i.test(key));
		const runEnv: Record<string, string | undefined> = {
			...Object.fromEntries(npmVariables.map((key) => [key, undefined])),
			...env,
			npm_config_prefix: undefined,
			PATH: `${bin}:${process.env.PATH}`,
		};
		return { prefix, runs, runEnv };
	}

	it("a package installed by npm install -g --prefix <dir> loads with npm_config_prefix=<dir>, and npm is not run at start-up to find it", () => {
		const { prefix, runs, runEnv } = prefixedInstall();
		const run = runSettle(["--faux", "--no-session", "-p", "/tools-review y"], {
			cwd: project,
			agentDir,
			env: { ...runEnv, npm_config_prefix: prefix },
		});
		expect(run).toMatchObject({ code: 0, stdout: "Review y with tools one.\n" });
		expect(existsSync(runs)).toBe(false);
	}, 60_000); // one settle process

	it("a package installed by npm install -g --prefix <dir> loads when only ~/.npmrc names that prefix", () => {
		const { prefix, runEnv } = prefixedInstall();
		const home = join(dir, "home");
		write(join(home, ".npmrc"), `prefix=${prefix}\n`);
		// The real npm on the PATH (not the noting one, which is no global npm install).
		const run = runSettle(["--faux", "--no-session", "-p", "/tools-review y"], {
			cwd: project,
			agentDir,
			env: { ...runEnv, HOME: home, PATH: process.env.PATH },
		});
		expect(run).toMatchObject({ code: 0, stdout: "Review y with tools one.\n" });
	}, 60_000); // one settle process
});

describe("settle install / update / remove with git (the real git, from a local bare repository)", () => {
	it("install clones into <agent folder>/git/<host>/<path>; update pulls a new commit; a ref pins it; remove deletes the clone", () => {
		const repo = makeGitPackageRepo({ dir, agentDir, project, env });
		const install = settle(["install", "git:example.test/acme/kit"], repo.env);
		expect(install.code).toBe(0);
		const clone = join(agentDir, "git", "example.test", "acme", "kit");
		expect(readFileSync(join(clone, "prompts", "kit-review.md"), "utf8")).toContain("kit one");
		expect(settle(["--faux", "--no-session", "-p", "/kit-review z"]).stdout).toBe("Review z with kit one.\n");

		// A new commit upstream: update brings it.
		write(join(repo.work, "prompts", "kit-review.md"), "---\ndescription: Review\n---\nReview $1 with kit two.\n");
		repo.commitAndPush("two");
		expect(settle(["update"], repo.env)).toMatchObject({ code: 0 });
		expect(settle(["--faux", "--no-session", "-p", "/kit-review z"]).stdout).toBe("Review z with kit two.\n");

		// A pinned ref (project scope) is cloned at the ref and left alone by update.
		expect(settle(["install", "git:example.test/acme/kit@v1", "-l"], repo.env).code).toBe(0);
		const pinned = join(project, ".pi", "git", "example.test", "acme", "kit");
		expect(readFileSync(join(pinned, "prompts", "kit-review.md"), "utf8")).toContain("kit one");
		expect(settle(["update", "git:example.test/acme/kit"], repo.env).code).toBe(0);
		expect(readFileSync(join(pinned, "prompts", "kit-review.md"), "utf8")).toContain("kit one");

		expect(settle(["remove", "git:example.test/acme/kit"], repo.env).code).toBe(0);
		expect(existsSync(clone)).toBe(false);
		expect(existsSync(join(agentDir, "git", "example.test"))).toBe(false);
		expect(settingsOf(join(agentDir, "settings.json")).packages).toEqual([]);
		expect(settingsOf(join(project, ".pi", "settings.json")).packages).toEqual(["git:example.test/acme/kit@v1"]);
	}, 120_000); // nine settle, git and npm processes one after another (~11 s here, alone)

	it("a git package listed in another --agent-dir folder (its name holds a space and a quote), not installed: the warning's install line names that folder; run as printed, the next run there loads the package", () => {
		const repo = makeGitPackageRepo({ dir, agentDir, project, env });
		const other = join(dir, "other's agent");
		write(join(other, "settings.json"), JSON.stringify({ packages: ["git:example.test/acme/kit"] }));
		const run = () => settle(["--agent-dir", other, "--faux", "--no-session", "-p", "/kit-review z"]);
		const line = /Install it with: (.*)$/m.exec(run().stderr)?.[1];
		expect(line).toBe(`settle install git:example.test/acme/kit --agent-dir '${join(dir, "other")}'\\''s agent'`);

		// The line as a user pastes it into a shell, with `settle` on the PATH.
		const bin = join(dir, "bin");
		write(
			join(bin, "settle"),
			`#!/bin/sh\nexec "${process.execPath}" ${cliCommand()
				.map((arg) => `"${arg}"`)
				.join(" ")} "$@"\n`,
		);
		chmodSync(join(bin, "settle"), 0o755);
		execFileSync("sh", ["-c", line!], {
			cwd: project,
			stdio: "ignore",
			env: { ...process.env, ...env, ...repo.env, SETTLE_AGENT_DIR: agentDir, PATH: `${bin}:${process.env.PATH}` },
		});
		expect(existsSync(join(other, "git", "example.test", "acme", "kit"))).toBe(true);
		expect(run()).toMatchObject({ code: 0, stdout: "Review z with kit one.\n" });
	}, 60_000); // git, four settle processes
});
