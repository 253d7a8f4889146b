/**
 * A script piping bytes that are not UTF-8 (a Latin-1 log, a binary file) into a one-shot run
 * (apfel#397: such stdin was silently read as empty, the run answered about nothing and exited 0).
 * Replayed against real `settle -p` child processes on the faux model (it answers with the prompt's
 * text). What the script should see: the run goes on with what could be read, and stderr says that
 * some of the input did not reach the model as written; valid UTF-8 passes without a word.
 *
 * A UTF-8 byte order mark ahead of the text (PowerShell pipes one into a native program when
 * `$OutputEncoding` is UTF-8 with BOM, mise#12925) is no text of the user's: the model gets the
 * prompt without it, with no warning, as from pi 0.73.1 (whose `trim()` drops it). A U+FEFF inside
 * the text is the text's own and stays.
 */
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { persistedUserTexts, sessionFilesUnder } from "./helpers.js";

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

	it("apfel#397: a UTF-16 file with its mark piped as it is (cmd's `type notes.txt | settle -p`): its text reaches the model, CRLF and an emoji kept, no warning", () => {
		const le = Buffer.from("\uFEFFcaf\u00e9: 3 errors \u{1F680}\r\nnext\r\n", "utf16le");
		for (const bytes of [le, Buffer.from(le).swap16()]) {
			expect(pipe(bytes)).toEqual({
				code: 0,
				stdout: "caf\u00e9: 3 errors \u{1F680}\r\nnext\n\nSummarize\n",
				stderr: "",
			});
		}
	});

	it("apfel#397: valid UTF-8 piped into settle -p (accents, an emoji): passed on as written, no warning", () => {
		const run = pipe(Buffer.from("café ☕ 🚀", "utf8"));
		expect(run).toEqual({ code: 0, stdout: "café ☕ 🚀\n\nSummarize\n", stderr: "" });
	});
});

/** `settle -p [prompt]` with `input` piped, saving its session: the run and the user texts of its session file. */
function pipeAndSave(input: Buffer, prompt?: string) {
	const run = runSettle(["--faux", "-p", ...(prompt === undefined ? [] : [prompt])], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		input,
	});
	const files = sessionFilesUnder(cli.agentDir);
	expect(files).toHaveLength(1);
	return { run, userTexts: persistedUserTexts(files[0]!) };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe("mise#12925: a UTF-8 byte order mark ahead of the piped prompt", () => {
	it("mise#12925: printf '\\xEF\\xBB\\xBFhello' | settle -p: the session file's user message is hello without the BOM, the answer alone on stdout, no warning, exit 0", () => {
		const { run, userTexts } = pipeAndSave(Buffer.concat([BOM, Buffer.from("hello")]));
		expect(run).toEqual({ code: 0, stdout: "hello\n", stderr: "" });
		expect(userTexts).toEqual(["hello"]);
	});

	it("mise#12925: the BOM-led stdin ahead of a prompt argument (settle -p Summarize): the message is the text, a blank line and the argument, no BOM", () => {
		const { run, userTexts } = pipeAndSave(Buffer.concat([BOM, Buffer.from("log line\n")]), "Summarize");
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(userTexts).toEqual(["log line\n\nSummarize"]);
	});

	it("mise#12925: a U+FEFF inside the piped text is the text's own: it reaches the session file where it was", () => {
		const { run, userTexts } = pipeAndSave(Buffer.concat([Buffer.from("a"), BOM, Buffer.from("b")]));
		expect(run).toEqual({ code: 0, stdout: "a\uFEFFb\n", stderr: "" });
		expect(userTexts).toEqual(["a\uFEFFb"]);
	});
});
