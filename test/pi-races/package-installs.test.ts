/**
 * `settle install` of pi packages when something goes wrong on the way, replayed
 * with real `settle` processes, the real `git` cloning from a local bare repository and a real
 * settings file:
 *
 * - pi#7189: a `pi install git:…` that failed half-way left its folder under `~/.pi/agent/git/`;
 *   every later install took that folder for the package (or failed in it) until the user deleted it.
 * - pi#3230: a package `pi install`ed from another terminal while pi ran did not load on `/reload`
 *   (pi reads settings.json once, at start-up; its maintainer: intended).
 * - pi#8215: two installs at once lost a settings update: each process wrote the `packages` list it
 *   had read at start, so the second write dropped the first one's package.
 * - pi#6112: `pi install` printed success when it could not write `settings.json`; the package was
 *   in no settings file, so it never loaded.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cliCommand, ROOT, runSettle, trackChild } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { makeGitPackageRepo, settingsOf, usePackageFolders, write, writePiPackage } from "../cli/package-fixtures.js";

const folders = usePackageFolders("settle-pi-races-packages-");

function settle(args: string[], extraEnv: Record<string, string> = {}, agentDir = folders.agentDir) {
	return runSettle(args, { cwd: folders.project, agentDir, env: { ...folders.env, ...extraEnv } });
}

/** What the package's `/kit-review` template expands to in a `settle -p` run on the faux model. */
const review = () => settle(["--faux", "--no-session", "-p", "/kit-review z"]).stdout;

const REVIEW_TWO = "---\ndescription: Review\n---\nReview $1 with kit two.\n";

describe("pi#7189: a git install that failed half-way poisons its folder for later installs", () => {
	it("pi#7189: an install at a ref the repository lacks fails and leaves no folder; the install at the right ref then clones the package at that ref", () => {
		const repo = makeGitPackageRepo(folders);
		write(join(repo.work, "prompts", "kit-review.md"), REVIEW_TWO);
		repo.commitAndPush("two"); // main has moved past v1

		const wrongRef = settle(["install", "git:example.test/acme/kit@v2"], repo.env);
		expect(wrongRef.code).toBe(1);
		expect(wrongRef.stderr).toContain("Error: git checkout v2 failed");
		expect(wrongRef.stdout).not.toContain("Installed");
		// Nothing half-made is left where the clone would go, and no settings entry was written.
		expect(readdirSync(join(folders.agentDir, "git"))).toEqual([".gitignore"]);
		expect(existsSync(join(folders.agentDir, "settings.json"))).toBe(false);

		expect(settle(["install", "git:example.test/acme/kit@v1"], repo.env).code).toBe(0);
		expect(settingsOf(join(folders.agentDir, "settings.json")).packages).toEqual(["git:example.test/acme/kit@v1"]);
		expect(review()).toBe("Review z with kit one.\n");
	}, 60_000); // three settle processes, each running git

	it("pi#7189: a clone left with no commit checked out (an interrupted clone) is cloned again, and the package loads", () => {
		const repo = makeGitPackageRepo(folders);
		const clone = join(folders.agentDir, "git", "example.test", "acme", "kit");
		write(join(clone, ".git", "HEAD"), "ref: refs/heads/main\n"); // a clone killed before its first checkout

		const install = settle(["install", "git:example.test/acme/kit"], repo.env);
		expect(install.code).toBe(0);
		expect(readFileSync(join(clone, "prompts", "kit-review.md"), "utf8")).toContain("kit one");
		expect(review()).toBe("Review z with kit one.\n");
	}, 60_000);
});

describe("pi#6112: pi install reports success when it cannot write settings.json", () => {
	it("pi#6112: settle install exits 1 naming the folder it cannot write and what to do; it never prints Installed", () => {
		writePiPackage(join(folders.project, "vendor", "tools"), "tools");
		// A file where the agent folder's parent should be: no user, root included, can create the folder.
		write(join(folders.dir, "blocked"), "");
		const agentDir = join(folders.dir, "blocked", "agent");

		const install = settle(["install", "./vendor/tools"], {}, agentDir);
		expect(install.code).toBe(1);
		expect(install.stdout).toBe("Installing ./vendor/tools...\n");
		expect(install.stderr).toContain(`Error: Cannot save setting "packages": cannot create ${agentDir}`);
		expect(install.stderr).toContain("point SETTLE_AGENT_DIR at a writable folder");
	});
});

describe("pi#3230: /reload does not load a package installed from another terminal", () => {
	it("pi#3230: settle -i: a package settle install adds from another process while the chat runs is loaded by one /reload (its template expands)", async () => {
		writePiPackage(join(folders.project, "vendor", "kit"), "kit");
		const chat = new Repl(["--faux", "--no-session"], { cwd: folders.project, agentDir: folders.agentDir });
		await chat.idle(0);
		expect(await chat.say("/kit-review z")).not.toContain("Review z with kit one.");

		expect(settle(["install", "./vendor/kit"]).code).toBe(0);
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/kit-review z")).toContain("Review z with kit one.");
		expect(await chat.end()).toBe(0);
	}, 60_000); // a settle -i and a settle install process
});

/** A real process started with `args` (tsx or the CLI); resolves `line` once a stdout line equals it. */
function started(args: string[], line: string, agentDir = folders.agentDir) {
	const child = spawn(process.execPath, args, {
		cwd: folders.project,
		env: { ...process.env, ...folders.env, SETTLE_AGENT_DIR: agentDir },
		stdio: ["pipe", "pipe", "pipe"],
	});
	const exited = trackChild(child);
	const seen = new Promise<void>((resolve) =>
		createInterface({ input: child.stdout }).on("line", (text) => {
			if (text === line) resolve();
		}),
	);
	return { child, exited, seen };
}

describe("pi#8215: concurrent installs lose settings updates", () => {
	it("pi#8215: two settle install processes that read settings.json before either saves both keep their package, and the file's other keys stay", async () => {
		const settingsFile = join(folders.agentDir, "settings.json");
		write(settingsFile, JSON.stringify({ theme: "dark" }));
		writePiPackage(join(folders.project, "vendor", "one"), "one");
		writePiPackage(join(folders.project, "vendor", "two"), "two");
		// A process holds the settings lock (Settle's own save path) until its stdin ends.
		const script = join(folders.dir, "holder.ts");
		writeFileSync(
			script,
			`import { readFileSync } from "node:fs";
import { updateJsonObjectFile } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/settings/json-file.ts")).href)};
updateJsonObjectFile(${JSON.stringify(settingsFile)}, () => {
	process.stdout.write("locked\\n");
	readFileSync(0);
}, { what: "a setting" });
`,
		);
		const tsx = ["--import", pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href];
		const holder = started([...tsx, script], "locked");
		await holder.seen;

		// Both have read the settings (they say Installing after that) before either can save.
		const one = started([...cliCommand(), "install", "./vendor/one"], "Installing ./vendor/one...");
		const two = started([...cliCommand(), "install", "./vendor/two"], "Installing ./vendor/two...");
		await Promise.all([one.seen, two.seen]);
		holder.child.stdin.end();
		expect(await holder.exited).toBe(0);
		expect(await one.exited).toBe(0);
		expect(await two.exited).toBe(0);

		const saved = JSON.parse(readFileSync(settingsFile, "utf8")) as { theme?: string; packages?: string[] };
		expect(saved.theme).toBe("dark");
		expect([...(saved.packages ?? [])].sort()).toEqual(["../project/vendor/one", "../project/vendor/two"]);
	}, 60_000); // a lock holder and two settle processes
});
