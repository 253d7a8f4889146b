/**
 * wave-agent#1753, opencode#30869: on a Chinese Windows (code page 936) a command's output came in
 * GBK; the bash tool decoded it as UTF-8, so the model read `�ɹ�: ����ֹ PID 123` for
 * `成功: 已终止 PID 123` and could not tell a build error from noise, nor get the text back. The same
 * holds here for any command printing Shift-JIS, GBK or Latin-1 (a legacy log, `cat` of an old
 * file). pi 0.73.1 (and Settle before) turned such bytes into U+FFFD without a word and kept
 * nothing else. What the model should get: word that the bytes were not UTF-8, and the bytes
 * themselves in a file it can convert.
 *
 * Real `settle --mode json` child processes running real bash over real files (bytes from iconv).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutputAccumulator } from "../../src/tools/output-accumulator.js";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-bash-legacy-encodings-");

const GBK_TEXT = "成功: 已终止 PID 123\n";

function runBash(commands: string[]) {
	const script = join(cli.dir, "script.json");
	writeFileSync(
		script,
		JSON.stringify([{ toolCalls: commands.map((command) => ({ name: "bash", arguments: { command } })) }, "done"]),
	);
	// The full-output file goes to the temp folder: the test's own, removed after it.
	const run = runSettle(["--faux-script", script, "--tools", "bash", "--mode", "json", "-p", "run it"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { TMPDIR: cli.dir },
	});
	expect(run.code).toBe(0);
	return toolEnds(run.stdout).map((end) => end.result.content[0]!.text!);
}

describe("wave-agent#1753, opencode#30869: GBK output decoded as UTF-8 reached the model as U+FFFD noise", () => {
	it("wave-agent#1753: cat of a GBK file says its bytes are not UTF-8 and names a file holding them, which iconv -f GBK turns back into the text", () => {
		const gbk = execFileSync("iconv", ["-f", "UTF-8", "-t", "GBK"], { input: GBK_TEXT });
		writeFileSync(join(cli.project, "taskkill.log"), gbk);

		const [text] = runBash(["cat taskkill.log"]);

		const path = /Full output: (\S+)\]$/.exec(text!)?.[1];
		// The report's own noise: each GBK character not valid UTF-8 became U+FFFD or a stray letter.
		expect(text).toBe(
			`\ufffdɹ\ufffd: \ufffd\ufffd\ufffd\ufffdֹ PID 123\n\n\n[Bytes that are not UTF-8 text are shown as \ufffd; the file keeps them: convert it with iconv -f <its encoding> -t UTF-8 (for example GBK, SHIFT_JIS, CP1252). Full output: ${path}]`,
		);
		expect(path!.startsWith(cli.dir)).toBe(true);
		expect(readFileSync(path!)).toEqual(gbk);
		expect(execFileSync("iconv", ["-f", "GBK", "-t", "UTF-8", path!], { encoding: "utf8" })).toBe(GBK_TEXT);
	});

	it("opencode#30869: UTF-8 output with CJK, an emoji and a U+FFFD of its own gets no such note and no file", () => {
		const [text] = runBash(["printf '构建失败 🚀 café\\n'; printf '\\xef\\xbf\\xbd done\\n'"]);
		expect(text).toBe("构建失败 🚀 café\n\ufffd done\n");
	});
});

describe("what counts as bytes that are not UTF-8", () => {
	const notUtf8 = (...chunks: number[][]) => {
		const output = new OutputAccumulator();
		for (const chunk of chunks) output.append(Buffer.from(chunk));
		output.finish();
		return output.snapshot().notUtf8;
	};

	it("a U+FFFD the command printed, its three bytes cut across chunks, and an emoji cut across chunks are UTF-8", () => {
		expect(notUtf8([0x61, 0xef], [0xbf], [0xbd, 0xf0, 0x9f], [0x9a, 0x80, 0x0a])).toBe(false);
	});

	it("a Latin-1 é, and a sequence the output ends inside, are not", () => {
		expect(notUtf8([0x63, 0x61, 0x66, 0xe9, 0x0a])).toBe(true);
		expect(notUtf8([0x61, 0xef, 0xbf, 0xbd], [0xf0, 0x9f])).toBe(true);
	});
});
