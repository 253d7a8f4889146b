/**
 * Doc-tests: every code example a user can copy (each ```ts block under an `@example` in src/**,
 * and each ```ts block of README.md / DESIGN.md / docs/) type-checks as written under the project's
 * strict options, in ONE TypeScript program; the complete ones also run offline and must not throw.
 * Every export of the package entry points carries TSDoc.
 *
 * How an example becomes a module (see scratch.ts): its lines unchanged, after one line importing
 * the package names it uses without importing them (from "settle", "settle/testing" or
 * "settle/inspect", else from the module that declares the documented item); "settle…" resolves to
 * the sources through tsconfig `paths`. Names it uses from context come from the typed prelude
 * (prelude.ts). `noUnusedLocals/Parameters` are off for examples only: a fragment that shows a
 * result (`const stats = …`) need not use it.
 *
 * Which examples run: those that need nothing from the prelude, declare nothing ambient
 * (`declare const …`) and import no file of the reader's (`./my-extension.js`): complete programs.
 * They run in one child process, each in a fresh temp dir as cwd, with HOME, TMPDIR and
 * SETTLE_AGENT_DIR inside the scratch dir. Such an example must touch only its cwd: one that works on
 * the reader's project takes `cwd` from the prelude, which makes it a fragment (checked, not run). A line `expr; // <literal>` (or `console.log(expr); //
 * <literal>`) in such an example is a claim: the run checks that expr equals the literal. Prose
 * comments, and literals abbreviated with `…`, are not checked.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodeExample, collectSourceFacts, SOURCE_DIRS, type SourceFacts, sharedSourceHost } from "./collect.js";
import { OPT_OUT_MARKER, type ScratchModule, writeScratch } from "./scratch.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Outside test/ so the project's own typecheck never sees the generated modules or the prelude; one
// dir per process so two test runs in the same checkout do not overwrite each other's modules.
const SCRATCH = join(ROOT, ".tmp", `doctest-${process.pid}`);

let facts: SourceFacts;
let modules: ScratchModule[];
let optedOut: CodeExample[];
let failing: Set<ScratchModule>;
let typeErrors: string[];

const where = (example: CodeExample) => `${example.file}:${example.line} ${example.name}`;

/** The options of a tsconfig file, or an error saying which file does not parse. */
function parsedConfig(file: string): ts.ParsedCommandLine {
	const config = ts.getParsedCommandLineOfConfigFile(
		file,
		{},
		{
			...ts.sys,
			onUnRecoverableConfigFileDiagnostic: (d) => {
				throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
			},
		},
	);
	if (!config || config.errors.length > 0) throw new Error(`${file} does not parse`);
	return config;
}

beforeAll(() => {
	// The sources are read under the project's options, with the host the examples' program reuses:
	// each source and declaration file is parsed and bound once for both programs.
	const project = parsedConfig(join(ROOT, "tsconfig.json"));
	const host = sharedSourceHost(project.options);
	facts = collectSourceFacts(ROOT, { options: project.options, host });
	({ modules, optedOut } = writeScratch(ROOT, SCRATCH, facts));
	const config = parsedConfig(join(SCRATCH, "tsconfig.json"));
	const program = ts.createProgram({
		rootNames: config.fileNames,
		options: { ...config.options, noEmit: true },
		host,
	});
	failing = new Set();
	typeErrors = [];
	for (const module of modules) {
		const source = program.getSourceFile(module.path);
		if (!source) throw new Error(`not in the program: ${module.path}`);
		const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
		for (const d of diagnostics) {
			failing.add(module);
			// Line 1 of the module is the implicit-import line: code line k is module line k + 1.
			const line = source.getLineAndCharacterOfPosition(d.start ?? 0).line;
			const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
			typeErrors.push(`${module.example.file}:${module.example.line + line - 1} ${module.example.name}: ${message}`);
		}
	}
}, 120_000); // one program, usually < 10 s; a loaded 2-core box can take several times that

afterAll(() => {
	rmSync(SCRATCH, { recursive: true, force: true });
});

describe("code examples", () => {
	it("finds every @example block in src and machines and every ts block of the Markdown docs", () => {
		// An independent count: each `@example` tag in src and machines opens exactly one ```ts block.
		let tags = 0;
		const walk = (dir: string): void => {
			for (const entry of readdirSync(dir, { withFileTypes: true })) {
				const path = join(dir, entry.name);
				if (entry.isDirectory()) walk(path);
				else if (entry.name.endsWith(".ts")) tags += readFileSync(path, "utf8").split("@example").length - 1;
			}
		};
		for (const dir of SOURCE_DIRS) walk(join(ROOT, dir));
		const fromSource = facts.examples.filter((e) => SOURCE_DIRS.some((dir) => e.file.startsWith(`${dir}/`)));
		expect(fromSource.length).toBe(tags);
		// machines/ holds published TSDoc too (settle/inspect exports the machine definitions).
		expect(fromSource.some((e) => e.file.startsWith("machines/") && e.name === "promptOperationMachine")).toBe(true);
		expect(facts.examples.some((e) => e.file === "README.md" && e.name === "The SDK in one example")).toBe(true);
	});

	it("type-checks every example with the project's strict options", () => {
		expect(typeErrors).toEqual([]);
	});

	it(`marks pseudo-code only with "${OPT_OUT_MARKER}: <why>"`, () => {
		const withoutReason = optedOut.filter((e) => !/^\/\/ pseudo-code: \S/.test(e.code.trimStart()));
		expect(withoutReason.map(where)).toEqual([]);
		// The opted-out blocks are listed in the test output, so they stay visible in CI logs.
		const runnable = modules.filter((m) => m.runnable);
		const checks = runnable.reduce((sum, m) => sum + m.resultChecks, 0);
		console.info(
			[
				`doctest: ${facts.examples.length} examples, ${modules.length} type-checked, ${runnable.length} run ` +
					`(${checks} result comments checked), ${optedOut.length} opted out`,
				...optedOut.map((e) => `  pseudo-code: ${where(e)}`),
			].join("\n"),
		);
	});

	it("runs every complete example offline without an error", () => {
		const runnable = modules.filter((m) => m.runnable && !failing.has(m));
		expect(runnable.length).toBeGreaterThan(0);
		const tmp = join(SCRATCH, "tmp");
		mkdirSync(tmp, { recursive: true });
		const results = join(SCRATCH, "results.jsonl");
		const child = spawnSync(
			process.execPath,
			["--import", "tsx", join(ROOT, "test", "doctest", "run-examples.ts"), results, ...runnable.map((m) => m.runPath)],
			{
				cwd: ROOT,
				encoding: "utf8",
				timeout: 90_000,
				env: {
					...process.env,
					TSX_TSCONFIG_PATH: join(SCRATCH, "tsconfig.json"),
					HOME: tmp,
					TMPDIR: tmp,
					SETTLE_AGENT_DIR: join(tmp, "agent"),
					// Offline for npm too: runPackageCommand's example (`install npm:pi-tools`) asked the
					// registry (seconds of waiting, a 404) where npm now fails at once from its empty cache.
					npm_config_offline: "true",
				},
			},
		);
		const outcomes = new Map<string, string | undefined>();
		for (const line of readFileSync(results, "utf8").split("\n").filter(Boolean)) {
			const { path, ok, error } = JSON.parse(line) as { path: string; ok: boolean; error?: string };
			outcomes.set(path, ok ? undefined : error?.split("\n")[0]);
		}
		const problems = runnable.flatMap((m) => {
			if (!outcomes.has(m.runPath))
				return [`${where(m.example)}: did not finish (child ${child.signal ?? child.status})`];
			const error = outcomes.get(m.runPath);
			return error === undefined ? [] : [`${where(m.example)}: ${error}`];
		});
		expect(problems).toEqual([]);
		// Every example returned, and nothing they left behind (a timer, a child process) kept node alive.
		expect({ status: child.status, signal: child.signal }).toEqual({ status: 0, signal: null });
	}, 150_000); // the child's own 90 s limit reports a hang with what finished; this one must not fire first
});

describe("TSDoc coverage", () => {
	it("documents every export of the package entry points", () => {
		expect(facts.undocumented).toEqual([]);
	});
});
