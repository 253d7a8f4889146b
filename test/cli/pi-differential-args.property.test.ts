/**
 * Randomized differential of command-line parsing against pi 0.73.1 (in process: pi's own
 * `parseArgs` from its dist, and Settle's). Random argument lists from both vocabularies (short
 * and long options, `--flag=value` and `--flag value`, repeats, missing values, invalid enum
 * values, extension flags, `--`, `-`, `@file` arguments, messages) must lead to the same thing a
 * user observes: the same run (options compared field by field, names mapped in pi-diff-args.ts)
 * or the same errors. No extension is loaded, so every extension flag ends as `Unknown option`.
 *
 * Differences taken out of the comparison, each where it is taken out below:
 * - "missing value": a value option as the last argument is `Option --x requires a value` in
 *   Settle; pi reads it as an extension flag / unknown short option and says `Unknown option: --x`.
 *   Same failure, Settle names the cause (BRIEF: bad input gets a clear error).
 * - "--": Settle ends the options at a bare `--` (what follows is messages, as is: Margin-Lab/evals#56);
 *   pi reads it as an extension flag named "" and fails with `Unknown option: --`. The command line
 *   before it is compared; the arguments after it must be Settle's last messages.
 * - "stricter": Settle rejects what pi silently ignores or resolves by precedence: an invalid
 *   `--mode` value (pi ignores it), an invalid `--thinking` level (pi warns with the same text and
 *   runs), two of `--session`/`--continue`/`--no-session` (pi: precedence), `--tools` with
 *   `--no-tools`, messages with `--mode rpc` (pi drops them), an empty or blank `--session`, `--fork` or `--session-dir`
 *   (pi#9733: pi resumes / forks the newest session, uses the default folder). Each Settle error is checked against
 *   pi's parse, which must show the ignored or overridden input.
 * - "Settle-only option": options pi lacks (list and reasons in pi-diff-args.ts); pi reports them
 *   as unknown, checked in their own property. pi has no option Settle lacks (`--theme` and
 *   `--no-themes` are parsed as pi parses them and change nothing).
 * Exit codes (pi 1, Settle 2 for a bad command line) are compared in the process differential.
 * PI_DIFF_ARG_RUNS=<n> runs each property n times (for a longer hunt than the default).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import {
	type ArgsView,
	parseBoth,
	SETTLE_ONLY_BOOLEAN,
	SETTLE_ONLY_VALUE,
	SHARED_VALUE,
	sharedToken,
	sharedUnit,
} from "./pi-diff-args.js";

/** Why a command line fails, as atomic facts: `unknown <option>` (parse error or extension flag), `error <text>`. */
function failureFacts(view: ArgsView): Set<string> {
	const facts = new Set<string>();
	for (const error of view.errors) {
		const unknown = /^Unknown option: (.*)$/.exec(error);
		facts.add(unknown ? `unknown ${unknown[1]}` : `error ${error}`);
	}
	for (const [name] of view.extensionFlags) facts.add(`unknown --${name}`);
	return facts;
}

/** Where a bare `--` ends Settle's options (one a value option takes as its value does not), or -1. */
function endOfOptions(argv: readonly string[]): number {
	return argv.findIndex(
		(arg, k) =>
			arg === "--" &&
			!parseArgs(argv.slice(0, k)).diagnostics.some((d) => d.message === `Option ${argv[k - 1]} requires a value`),
	);
}

const RPC_FILE_ARGS = "@file arguments are not supported in RPC mode";

/**
 * Compares one command line; returns whether both CLIs would run it. Throws (expect) on a
 * difference that is not one of the named ones.
 */
function compareOutcome(argv: readonly string[]): boolean {
	const { pi, settle } = parseBoth(argv);
	const end = endOfOptions(argv);
	if (end !== -1) {
		// "--": pi fails on it; Settle keeps what follows as messages.
		expect(failureFacts(pi)).toContain("unknown --");
		const rest = argv.slice(end + 1);
		expect(settle.messages.slice(settle.messages.length - rest.length)).toEqual(rest);
		return compareOutcome(argv.slice(0, end));
	}
	const piFacts = failureFacts(pi);
	// pi checks this right after parsing (main.js), with the text Settle's parser gives.
	if (pi.mode === "rpc" && pi.fileArgs.length > 0) piFacts.add(`error ${RPC_FILE_ARGS}`);

	const settleFacts = new Set<string>();
	let stricter = false;
	const last = argv[argv.length - 1];
	for (const fact of failureFacts(settle)) {
		const missing = /^error Option (\S+) requires a value$/.exec(fact);
		if (missing) {
			// "missing value": only the last argument can lack its value; pi calls it an unknown option.
			expect(missing[1]).toBe(last);
			expect(SHARED_VALUE).toContain(last);
			settleFacts.add(`unknown ${missing[1]}`);
			continue;
		}
		const mode = /^error Invalid mode "([\s\S]*)"\. Valid values: text, json, rpc, interactive$/.exec(fact);
		if (mode) {
			// "stricter": pi ignores an invalid --mode value.
			expect(argv.some((arg, i) => arg === "--mode" && argv[i + 1] === mode[1])).toBe(true);
			stricter = true;
			continue;
		}
		if (fact.startsWith("error Invalid thinking level ")) {
			// "stricter": pi prints the same text as a warning and runs with its default level.
			expect(pi.warnings).toContain(fact.slice("error ".length));
			stricter = true;
			continue;
		}
		if (fact === "error Use only one of --session <file>, --continue, --resume and --no-session.") {
			// "stricter": pi takes --no-session over --session over --resume over --continue.
			expect([pi.session !== undefined, pi.continue, pi.resume, pi.noSession].filter(Boolean).length).toBeGreaterThan(
				1,
			);
			stricter = true;
			continue;
		}
		const empty = /^error Option (--session|--session-dir|--fork) got an empty value /.exec(fact);
		if (empty) {
			// "stricter" (pi#9733): pi takes an empty --session (or --fork) as an id prefix matching every
			// session (it resumes, or forks, the newest) and an empty --session-dir as the default folder; Settle refuses a
			// blank value wherever it appears (also one a later repeat would override).
			const option = empty[1]!;
			const blank = (value: string | undefined) => value !== undefined && value.trim() === "";
			expect(
				argv.some(
					(arg, i) =>
						(arg === option && blank(argv[i + 1])) ||
						(arg.startsWith(`${option}=`) && blank(arg.slice(option.length + 1))),
				),
			).toBe(true);
			stricter = true;
			continue;
		}
		if (fact === "error Use either --tools <names> or --no-tools, not both.") {
			// "stricter": pi disables all tools and then allows the listed ones.
			expect(pi.tools !== undefined && pi.noTools).toBe(true);
			stricter = true;
			continue;
		}
		if (fact.startsWith("error --rpc reads commands from stdin;")) {
			// "stricter": pi's RPC mode ignores message arguments.
			expect(pi.mode === "rpc" && pi.messages.length > 0).toBe(true);
			stricter = true;
			continue;
		}
		settleFacts.add(fact);
	}
	// pi warns about an invalid --thinking level only; Settle must have rejected it (checked above).
	for (const warning of pi.warnings) expect(settle.errors).toContain(warning);
	expect(settle.warnings).toEqual([]);

	expect([...settleFacts].sort()).toEqual([...piFacts].sort());
	const bothRun = piFacts.size === 0 && !stricter;
	if (bothRun) {
		const { errors: _piErrors, warnings: _piWarnings, ...piRun } = pi;
		const { errors: _settleErrors, warnings: _settleWarnings, ...settleRun } = settle;
		expect(settleRun).toEqual(piRun);
	}
	return bothRun;
}

describe("command-line parsing beside pi 0.73.1", () => {
	it("well-formed command lines of shared options: the same run or the same errors", () => {
		let bothRan = 0;
		const numRuns = Number(process.env.PI_DIFF_ARG_RUNS ?? 1500);
		fc.assert(
			fc.property(fc.array(sharedUnit, { maxLength: 7 }), (units) => {
				if (compareOutcome(units.flat())) bothRan++;
			}),
			{ numRuns },
		);
		// The comparison of whole runs must actually happen, not only the one of errors.
		expect(bothRan).toBeGreaterThan(numRuns / 10);
	});

	it("any arguments from the shared vocabulary (missing and invalid values, --, -, @, stray dashes)", () => {
		fc.assert(
			fc.property(fc.array(sharedToken, { maxLength: 9 }), (argv) => {
				compareOutcome(argv);
			}),
			{
				numRuns: Number(process.env.PI_DIFF_ARG_RUNS ?? 3000),
				// Regression (stop 42's CI, seed 1429712772): a second bare `--` hid the message the first took in pi.
				examples: [[["--", "", "--", "--mode", "rpc"]]],
			},
		);
	});

	it("Settle-only option: pi reports Settle's own options as unknown", () => {
		const settleOnly = fc.oneof(
			fc.constantFrom(...SETTLE_ONLY_BOOLEAN).map((flag) => [flag]),
			fc.tuple(fc.constantFrom(...SETTLE_ONLY_VALUE), fc.constantFrom("dir", "script.json")).map((unit) => [...unit]),
		);
		fc.assert(
			fc.property(
				fc.array(sharedUnit, { maxLength: 3 }),
				settleOnly,
				fc.array(sharedUnit, { maxLength: 3 }),
				(before, flag, after) => {
					const argv = [...before.flat(), ...flag, ...after.flat()];
					const { pi, settle } = parseBoth(argv);
					const name = flag[0]!;
					expect(failureFacts(pi)).toContain(`unknown ${name}`);
					expect(failureFacts(settle)).not.toContain(`unknown ${name}`);
				},
			),
			{ numRuns: Number(process.env.PI_DIFF_ARG_RUNS ?? 300) },
		);
	});
});
