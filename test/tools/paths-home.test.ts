/**
 * `~` in a tool's path when HOME is empty or relative (a service manager's unit, `env HOME= …`,
 * gops#60): the tools name the same home folder as the agent folder does. Real child processes, as
 * HOME is read per process.
 */
import { spawnSync } from "node:child_process";
import { userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "tools", "paths.ts");

/** `resolveToCwd(path, "/srv/project")` in a child whose HOME is `home`: the path, or the error's code and text. */
function resolvedWithHome(home: string, path: string): string {
	const script = `
		const { resolveToCwd } = await import(${JSON.stringify(MODULE)});
		try {
			console.log(resolveToCwd(${JSON.stringify(path)}, "/srv/project"));
		} catch (error) {
			console.log(error.code + ": " + error.message);
		}`;
	const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
		encoding: "utf8",
		env: { ...process.env, HOME: home },
	});
	expect(child.stderr).toBe("");
	return child.stdout.trim();
}

describe("a tool's ~ path without a usable HOME", () => {
	it("regression: with HOME empty, ~/notes.md named /notes.md (the file system's root); now the user's home folder, as the agent folder's", () => {
		const home = userInfo().homedir;
		expect(resolvedWithHome("", "~/notes.md")).toBe(join(home, "notes.md"));
		expect(resolvedWithHome("", "@~")).toBe(home);
	});

	it("regression: with HOME relative, ~/notes.md landed inside the project (or threw Node's bare error without a home); now a typed error that says to use an absolute path", () => {
		expect(resolvedWithHome("relative-home", "~/notes.md")).toBe(
			"INVALID_ARGUMENT: There is no home folder for ~/notes.md: HOME is not an absolute path (or is not set, and this user has no passwd entry). Use an absolute path, or set HOME.",
		);
	});
});
