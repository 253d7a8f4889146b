/**
 * A script piping bytes that are not UTF-8 (a Latin-1 log, a binary file) into a one-shot run
 * (apfel#397: such stdin was silently read as empty, the run answered about nothing and exited 0).
 * Replayed against real `settle -p` child processes on the faux model (it answers with the prompt's
 * text). What the script should see: the run goes on with what could be read, and stderr says that
 * some of the input did not reach the model as written; valid UTF-8 passes without a word.
 */
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-stdin-encoding-");

const NOT_UTF8_WARNING =
	"Warning: piped stdin holds bytes that are not UTF-8 text; the model gets U+FFFD (�) in their place. Convert it first (iconv -f latin1 -t utf-8), or attach an image as @file.\n";

function pipe(input: Buffer) {
	return runSettle(["--faux", "--no-session", "-p", "Summarize"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		input,
	});
}

describe("apfel#397: piped stdin that is not UTF-8", () => {
	it("apfel#397: Latin-1 bytes piped into settle -p: the rest of the text reaches the model, stderr warns that some bytes did not, stdout holds only the answer, exit 0", () => {
		const run = pipe(Buffer.from("caf\xe9 au lait: 3 errors", "latin1"));
		expect(run).toEqual({
			code: 0,
			stdout: "caf\uFFFD au lait: 3 errors\n\nSummarize\n",
			stderr: NOT_UTF8_WARNING,
		});
	});

	it("apfel#397: valid UTF-8 piped into settle -p (accents, an emoji): passed on as written, no warning", () => {
		const run = pipe(Buffer.from("café ☕ 🚀", "utf8"));
		expect(run).toEqual({ code: 0, stdout: "café ☕ 🚀\n\nSummarize\n", stderr: "" });
	});
});
