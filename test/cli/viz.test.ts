/** `settle viz [dir]` as a user runs it: a real child process writing real files. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-viz-");
const checkedIn = fileURLToPath(new URL("../../visualizations", import.meta.url));

describe("settle viz", () => {
	it("regression: a folder whose parent refuses it (under /proc) made settle viz spin forever in Node's recursive mkdir", () => {
		const run = runSettle(["viz", "/proc/settle-no-such-folder/diagrams"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: 20_000,
		});
		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			"Error: Cannot make the folder /proc/settle-no-such-folder: ENOENT: no such file or directory, mkdir '/proc/settle-no-such-folder'\n",
		);
	});

	it("regression: a file given as the folder failed with 'EEXIST: file already exists, mkdir'", () => {
		const file = join(cli.project, "notes.txt");
		writeFileSync(file, "x");
		const run = cli.settle(["viz", "notes.txt"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe(`Error: ${file} is a file, not a folder: give a folder for the diagrams.\n`);
		expect(cli.settle(["viz", "notes.txt/sub"]).stderr).toBe(
			`Error: Cannot make ${join(file, "sub")}: ${file} is a file, not a folder.\n`,
		);
	});

	it("regression: a second folder was silently ignored; it is a usage error", () => {
		const run = cli.settle(["viz", "one", "two"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe("Error: settle viz takes one folder, got 2: one two\n");
		expect(existsSync(join(cli.project, "one"))).toBe(false);
	});

	it("makes missing parent folders", () => {
		const run = cli.settle(["viz", "docs/diagrams"]);
		expect(run.code).toBe(0);
		expect(existsSync(join(cli.project, "docs", "diagrams", "prompt-operation.svg"))).toBe(true);
	});

	it("writes the checked-in files byte for byte, example traces included, from another process and folder", () => {
		expect(cli.settle(["viz", "out"]).code).toBe(0);
		const written = readdirSync(join(cli.project, "out")).sort();
		expect(written).toEqual(readdirSync(checkedIn).sort());
		expect(written).toContain("runtime-trace-example.html");
		for (const file of written) {
			expect(
				readFileSync(join(cli.project, "out", file), "utf8") === readFileSync(join(checkedIn, file), "utf8"),
				file,
			).toBe(true);
		}
	});
});
