/**
 * `settle update` of pi packages, replayed with real `settle` processes, the real `npm` against a
 * local registry (a real HTTP server, test/cli/npm-registry.ts) and the real `git` cloning from a
 * local bare repository:
 *
 * - pi#2592: a package installed at a branch (`git:…@custom`) counted as pinned, so `pi update`
 *   never brought the branch's new commits.
 * - pi#3000, pi#3064: `pi update` reinstalled every npm package (and its hundreds of dependencies)
 *   on every run, even when the installed version was the latest.
 * - pi#2459: `pi update` printed success but left a project's package (`.pi/npm`) at its old
 *   version: it re-ran `npm install <name>`, which the project's lockfile kept where it was. * - Scoop#6143, tap#23, aurto#33 (package managers' updates of many packages): one package that
 *   failed to update stopped the run, and the packages after it kept their old versions.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettle, runSettleAsync } from "../cli/helpers.js";
import { type NpmRegistry, startNpmRegistry } from "../cli/npm-registry.js";
import { makeGitPackageRepo, usePackageFolders, write, writePiPackage } from "../cli/package-fixtures.js";

const folders = usePackageFolders("settle-pi-races-updates-");

function settle(args: string[], extraEnv: Record<string, string> = {}) {
	return runSettle(args, { cwd: folders.project, agentDir: folders.agentDir, env: { ...folders.env, ...extraEnv } });
}

const REVIEW_TWO = "---\ndescription: Review\n---\nReview $1 with kit two.\n";

describe("pi#2592: pi update treats branch refs as pinned, so branch-based git packages never update", () => {
	it("pi#2592: settle update brings a branch ref's new commit; a tag ref stays where it is", () => {
		const repo = makeGitPackageRepo(folders);
		repo.git("checkout", "-q", "-b", "custom");
		repo.git("push", "-q", "origin", "custom");
		expect(settle(["install", "git:example.test/acme/kit@custom"], repo.env).code).toBe(0);
		expect(settle(["install", "git:example.test/acme/kit@v1", "-l"], repo.env).code).toBe(0);
		write(join(repo.work, "prompts", "kit-review.md"), REVIEW_TWO);
		repo.commitAndPush("two on custom");

		const update = settle(["update"], repo.env);
		expect(update.code).toBe(0);
		expect(update.stdout).toContain("Updating git:example.test/acme/kit@custom...");
		expect(update.stdout).not.toContain("Updating git:example.test/acme/kit@v1");
		const branchClone = join(folders.agentDir, "git", "example.test", "acme", "kit");
		const tagClone = join(folders.project, ".pi", "git", "example.test", "acme", "kit");
		expect(readFileSync(join(branchClone, "prompts", "kit-review.md"), "utf8")).toBe(REVIEW_TWO);
		expect(readFileSync(join(tagClone, "prompts", "kit-review.md"), "utf8")).toContain("kit one");
		// The clone still follows the branch: the next commit on it comes with the next update too.
		write(join(repo.work, "prompts", "kit-review.md"), REVIEW_TWO.replace("two", "three"));
		repo.commitAndPush("three on custom");
		expect(settle(["update", "git:example.test/acme/kit"], repo.env).code).toBe(0);
		expect(readFileSync(join(branchClone, "prompts", "kit-review.md"), "utf8")).toContain("kit three");
	}, 90_000); // five settle processes, each running git
});

describe("pi#3000, pi#3064, pi#2459: settle update of npm packages against a registry", () => {
	let registry: NpmRegistry;

	// Each version's tarball, `npm pack`ed once for the file's tests (about 1 s each): they only read it.
	const packs = mkdtempSync(join(tmpdir(), "settle-pi-races-updates-packs-"));
	const packed = new Map<string, string>();
	afterAll(() => rmSync(packs, { recursive: true, force: true }));

	/** The tarball `npm pack` makes of `tools` at `version`, its template saying `marker`. */
	function packedTools(version: string, marker: string): string {
		const key = `${version} ${marker}`;
		const known = packed.get(key);
		if (known) return known;
		const source = join(packs, `tools-src-${version}-${marker}`);
		const destination = join(packs, `${version}-${marker}`);
		writePiPackage(source, "tools", version, marker);
		mkdirSync(destination);
		execFileSync("npm", ["pack", "--pack-destination", destination], {
			cwd: source,
			env: { ...process.env, ...folders.env },
			stdio: "ignore",
		});
		const tarball = join(destination, `tools-${version}.tgz`);
		packed.set(key, tarball);
		return tarball;
	}

	beforeEach(async () => {
		registry = await startNpmRegistry();
	});

	afterEach(async () => {
		await registry.close();
	});

	/** Publishes `tools` at `version`, its template saying `marker`. */
	function publishTools(version: string, marker: string) {
		registry.publish("tools", version, packedTools(version, marker));
	}

	/** `settle` with npm online, against the local registry only. */
	const online = (args: string[]) =>
		runSettleAsync(args, {
			cwd: folders.project,
			agentDir: folders.agentDir,
			env: { ...folders.env, npm_config_offline: "false", npm_config_registry: registry.url },
		});

	const globalRoot = () =>
		execFileSync("npm", ["root", "-g"], { env: { ...process.env, ...folders.env }, encoding: "utf8" }).trim();
	const versionAt = (folder: string) =>
		(JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version: string }).version;

	it("pi#3000, pi#3064: with the latest version installed, settle update runs no npm install; a newer version is then installed", async () => {
		publishTools("1.0.0", "one");
		expect((await online(["install", "npm:tools"])).code).toBe(0);
		const installed = join(globalRoot(), "tools");
		expect(versionAt(installed)).toBe("1.0.0");

		const tarballsBefore = registry.requests.filter((path) => path.endsWith(".tgz")).length;
		const upToDate = await online(["update"]);
		expect(upToDate).toMatchObject({ code: 0, stdout: "Updated packages\n" });
		// npm was asked for the latest version only: no install ran (nothing on stderr, no tarball fetched).
		expect(upToDate.stderr).toBe("");
		expect(registry.requests.filter((path) => path.endsWith(".tgz")).length).toBe(tarballsBefore);

		publishTools("2.0.0", "two");
		const newer = await online(["update", "npm:tools"]);
		expect(newer.code).toBe(0);
		expect(newer.stdout).toBe("Updating npm:tools...\nUpdated npm:tools\n");
		expect(versionAt(installed)).toBe("2.0.0");
		expect(settle(["--faux", "--no-session", "-p", "/tools-review x"]).stdout).toBe("Review x with tools two.\n");
	}, 90_000); // npm pack twice (once per file), npm install -g twice, npm view, four settle processes

	it("pi#2459: a project's package (.pi/npm) installed at 1.0.0 is at 2.0.0 after settle update, and loads so", async () => {
		publishTools("1.0.0", "one");
		expect((await online(["install", "npm:tools", "-l"])).code).toBe(0);
		const installed = join(folders.project, ".pi", "npm", "node_modules", "tools");
		expect(versionAt(installed)).toBe("1.0.0");

		publishTools("2.0.0", "two");
		const update = await online(["update"]);
		expect(update.code).toBe(0);
		expect(update.stdout).toBe("Updating npm:tools...\nUpdated packages\n");
		expect(versionAt(installed)).toBe("2.0.0");
		expect(settle(["--faux", "--no-session", "--approve", "-p", "/tools-review x"]).stdout).toBe(
			"Review x with tools two.\n",
		);
	}, 90_000); // npm pack twice (once per file), npm install twice, npm view, three settle processes
});

describe("Scoop#6143: one package that cannot update stops the update of the others", () => {
	it("Scoop#6143, tap#23: with the first git package's remote gone, settle update still brings the second one's new commit, names the one it could not update, and exits 1", () => {
		const kit = makeGitPackageRepo(folders, "kit");
		const tools = makeGitPackageRepo(folders, "tools");
		// Both URL rewrites at once (each fixture's env sets git's config entry 0).
		const env = {
			GIT_CONFIG_COUNT: "2",
			GIT_CONFIG_KEY_0: kit.env.GIT_CONFIG_KEY_0!,
			GIT_CONFIG_VALUE_0: kit.env.GIT_CONFIG_VALUE_0!,
			GIT_CONFIG_KEY_1: tools.env.GIT_CONFIG_KEY_0!,
			GIT_CONFIG_VALUE_1: tools.env.GIT_CONFIG_VALUE_0!,
		};
		expect(settle(["install", "git:example.test/acme/kit"], env).code).toBe(0);
		expect(settle(["install", "git:example.test/acme/tools"], env).code).toBe(0);
		const toolsTwo = "---\ndescription: Review\n---\nReview $1 with tools two.\n";
		write(join(tools.work, "prompts", "tools-review.md"), toolsTwo);
		tools.commitAndPush("two");
		rmSync(join(folders.dir, "kit.git"), { recursive: true, force: true }); // kit's remote is gone

		const update = settle(["update"], env);
		expect(update.code).toBe(1);
		expect(update.stdout).toContain("Updating git:example.test/acme/tools...");
		expect(update.stdout).not.toContain("Updated packages");
		expect(update.stderr).toContain("Error: git:example.test/acme/kit not updated: git fetch --prune origin failed");
		expect(update.stderr).toContain(
			"Error: git:example.test/acme/kit not updated; the other packages were. Fix what the errors above say, then run settle update again.",
		);
		const clones = join(folders.agentDir, "git", "example.test", "acme");
		expect(readFileSync(join(clones, "tools", "prompts", "tools-review.md"), "utf8")).toBe(toolsTwo);
		expect(readFileSync(join(clones, "kit", "prompts", "kit-review.md"), "utf8")).toContain("kit one");
	}, 90_000); // three settle processes, each running git
});
