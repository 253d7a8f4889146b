/**
 * An untrusted project with several extensions: `settle` warns once, listing them, instead of
 * repeating the paragraph on how to trust the project for every file (real child processes).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeUntrustedExtensionWarnings } from "../../src/cli/host.js";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-untrusted-");

describe("untrusted project extensions", () => {
	it("regression: three extensions printed the trust advice three times; now one warning lists them", () => {
		const folder = join(cli.project, ".settle", "extensions");
		mkdirSync(join(folder, "sub"), { recursive: true });
		writeFileSync(join(folder, "a.ts"), "export default function () {}\n");
		writeFileSync(join(folder, "b.js"), "export default function () {}\n");
		writeFileSync(join(folder, "sub", "index.ts"), "export default function () {}\n");
		const run = cli.settle(["--faux", "-p", "hi"]);
		expect(run.code).toBe(0);
		const warnings = run.stderr.split("\n").filter((line) => line.startsWith("Warning:"));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/^Warning: Project extensions not loaded \(3\): .+\. The project .+ is not trusted/);
		for (const file of ["a.ts", "b.js", join("sub", "index.ts")]) expect(warnings[0]).toContain(join(folder, file));
		expect(warnings[0]?.match(/To trust it/g)).toHaveLength(1);
	});

	it("keeps a single warning as it is, and other warnings in their places", () => {
		const advice = "The project /p is not trusted, so Settle does not import or run its extensions. To trust it: …";
		const one = [
			{ type: "warning" as const, message: `Project extension not loaded: /p/a.ts. ${advice}`, path: "/p/a.ts" },
		];
		expect(mergeUntrustedExtensionWarnings(one)).toEqual(one);
		const other = { type: "warning" as const, message: "Skill skipped: /p/s" };
		expect(
			mergeUntrustedExtensionWarnings([
				other,
				{ type: "warning", message: `Project extension not loaded: /p/a.ts. ${advice}` },
				{ type: "info", message: "between" },
				{ type: "warning", message: `Project extension not loaded: /p/b.ts. ${advice}` },
			]).map((w) => w.message),
		).toEqual([other.message, `Project extensions not loaded (2): /p/a.ts, /p/b.ts. ${advice}`, "between"]);
	});
});
