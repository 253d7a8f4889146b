/**
 * `--session <id-prefix>` side by side with pi 0.73.1 (its own CLI on the faux model, offline), in
 * the same project with the same sessions. Where pi guesses, Settle asks for more: pi resumes the
 * newest of several matching sessions without a word, and offers (on the terminal) to fork another
 * project's matching session here; Settle lists the matches, or names the other project and the
 * command that resumes it there, and writes nothing (exit 2). A unique prefix resumes in both.
 * Each test's first pi session is written by pi's SDK in this process ({@link piFirstSession}, the
 * session `pi -p` writes): the `--session` lookups compared are pi's CLI runs.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
import { AuthStorage, createAgentSession, ModelRegistry, SessionManager } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDefaultSessionDir } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { type DiffDirs, makeDiffDirs, runPiCli, runSettleCli } from "./pi-diff-process.js";

let root: string;
let dirs: DiffDirs;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "settle-session-prefix-pi-"));
	dirs = makeDiffDirs(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Cli = "pi" | "settle";
const run = (cli: Cli, args: string[], input = "") =>
	cli === "pi" ? runPiCli(dirs, args, { input }) : runSettleCli(dirs, args, { input });
const agentDir = (cli: Cli) => (cli === "pi" ? dirs.piAgent : dirs.settleAgent);

/** The session files of `cli` for project `cwd` (its default session dir). */
function sessionFiles(cli: Cli): string[] {
	const sessions = join(agentDir(cli), "sessions");
	return readdirSync(sessions).flatMap((folder) =>
		readdirSync(join(sessions, folder)).map((name) => join(sessions, folder, name)),
	);
}

/** A copy of `file` beside it as another session with the header id `id` (and, optionally, another cwd). */
function copyWithId(file: string, id: string, cwd?: string): string {
	const [header, ...rest] = readFileSync(file, "utf8").split("\n");
	const renamed = { ...(JSON.parse(header!) as object), id, ...(cwd ? { cwd } : {}) };
	const folder = cwd
		? join(dirname(dirname(file)), `--${cwd.replace(/^\//, "").replace(/\//g, "-")}--`)
		: dirname(file);
	mkdirSync(folder, { recursive: true });
	const path = join(folder, `2020-01-01T00-00-00-000Z_${id}.jsonl`);
	writeFileSync(path, [JSON.stringify(renamed), ...rest].join("\n"));
	return path;
}

/**
 * The session `pi -p <prompt>` starts in the project (pi's default session folder of its agent dir),
 * written by pi's SDK in this process on the faux model the CLI peer uses, answering as it does
 * (the prompt echoed). A pi child would cost ~2 s of CPU for what the lookups only read.
 */
async function piFirstSession(prompt: string): Promise<void> {
	const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });
	try {
		faux.setResponses([fauxAssistantMessage(prompt)]);
		const authStorage = AuthStorage.inMemory();
		authStorage.setRuntimeApiKey("faux", "faux-key");
		const { session } = await createAgentSession({
			cwd: dirs.project,
			agentDir: dirs.piAgent,
			model: faux.getModel(),
			authStorage,
			modelRegistry: ModelRegistry.inMemory(authStorage),
			sessionManager: SessionManager.create(dirs.project, getDefaultSessionDir(dirs.project, dirs.piAgent)),
		});
		await session.prompt(prompt);
		session.dispose();
	} finally {
		faux.unregister();
	}
}

/** Each CLI starts one session of the project with `prompt` (pi: {@link piFirstSession}); returns its file. */
async function firstSession(cli: Cli, prompt: string): Promise<string> {
	if (cli === "pi") {
		await piFirstSession(prompt);
		const [file] = sessionFiles(cli);
		return file!;
	}
	const started = await run(cli, ["-p", prompt]);
	expect(started.code, started.stderr).toBe(0);
	const [file] = sessionFiles(cli);
	return file!;
}

describe("--session <id-prefix>, pi and Settle side by side", () => {
	it("several matches: pi resumes one of them silently; Settle lists them and writes nothing (exit 2)", async () => {
		for (const cli of ["pi", "settle"] as const) {
			const file = await firstSession(cli, "first question");
			const copies = [1, 2].map((n) => copyWithId(file, `0badc0de-0000-7000-8000-00000000000${n}`));
			const before = copies.map((path) => readFileSync(path, "utf8"));
			const resumed = await run(cli, ["-p", "--session", "0badc0de", "hi"]);
			const written = copies.filter((path, index) => readFileSync(path, "utf8") !== before[index]);
			if (cli === "pi") {
				expect(resumed).toMatchObject({ code: 0, stdout: "hi\n" });
				expect(written).toHaveLength(1);
			} else {
				expect(resumed.code).toBe(2);
				expect(resumed.stderr).toContain("2 sessions of this project have an id starting with 0badc0de: ");
				expect(resumed.stderr).toContain("Give more of the id.");
				expect(written).toEqual([]);
			}
		}
	});

	it("pi#9733: an empty --session (an unset shell variable): the report's pi resumed the newest session, pi 0.73.1 starts a new one, both without a word; Settle refuses the empty value and writes nothing (exit 2), and so for --session-dir", async () => {
		for (const cli of ["pi", "settle"] as const) {
			const file = await firstSession(cli, "first question");
			const copy = copyWithId(file, "0badc0de-0000-7000-8000-000000000001");
			const files = [file, copy];
			const before = files.map((path) => readFileSync(path, "utf8"));
			const written = () => files.filter((path, index) => readFileSync(path, "utf8") !== before[index]);
			const resumed = await run(cli, ["-p", "--session", "", "go on"]);
			if (cli === "pi") {
				// pi 0.73.1 takes the empty value for no --session at all (the report's later pi matched it
				// against every id and resumed the newest).
				expect(resumed).toMatchObject({ code: 0, stdout: "go on\n" });
				expect(written()).toEqual([]);
				expect(sessionFiles(cli)).toHaveLength(3);
				continue;
			}
			expect(resumed.code).toBe(2);
			expect(resumed.stdout).toBe("");
			expect(resumed.stderr).toContain(
				"Error: Option --session got an empty value (an unset shell variable?): give a session file or id, or leave --session out.",
			);
			// Empty, --session-dir fell back to the default folder and started a session there.
			const inDir = await run(cli, ["-p", "--session-dir", "", "go on"]);
			expect(inDir.code).toBe(2);
			expect(inDir.stderr).toContain("Error: Option --session-dir got an empty value (an unset shell variable?)");
			expect(written()).toEqual([]);
			expect(sessionFiles(cli).sort()).toEqual([...files].sort());
		}
	});

	it("a unique prefix resumes that session in both", async () => {
		for (const cli of ["pi", "settle"] as const) {
			const file = await firstSession(cli, "first question");
			const copy = copyWithId(file, "0badc0de-0000-7000-8000-000000000001");
			const resumed = await run(cli, ["-p", "--session", "0badc0de", "hi"]);
			expect(resumed).toMatchObject({ code: 0, stdout: "hi\n" });
			expect(readFileSync(copy, "utf8")).toContain('"hi"');
		}
	});

	it("no match anywhere: pi exits 1, Settle exits 2 naming the project's latest sessions", async () => {
		for (const cli of ["pi", "settle"] as const) await firstSession(cli, "first question");
		const pi = await run("pi", ["-p", "--session", "ffffffff", "hi"]);
		expect(pi.code).toBe(1);
		expect(pi.stderr).toContain("No session found matching 'ffffffff'");
		const settle = await run("settle", ["-p", "--session", "ffffffff", "hi"]);
		expect(settle.code).toBe(2);
		expect(settle.stderr).toContain("No session of this project has an id starting with ffffffff (in ");
		expect(settle.stderr).toContain('"first question")');
	});

	it("another project's session: pi offers to fork it here (no: aborted); Settle names the project and how to resume it there", async () => {
		const other = join(root, "other");
		mkdirSync(other);
		const copies = [];
		for (const cli of ["pi", "settle"] as const) {
			const file = await firstSession(cli, "over there");
			copies.push(copyWithId(file, "0badc0de-0000-7000-8000-000000000001", other));
			rmSync(file);
		}
		const pi = await run("pi", ["-p", "--session", "0badc0de", "hi"], "n\n");
		// pi's print mode sends console output to stderr; answering no ends it (exit 0) with nothing run.
		expect(pi).toEqual({
			code: 0,
			stdout: "",
			stderr: `Session found in different project: ${other}\nFork this session into current directory? [y/N] Aborted.\n`,
		});
		const settle = await run("settle", ["-p", "--session", "0badc0de", "hi"]);
		expect(settle.code).toBe(2);
		expect(settle.stderr).toContain(
			`of the project ${other} does. To resume it there: settle --cwd ${other} --session ${copies[1]}\n`,
		);
		expect(readFileSync(copies[1]!, "utf8")).not.toContain('"hi"');
	});
});
