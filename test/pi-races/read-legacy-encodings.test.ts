/**
 * openclaw#92664, opencode#31604: a text file saved in GBK (Notepad's "ANSI" on a Chinese
 * Windows, a .NET program's log) was read as UTF-8: the model got `GBK \n˾ŷʢԶ` for
 * `GBK 编码测试\n公司：深圳欧盛自动化`, took the noise for the file, and had no hint that another
 * decoding would give the text. pi 0.73.1 (and Settle before) sends the U+FFFD noise without a word.
 * What the model should get: word that the file is not UTF-8, and the command that reads it.
 *
 * Real `settle --mode json` child processes reading real files; the note's command run in real bash.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-read-legacy-encodings-");

const GBK_TEXT = "GBK 编码测试\n公司：深圳欧盛自动化\n";
const NOTE = (path: string) =>
	`[${path} is not UTF-8 text (each sequence of its bytes that is not shows as \ufffd), and edit refuses it. To read it, convert it with bash: iconv -f <its encoding> -t UTF-8 ${path} (for example GBK, SHIFT_JIS, CP1252).]`;

/** The model's tool calls, one turn each; the results' texts in order. */
function run(calls: { name: string; arguments: Record<string, unknown> }[]) {
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([...calls.map((call) => ({ toolCalls: [call] })), "done"]));
	const result = cli.settle(["--faux-script", script, "--tools", "read,bash", "--mode", "json", "-p", "read it"]);
	expect(result.code).toBe(0);
	return toolEnds(result.stdout).map((end) => end.result.content[0]!.text!);
}

describe("openclaw#92664, opencode#31604: a GBK file read as UTF-8 gave the model noise and no hint", () => {
	it("openclaw#92664: read of a GBK file says it is not UTF-8 and names the iconv command, which the model runs to get the text", () => {
		writeFileSync(
			join(cli.project, "company.txt"),
			execFileSync("iconv", ["-f", "UTF-8", "-t", "GBK"], { input: GBK_TEXT }),
		);

		const [read, converted] = run([
			{ name: "read", arguments: { path: "company.txt" } },
			{ name: "bash", arguments: { command: "iconv -f GBK -t UTF-8 company.txt" } },
		]);

		expect(read).toMatch(/^GBK \ufffd/);
		expect(read!.endsWith(`\n\n${NOTE("company.txt")}`)).toBe(true);
		expect(converted).toBe(GBK_TEXT);
	});

	it("opencode#31604: a UTF-8 file of CJK lines whose characters straddle the read's 256 KB chunks gets no note; one ending inside a character does", () => {
		// 100 lines of 2,700 three-byte characters: 262,144 (256 KB) is not a multiple of 3.
		const lines = `${Array.from({ length: 100 }, () => "日".repeat(2700)).join("\n")}\n`;
		writeFileSync(join(cli.project, "wide.txt"), lines);
		writeFileSync(join(cli.project, "cut.txt"), Buffer.from("编码", "utf8").subarray(0, 5));

		const [wide, cut] = run([
			{ name: "read", arguments: { path: "wide.txt", offset: 95 } },
			{ name: "read", arguments: { path: "cut.txt" } },
		]);

		expect(wide).toBe(`${Array.from({ length: 6 }, () => "日".repeat(2700)).join("\n")}\n`);
		expect(cut).toBe(`编\ufffd\n\n${NOTE("cut.txt")}`);
	});
});
