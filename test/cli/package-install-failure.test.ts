/**
 * A failed `settle install npm:<pkg> -l` (real `settle` and `npm` child processes, npm offline: a
 * package its cache does not hold, or a tarball that is not there) leaves the project as it was.
 * pi 0.73.1 leaves the `npm/package.json` (and `.gitignore`) it made before running npm.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runSettle } from "./helpers.js";
import { makePackageFolders, write } from "./package-fixtures.js";

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

function settle(args: string[]) {
	return runSettle(args, { cwd: project, agentDir, env });
}

/** Every file and folder under `root` with each file's text. */
function tree(root: string): Record<string, string> {
	const entries = readdirSync(root, { recursive: true, withFileTypes: true });
	return Object.fromEntries(
		entries.map((entry) => {
			const path = join(entry.parentPath, entry.name);
			return [path.slice(root.length), entry.isDirectory() ? "(folder)" : readFileSync(path, "utf8")];
		}),
	);
}

it.each([
	["a package the offline registry does not have", () => "npm:settle-no-such-package"],
	["a missing local tarball", () => `npm:tools@file:${join(dir, "missing-1.0.0.tgz")}`],
])(
	"a failed install -l (%s) leaves the project as it was: nothing made in a new one, an earlier install kept",
	(_, source) => {
		rmSync(join(project, ".pi"), { recursive: true });
		const fresh = settle(["install", source(), "-l"]);
		expect(fresh.code).not.toBe(0);
		expect(fresh.stderr).toContain("npm install");
		expect(tree(project)).toEqual({});

		write(join(project, ".settle", "npm", "package.json"), '{ "name": "mine", "private": true }\n');
		write(join(project, ".settle", "npm", ".gitignore"), "*\n");
		write(join(project, ".settle", "settings.json"), '{ "packages": ["npm:kept"] }\n');
		const before = tree(project);
		expect(settle(["install", source(), "-l"]).code).not.toBe(0);
		expect(tree(project)).toEqual(before);
	},
	60_000,
); // two settle processes running npm
