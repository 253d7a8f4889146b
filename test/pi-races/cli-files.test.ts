/**
 * Reports about the files a real `settle` process reads and appends to, replayed against the CLI on
 * the faux model. pi#1054: a trailing comma in `settings.json`, and pi overwrote the file with
 * `{ "lastChangelogVersion": … }`: every setting lost. pi#7829: a `settings.json` that does not
 * parse (a Windows path with single backslashes) silently ignored; the user chased a misleading
 * "bash not found" instead. prime-agent#928 (a pi fork): a crash cut the session file's last line
 * mid-write; resuming appended the next entry right after the fragment, the two became one line that
 * does not parse, and the new entry was lost on every later open. What those users should see: the
 * run refused with the file, the line and the fix, and the file's bytes kept; a torn line set aside
 * and reported, every entry written afterwards read back.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { persistedUserTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-files-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

function sessionFiles(): string[] {
	const root = join(cli.agentDir, "sessions");
	if (!existsSync(root)) return [];
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(root, name));
}

describe("pi#1054 / pi#7829: a settings.json that does not parse", () => {
	const broken = [
		["pi#1054", "a trailing comma", '{\n  "defaultThinkingLevel": "high",\n  "theme": "light",\n}\n', "line 4"],
		[
			"pi#7829",
			"a Windows path with single backslashes",
			'{\n  "defaultThinkingLevel": "high",\n  "shellPath": "C:\\Users\\office\\bash.exe"\n}\n',
			"line 3",
		],
	] as const;
	for (const [report, what, text, line] of broken) {
		it(`${report}: ${what}: settle -p refuses, naming the file and the line; the file keeps its bytes; no request, no session`, () => {
			mkdirSync(cli.agentDir, { recursive: true });
			const settings = join(cli.agentDir, "settings.json");
			writeFileSync(settings, text);
			const run = runSettle(["--faux", "-p", "Say exactly: hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: HANG_GUARD_MS,
			});
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain(settings);
			expect(run.stderr).toContain(line);
			expect(run.stderr).toMatch(/Fix the file \(or delete it\)/);
			expect(readFileSync(settings, "utf8")).toBe(text);
			expect(sessionFiles()).toEqual([]);
		});
	}
});

describe("prime-agent#928: a session file whose last line a crash cut off", () => {
	it("prime-agent#928: resumed with --session, the torn line is set aside and reported; the entries written afterwards are read back by the next run", () => {
		const first = runSettle(["--faux", "-p", "Say exactly: first"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(first.code).toBe(0);
		const [file] = sessionFiles();
		expect(file).toBeDefined();
		const torn =
			'{"type":"message","id":"0badc0de","parentId":null,"timestamp":"2026-12-04T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"cut off';
		writeFileSync(file!, readFileSync(file!, "utf8") + torn);

		const second = runSettle(["--faux", "--session", file!, "-p", "Say exactly: second"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(second.code).toBe(0);
		expect(second.stdout).toBe("Say exactly: second\n");
		expect(second.stderr).toMatch(/was cut off mid-write and not loaded/);
		const setAside = readdirSync(join(file!, "..")).filter((name) => name.endsWith(".torn"));
		expect(setAside).toHaveLength(1);
		expect(readFileSync(join(file!, "..", setAside[0]!), "utf8")).toBe(torn);

		const third = runSettle(["--faux", "--session", file!, "-p", "Say exactly: third"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(third.code).toBe(0);
		expect(third.stderr).toBe("");
		expect(persistedUserTexts(file!)).toEqual(["Say exactly: first", "Say exactly: second", "Say exactly: third"]);
	});
});
