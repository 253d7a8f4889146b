/**
 * An extension author's error says the line of their file it was thrown from: a factory, an event
 * handler and a command that throw (real `settle -p` child processes, real TypeScript files with
 * type-only lines before the throw). Top-level code that throws while the module loads gets no
 * line: the transpiler can move a class's evaluation (pi's modal-editor.ts would name line 32 for
 * line 28), and a wrong line is worse than none.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-ext-error-lines-");

const TYPES = "interface Options {\n\tlevel: number;\n}\ntype Api = { on: Function; registerCommand: Function };\n";

function extension(name: string, source: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, `${TYPES}${source}`);
	return path;
}

describe("settle -p names the line an extension threw from", () => {
	it("a factory that throws: the load error names its file and line", () => {
		const file = extension(
			"factory.ts",
			'export default function (pi: Api): void {\n\tconst o: Options = { level: 1 };\n\tthrow new Error("no config " + o.level);\n}\n',
		);
		const run = cli.settle(["--faux", "--no-session", "-e", file, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(`Failed to load extension: no config 1 (thrown at factory.ts:7) (${file}).`);
	});

	it("an event handler and a command that throw: the extension error line ends with the line", () => {
		const file = extension(
			"handlers.ts",
			[
				"export default function (pi: Api) {",
				'\tpi.on("input", () => {',
				'\t\tthrow new Error("input broke");',
				"\t});",
				'\tpi.registerCommand("crash", { handler: async () => {',
				'\t\tthrow new Error("command broke");',
				"\t} });",
				"}",
				"",
			].join("\n"),
		);
		const run = cli.settle(["--faux", "--no-session", "-e", file, "-p", "/crash", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		expect(run.stderr).toContain(
			`Extension error (command:crash of ${file}, command): command broke (thrown at handlers.ts:10)\n`,
		);
		expect(run.stderr).toContain(`Extension error (${file}, input): input broke (thrown at handlers.ts:7)\n`);
	});
});

describe("settle -p with an extension that exports no factory", () => {
	it("a named export instead of a default one: says what the module gave and what to write", () => {
		const file = extension("named.ts", "export function activate(_pi: Api) {}\n");
		const run = cli.settle(["--faux", "--no-session", "-e", file, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			`Extension does not export a valid factory function: ${file} (it gives an object with activate, not a function). Make its default export the factory: export default function (pi) { … }.`,
		);
	});
});
