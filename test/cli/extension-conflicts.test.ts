/**
 * Two extension files that register the same tool or flag name: the SDK uses the first
 * registration, and `settle` names the later file and the name instead of starting with it silently
 * ignored (pi 0.73.1 reports the same conflict and exits 1). The command does not start, so its
 * message must not say "the first is used" (it said so, and exited). Real `settle` child processes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-ext-conflicts-");

function extension(name: string, body: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, `export default function (pi: any) {\n${body}\n}\n`);
	return path;
}

const tool = (text: string) =>
	`pi.registerTool({ name: "shout", label: "Shout", description: "d", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "${text}" }], details: {} }) });`;

describe("settle with two extensions registering the same name", () => {
	it("a tool: exits 1 naming the later file, the tool and the file that keeps it", () => {
		const first = extension("first.ts", tool("first"));
		const second = extension("second.ts", tool("second"));
		const run = cli.settle(["--faux", "--no-session", "-e", first, "-e", second, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`Tool "shout" conflicts with ${first}: settle does not start with both; rename one (${second}). Fix it, or run without -e ${second}.`,
		);
	});

	it("a flag: exits 1 naming both files", () => {
		const first = extension("a.ts", `pi.registerFlag("level", { type: "string", description: "d" });`);
		const second = extension("b.ts", `pi.registerFlag("level", { type: "boolean", description: "d" });`);
		const run = cli.settle(["--faux", "--no-session", "-e", first, "-e", second, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			`Flag "--level" conflicts with ${first}: settle does not start with both; rename one (${second}).`,
		);
		expect(run.stderr).not.toContain("the first is used");
	});

	it("one extension registering a name twice is no conflict (its later registration wins)", () => {
		const only = extension("only.ts", `${tool("one")}\n${tool("two")}`);
		const run = cli.settle(["--faux", "--no-session", "-e", only, "-p", "hi"]);
		expect(run).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
	});
});
