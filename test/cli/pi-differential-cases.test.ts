/**
 * Fixed cases of the CLI differential against pi 0.73.1 (real child processes, as in
 * pi-differential-process.property.test.ts): bad command lines, `--help`, `--version`, no prompt,
 * `--list-models [search]`, which of those wins when several are given, and pi's bugs pinned on
 * both sides. Named differences: "exit code 2"
 * (Settle's code for a bad command line, README "Exit codes"; pi exits 1), "help pointer" (after a
 * parse error Settle adds `Run settle --help for the options.`), "session not found" (Settle's
 * message names where it looked), "branding" (help text, version
 * number), "no prompt" (Settle refuses to run without one; pi exits 0 silently), "list format"
 * (pi: a table, fuzzy search; Settle: one `provider/id` line per model, substring search, README).
 * `--export` is compared in its own case (the pages differ by design: only messages, codes, files).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliRun, useCliProject } from "./helpers.js";
import { freshDirs, runBoth, runPiCli, runSettleCli, sessionFiles } from "./pi-diff-process.js";

const cli = useCliProject("settle-pi-diff-cases-");
const HELP_POINTER = "Run settle --help for the options.\n";

describe("CLI cases beside pi 0.73.1", () => {
	it("bad command lines: the same error text; exit code 2 in Settle where pi exits 1", async () => {
		const dirs = freshDirs(cli.dir);
		const cases: [args: string[], stderr: string, parseError: boolean][] = [
			[["-p", "x", "--a", "--b=1"], "Error: Unknown options: --a, --b\n", true],
			[["-p", "@missing.txt", "x"], `Error: File not found: ${join(dirs.project, "missing.txt")}\n`, false],
			[["--mode", "rpc", "@a.txt"], "Error: @file arguments are not supported in RPC mode\n", true],
		];
		await Promise.all(
			cases.map(async ([args, stderr, parseError]) => {
				const { pi, settle } = await runBoth(dirs, args);
				expect(pi).toEqual({ code: 1, stdout: "", stderr });
				// "exit code 2" and "help pointer".
				expect(settle).toEqual({ code: 2, stdout: "", stderr: parseError ? `${stderr}${HELP_POINTER}` : stderr });
			}),
		);
		// "session not found": both refuse a --session id no session has, and start none; Settle's
		// message says where it looked and what there is (the same rule as its "exit code 2").
		const unknownId = await runBoth(dirs, ["--session", "zzzz", "-p", "x"]);
		expect(unknownId.pi).toEqual({ code: 1, stdout: "", stderr: "No session found matching 'zzzz'\n" });
		expect(unknownId.settle.code).toBe(2);
		expect(unknownId.settle.stderr).toMatch(/^Error: No session of this project has an id starting with zzzz \(in /);
		expect(sessionFiles(dirs.piAgent)).toEqual([]);
		expect(sessionFiles(dirs.settleAgent)).toEqual([]);
	}, 90_000);

	it("--help, no prompt, --list-models [search]: the named differences only", async () => {
		const dirs = freshDirs(cli.dir);
		// pi writes these on stderr when stdin is not a terminal (pi bug "help on stderr", pinned below):
		// its text is compared wherever it went.
		const out = (run: CliRun) => run.stdout + run.stderr;
		const [help, none, ...lists] = await Promise.all([
			runBoth(dirs, ["--help"]),
			runBoth(dirs, ["-p"]),
			...[["aux-1"], ["zzz"]].map((search) => runBoth(dirs, ["--list-models", ...search])),
		]);
		// "branding": each prints its own help text, exit 0.
		expect([help.pi.code, help.settle.code, help.settle.stderr]).toEqual([0, 0, ""]);
		expect(out(help.pi)).toContain("pi [options] [@files...] [messages...]");
		expect(help.settle.stdout).toContain("@<file> arguments put a file's text");
		// (--version: in the pinned pi bug "help on stderr" below.)

		// "no prompt": pi runs nothing and exits 0; Settle says what is missing, exit 2.
		expect(none.pi).toEqual({ code: 0, stdout: "", stderr: "" });
		expect(none.settle.code).toBe(2);
		expect(none.settle.stderr).toMatch(/^Error: no prompt\./);

		// "list format": the models listed agree (only the faux model has credentials here).
		const listed = (text: string) => [...text.matchAll(/\bfaux(?:\/|\s+)faux-1\b/g)].length;
		for (const list of lists.slice(0, 1)) {
			expect([list.pi.code, list.settle.code, listed(out(list.pi)), listed(list.settle.stdout)]).toEqual([0, 0, 1, 1]);
		}
		const nothing = lists[1]!;
		expect(nothing.pi.code).toBe(0);
		expect(out(nothing.pi)).toBe('No models matching "zzz"\n');
		expect(nothing.settle).toEqual({ code: 0, stdout: "", stderr: 'No model matches "zzz" (1 available).\n' });
	}, 90_000);
});

describe("--version, --help, --list-models together", () => {
	it("the same one wins as in pi, whatever the order: --version, then --help, then --list-models", async () => {
		const dirs = freshDirs(cli.dir);
		// What a run printed (pi writes these on stderr when stdin is not a terminal: pinned below).
		const printed = (run: CliRun): string => {
			const text = run.stdout + run.stderr;
			if (/^\d+\.\d+\.\d+\n$/.test(text)) return "version";
			// Each one's own help text ("branding" above).
			if (
				text.includes("pi [options] [@files...] [messages...]") ||
				text.includes("@<file> arguments put a file's text")
			)
				return "help";
			if (/\bfaux(?:\/|\s+)faux-1\b/.test(text)) return "models";
			return `other: ${text.slice(0, 200)}`;
		};
		const cases: [args: string[], wins: string][] = [
			[["--help", "--version"], "version"],
			[["--version", "--help"], "version"],
			[["-h", "-v"], "version"],
			[["--list-models", "--help"], "help"],
			[["--help", "--list-models"], "help"],
			[["--list-models", "--version"], "version"],
			[["--list-models", "faux", "-h", "-v"], "version"],
		];
		const runs = await Promise.all(cases.map(([args]) => runBoth(dirs, args)));
		const seen = runs.map(({ pi, settle }, i) => ({
			args: cases[i]![0].join(" "),
			pi: [pi.code, printed(pi)],
			settle: [settle.code, printed(settle)],
		}));
		expect(seen).toEqual(cases.map(([args, wins]) => ({ args: args.join(" "), pi: [0, wins], settle: [0, wins] })));
	}, 90_000);
});

describe("--export beside pi 0.73.1", () => {
	it("--export <file> [out]: the same messages and exit codes; default pages named after each CLI ('branding'), pi's on stderr ('help on stderr'), 'creates folders'", async () => {
		const dirs = freshDirs(cli.dir);
		// A session pi wrote, and one Settle wrote: each CLI exports both (same file format).
		const made = await Promise.all([runPiCli(dirs, ["-p", "hello"]), runSettleCli(dirs, ["-p", "hello"])]);
		expect(made.map((run) => run.code)).toEqual([0, 0]);
		const files = [...sessionFiles(dirs.piAgent), ...sessionFiles(dirs.settleAgent)];
		expect(files).toHaveLength(2);
		const out = (run: CliRun) => run.stdout + run.stderr;
		for (const file of files) {
			const name = basename(file, ".jsonl");
			// Default name, in the cwd, and a named output: four runs at once, each writing its own file
			// (the loop's turns run one after the other: each turn writes pi.html and settle.html).
			const [defaults, named] = await Promise.all([
				runBoth(dirs, ["--export", file]),
				runBoth(dirs, (side) => ["--export", file, `${side}.html`]),
			]);
			const { pi, settle } = defaults;
			expect([pi.code, out(pi)]).toEqual([0, `Exported to: pi-session-${name}.html\n`]);
			expect(settle).toEqual({ code: 0, stdout: `Exported to: settle-session-${name}.html\n`, stderr: "" });
			expect(existsSync(join(dirs.project, `pi-session-${name}.html`))).toBe(true);
			expect(existsSync(join(dirs.project, `settle-session-${name}.html`))).toBe(true);
			// The first message is the output path (relative to the cwd), printed as given.
			expect([named.pi.code, out(named.pi)]).toEqual([0, "Exported to: pi.html\n"]);
			expect(named.settle).toEqual({ code: 0, stdout: "Exported to: settle.html\n", stderr: "" });
		}
		// "creates folders": an output path in a missing folder fails in pi; Settle creates the folder.
		// (pi first: Settle's run creates the folder. The missing-file runs write nothing: they run beside.)
		const missingRuns = runBoth(dirs, ["--export", "missing.jsonl"]);
		const nested = {
			pi: await runPiCli(dirs, ["--export", files[0]!, "pages/pi.html"]),
			settle: await runSettleCli(dirs, ["--export", files[0]!, "pages/settle.html"]),
		};
		expect([nested.pi.code, out(nested.pi)]).toEqual([
			1,
			"Error: ENOENT: no such file or directory, open 'pages/pi.html'\n",
		]);
		expect(nested.settle).toEqual({ code: 0, stdout: "Exported to: pages/settle.html\n", stderr: "" });
		expect(existsSync(join(dirs.project, "pages", "settle.html"))).toBe(true);
		// A missing file: the same error, exit 1.
		const missing = await missingRuns;
		expect(missing.pi).toEqual({ code: 1, stdout: "", stderr: "Error: File not found: missing.jsonl\n" });
		expect(missing.settle).toEqual(missing.pi);
	}, 120_000);
});

describe("pi 0.73.1 bugs, pinned on both sides", () => {
	it("stdin glued to the prompt (pi#7863): pi joins piped text and the first prompt without a separator", async () => {
		const dirs = freshDirs(cli.dir);
		const { pi, settle } = await runBoth(dirs, ["-p", "Why?"], { input: "the log says ENOENT\n" });
		expect(pi).toEqual({ code: 0, stdout: "the log says ENOENTWhy?\n", stderr: "" });
		expect(settle).toEqual({ code: 0, stdout: "the log says ENOENT\n\nWhy?\n", stderr: "" });
	}, 90_000);

	it("help on stderr: with stdin not a terminal, pi's --version (like --help, --list-models) writes to stderr", async () => {
		const dirs = freshDirs(cli.dir);
		const { pi, settle } = await runBoth(dirs, ["--version"]);
		expect(pi).toEqual({ code: 0, stdout: "", stderr: "0.73.1\n" });
		expect(settle).toMatchObject({ code: 0, stderr: "" });
		expect(settle.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
	}, 90_000);
});
