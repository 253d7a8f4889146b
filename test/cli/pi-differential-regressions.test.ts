/**
 * Settle defects the CLI differential against pi 0.73.1 (pi-differential*.property.test.ts) found,
 * each pinned by name so that it cannot come back: both parsers are run on the same command line.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { useCliProject } from "./helpers.js";
import { piParseArgs } from "./pi-diff-pi.js";

const cli = useCliProject("settle-pi-diff-regressions-");
/** A 1×1 PNG. */
const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
	"base64",
);

describe("CLI defects found by the pi differential", () => {
	it("pi's short aliases -nt and -ne were rejected as unknown options", () => {
		const argv = ["-nt", "-ne", "-p", "hi"];
		expect(piParseArgs(argv)).toMatchObject({ noTools: true, noExtensions: true, diagnostics: [] });
		expect(parseArgs(argv)).toMatchObject({ noTools: true, noExtensions: true, diagnostics: [] });
	});

	it("a lone - was sent as the prompt (pi: Unknown option: -)", () => {
		const argv = ["-p", "hi", "-"];
		expect(piParseArgs(argv)).toMatchObject({
			messages: ["hi"],
			diagnostics: [{ type: "error", message: "Unknown option: -" }],
		});
		expect(parseArgs(argv)).toMatchObject({
			messages: ["hi"],
			diagnostics: [{ type: "error", message: "Unknown option: -" }],
		});
	});

	it("-p followed by a prompt starting with --- lost the prompt (read as an extension flag)", () => {
		const argv = ["-p", "---\ntitle: x\n---"];
		expect(piParseArgs(argv)).toMatchObject({ print: true, messages: [argv[1]], unknownFlags: new Map() });
		expect(parseArgs(argv)).toMatchObject({ print: true, messages: [argv[1]], unknownFlags: [] });
	});

	it("@file arguments were sent as literal text instead of the file's contents", () => {
		const argv = ["-p", "@notes.md", "--plan", "@b.txt", "what?"];
		expect(piParseArgs(argv)).toMatchObject({ fileArgs: ["notes.md", "b.txt"], messages: ["what?"] });
		expect(parseArgs(argv)).toMatchObject({ fileArgs: ["notes.md", "b.txt"], messages: ["what?"] });
		writeFileSync(join(cli.project, "notes.md"), "remember the milk");
		writeFileSync(join(cli.project, "empty.txt"), "");
		writeFileSync(join(cli.project, "dot.png"), PNG);
		const run = cli.settle(["--faux", "--no-session", "-p", "@notes.md", "@empty.txt", "what?"]);
		expect(run).toEqual({
			code: 0,
			stdout: `<file name="${join(cli.project, "notes.md")}">\nremember the milk\n</file>\nwhat?\n`,
			stderr: "",
		});
		// An image goes with the first prompt as an attachment, named by an empty <file> tag.
		const json = cli.settle(["--faux", "--no-session", "--json", "@dot.png", "see?"]);
		const user = json.stdout
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } })
			.find((event) => event.type === "message_end" && event.message?.role === "user");
		expect(user?.message?.content).toEqual([
			{ type: "text", text: `<file name="${join(cli.project, "dot.png")}"></file>\nsee?` },
			{ type: "image", mimeType: "image/png", data: PNG.toString("base64") },
		]);
	});
});
