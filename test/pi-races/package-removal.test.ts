/**
 * `settle remove` of pi packages, replayed with real `settle` processes and the real `npm` (offline,
 * from a tarball `npm pack` made):
 *
 * - pi#5966: `pi remove npm:@foo/bar` said it removed the package, yet it stayed in the config; the
 *   maintainer's first question: was it installed for the project (`-l`)? Without `-l` pi looks in
 *   the global settings only, and still runs `npm uninstall -g` first: the global folder npm shares
 *   with pi loses a package that another settings file still lists.
 * - pi#1243: a package installed as `~/Coding/kit/` (the shell's absolute path, trailing slash) was
 *   written relative to the settings folder; `pi remove` with the same path matched nothing, and
 *   still said "Removed".
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle } from "../cli/helpers.js";
import { settingsOf, usePackageFolders, writePiPackage } from "../cli/package-fixtures.js";

const folders = usePackageFolders("settle-pi-races-removal-");

function settle(args: string[], extraEnv: Record<string, string> = {}) {
	return runSettle(args, { cwd: folders.project, agentDir: folders.agentDir, env: { ...folders.env, ...extraEnv } });
}

function npm(args: string[]) {
	return execFileSync("npm", args, { cwd: folders.dir, env: { ...process.env, ...folders.env }, encoding: "utf8" });
}

describe("pi#5966: removing a package does not work (it was the project's)", () => {
	it("pi#5966: settle remove without -l of a package only the project lists exits 1 naming the project's file and the -l command, and uninstalls nothing", () => {
		writePiPackage(join(folders.dir, "tools-src"), "tools");
		npm(["pack", "--pack-destination", folders.dir, join(folders.dir, "tools-src")]);
		const tarball = join(folders.dir, "tools-1.0.0.tgz");
		// pi installed it globally (npm's global folder, which Settle shares), and this project lists it too.
		npm(["install", "-g", tarball]);
		const globalCopy = join(npm(["root", "-g"]).trim(), "tools");
		const source = `npm:tools@file:${tarball}`;
		expect(settle(["install", source, "-l"]).code).toBe(0);
		const projectSettings = join(folders.project, ".pi", "settings.json");
		const projectCopy = join(folders.project, ".pi", "npm", "node_modules", "tools");

		const remove = settle(["remove", "npm:tools"]);
		expect(remove.code).toBe(1);
		expect(remove.stderr).toContain(
			`Error: No matching package found for npm:tools in ${join(folders.agentDir, "settings.json")}; ${projectSettings} lists it: settle remove npm:tools -l`,
		);
		expect(remove.stdout).not.toContain("Removed");
		expect(existsSync(join(globalCopy, "package.json"))).toBe(true);
		expect(existsSync(join(projectCopy, "package.json"))).toBe(true);
		expect(settingsOf(projectSettings).packages).toEqual([source]);

		expect(settle(["remove", "npm:tools", "-l"])).toMatchObject({ code: 0 });
		expect(existsSync(projectCopy)).toBe(false);
		expect(settingsOf(projectSettings).packages).toEqual([]);
		expect(readFileSync(join(globalCopy, "package.json"), "utf8")).toContain('"tools"');
	}, 60_000); // npm pack, npm install -g, npm install and uninstall, three settle processes
});

describe("pi#1243: pi install and pi remove of one path spelled with a trailing slash", () => {
	it("pi#1243: a package installed by its absolute path with a trailing slash, or as ~/…/, is removed by that same spelling; a path not listed is refused, never reported removed", () => {
		const home = join(folders.dir, "home");
		const kit = join(home, "Coding", "kit");
		writePiPackage(kit, "kit");
		const env = { HOME: home };
		const settingsFile = join(folders.agentDir, "settings.json");

		expect(settle(["install", `${kit}/`], env).code).toBe(0);
		expect(settingsOf(settingsFile).packages).toEqual(["../home/Coding/kit"]);
		expect(settle(["remove", `${kit}/`], env)).toMatchObject({
			code: 0,
			stdout: `Removing ${kit}/...\nRemoved ${kit}/\n`,
		});
		expect(settingsOf(settingsFile).packages).toEqual([]);

		expect(settle(["install", "~/Coding/kit/"], env).code).toBe(0);
		expect(settingsOf(settingsFile).packages).toEqual(["../home/Coding/kit"]);
		const elsewhere = settle(["remove", "~/Coding/other/"], env);
		expect(elsewhere.code).toBe(1);
		expect(elsewhere.stdout).not.toContain("Removed");
		expect(settingsOf(settingsFile).packages).toEqual(["../home/Coding/kit"]);
		expect(settle(["remove", "~/Coding/kit/"], env).code).toBe(0);
		expect(settingsOf(settingsFile).packages).toEqual([]);
	}, 60_000); // six settle processes
});
