/**
 * Piped stdin in print and JSON modes, as in pi: the trimmed text is the prompt, or goes before
 * the first prompt (`cat error.log | settle -p "Why?"`). It used to be dropped when a prompt was
 * given, and sent with its trailing newline when it was the prompt.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-stdin-");

/** The user messages the session recorded (`--json` events), for `--faux` which echoes each prompt. */
function userTexts(args: string[], input: string): string[] {
	const run = cli.settle(["--faux", "--no-session", "--json", ...args], input);
	expect(run.code).toBe(0);
	return run.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text: string }[] } })
		.filter((event) => event.type === "message_end" && event.message?.role === "user")
		.map((event) => event.message!.content[0]!.text);
}

describe("settle with piped stdin", () => {
	it("is the prompt, trimmed, when none is given", () => {
		expect(userTexts([], "  What is this?\n")).toEqual(["What is this?"]);
		const print = cli.settle(["--faux", "--no-session", "-p"], "hello\n");
		expect(print).toEqual({ code: 0, stdout: "hello\n", stderr: "" });
	});

	it("goes before the first prompt, not the later ones", () => {
		expect(userTexts(["Why does it fail?", "And the fix?"], "Error: ENOENT config.json\n")).toEqual([
			"Error: ENOENT config.json\n\nWhy does it fail?",
			"And the fix?",
		]);
	});

	it("only whitespace: the prompt alone; no prompt at all: exit 2", () => {
		expect(userTexts(["Why?"], " \n\n")).toEqual(["Why?"]);
		const none = cli.settle(["--faux", "--no-session", "-p"], " \n");
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("Error: no prompt.");
	});
});
