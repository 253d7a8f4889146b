/**
 * An extension author's error says the line of their file it was thrown from: a factory, an event
 * handler and a command that throw, and top-level code that throws while the module loads (real
 * `settle -p` / `settle -i` child processes, real TypeScript files with type-only lines before the
 * throw). The transpiler can move a module's code down (pi's modal-editor.ts threw at line 32 for
 * its line 28): the line named is the source's, not the transpiled code's.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

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

/** pi's modal-editor.ts in short: a doc comment above two imports moves the class 3 lines down in jiti's output. */
const MODAL_EDITOR = `/**
 * Modal editor: vim-like keys.
 *
 * Usage: settle -e ./modal.ts
 *
 * - Escape: insert → normal mode
 * - i: normal → insert mode
 * - hjkl: move in normal mode
 * - ctrl+c, ctrl+d work in both modes
 */

import { CustomEditor } from "./editor-base.ts";
import { keys } from "./editor-base.ts";

// Normal mode key mappings
const NORMAL_KEYS: Record<string, string | null> = {
	h: "\\x1b[D", // left
	l: "\\x1b[C", // right
};

class ModalEditor extends CustomEditor {
	private mode: "normal" | "insert" = "insert";
}

export default function (pi: any) {
	pi.on("session_start", () => new ModalEditor(keys, NORMAL_KEYS));
}
`;

describe("a module that throws while it is imported names its line", () => {
	it("settle -p: a class extending an import that is undefined names the class's line in the source (21), not the transpiled code's (24); so does a read of a file not there", () => {
		writeFileSync(
			join(cli.dir, "editor-base.ts"),
			'export const CustomEditor: any = undefined;\nexport const keys = ["h"];\n',
		);
		const modal = join(cli.dir, "modal.ts");
		writeFileSync(modal, MODAL_EDITOR);
		const asset = extension(
			"asset.ts",
			'import { readFileSync } from "node:fs";\nconst o: Options = { level: 1 };\nconst prompt = readFileSync("assets/prompt.md", "utf8");\nexport default function (pi: Api) {}\n',
		);
		const run = cli.settle(["--faux", "--no-session", "-e", modal, "-e", asset, "-p", "hi"]);
		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toContain(
			`Failed to load extension: Class extends value undefined is not a constructor or null (thrown at modal.ts:21) (${modal}).`,
		);
		expect(run.stderr).toContain(
			`Failed to load extension: ENOENT: no such file or directory, open 'assets/prompt.md' (thrown at asset.ts:7) (${asset}).`,
		);
	});

	it("settle -i: a module edited to throw at import names its line on /reload", async () => {
		const file = extension("edited.ts", "export default function (pi: Api) {}\n");
		const chat = new Repl(["--faux", "--no-session", "-e", file], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		writeFileSync(
			file,
			`${TYPES}const o: Options = { level: 2 };\nif (o.level > 1) throw new Error("level " + o.level + " unsupported");\nexport default function (pi: Api) {}\n`,
		);
		await chat.say("/reload", "Reloaded");
		expect(chat.stdout + chat.stderr).toContain(
			`Failed to load extension: level 2 unsupported (thrown at edited.ts:6)`,
		);
		expect(await chat.end()).toBe(0);
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
