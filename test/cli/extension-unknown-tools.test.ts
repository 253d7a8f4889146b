/**
 * An extension that activates a tool under a misspelt name (`pi.setActiveTools(["read", "bahs"])`):
 * pi 0.73.1 drops the name without a word and the model silently loses `bash`. A real `settle -p -e`
 * child prints the report on stderr, naming the unknown name and the registered tools, and the
 * known names still apply (the request offers `read` only).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-ext-unknown-tools-");

describe("settle -p -e: pi.setActiveTools with an unknown name", () => {
	it("regression: the unknown name is reported once on stderr and the known names apply (was: silent)", () => {
		const file = join(cli.dir, "ext.ts");
		writeFileSync(
			file,
			[
				"export default function (pi: any) {",
				'\tpi.on("session_start", () => pi.setActiveTools(["read", "bahs"]));',
				'\tpi.registerCommand("tools", { handler: async (_args: string, ctx: any) => {',
				'\t\tctx.ui.notify("active: " + pi.getActiveTools().join(","), "info");',
				"\t} });",
				"}",
				"",
			].join("\n"),
		);
		const run = cli.settle(["--faux", "--no-session", "-e", file, "-p", "/tools", "hi"]);
		expect(run.code).toBe(0);
		const reports = run.stderr.split("\n").filter((line) => line.includes("no tool is named"));
		expect(reports).toEqual([
			expect.stringContaining(
				`Extension error (${file}, set_active_tools): pi.setActiveTools: no tool is named "bahs", so it was left out; the other names were applied. The registered tools are read, bash, edit, write`,
			),
		]);
		expect(run.stderr).toContain("active: read\n");
	});
});
