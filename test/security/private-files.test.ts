/**
 * Risk: the files that hold a conversation are readable by every local user whenever their folder
 * is — a shared or pre-existing `--session-dir` (0755), /tmp (a long command's output spilled to a
 * temp file), the project folder (HTML / JSONL exports, `--trace` files and their viewer pages).
 * pi 0.73.1 (and Settle before) created them with the umask's default, 0644 with the usual umask
 * 022. Settle creates them 0600; a file that exists keeps its mode, also when Settle rewrites it (a
 * migration, an export written over). Real `settle` processes, real modes; when the tests run as
 * root, a real second uid (util-linux setpriv) fails to read them.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTraceRecorder } from "../../src/inspect/trace.js";
import { saveTrace } from "../../src/inspect/trace-file.js";
import { RpcClient, runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-sec-private-");

const mode = (path: string) => statSync(path).mode & 0o777;

function sessionFilesIn(root: string): string[] {
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(root, name))
		.sort();
}

/** A folder others may read and enter, as a shared `--session-dir` or a project folder is. */
function sharedFolder(name: string): string {
	chmodSync(cli.dir, 0o755);
	const folder = join(cli.dir, name);
	mkdirSync(folder);
	chmodSync(folder, 0o755);
	return folder;
}

/** `cat <file>` as another user (uid 12345, no groups); its exit code. Root only. */
function catAsOtherUser(file: string): number | null {
	return spawnSync("setpriv", ["--reuid=12345", "--regid=12345", "--clear-groups", "cat", file], { encoding: "utf8" })
		.status;
}

/** A session file in the format before v2 (no entry ids), which opening migrates and rewrites. */
function writeV1Session(file: string, cwd: string): void {
	const lines = [
		{ type: "session", id: "0a1b2c3d-0000-4000-8000-000000000001", timestamp: "2025-01-01T00:00:00.000Z", cwd },
		{
			type: "message",
			timestamp: "2025-01-01T00:00:01.000Z",
			message: { role: "user", content: "the old question", timestamp: 1 },
		},
	];
	writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
}

describe("files that hold a conversation are private to their owner", () => {
	it("a new session file is 0600, in the default folder and in a shared 0755 --session-dir", () => {
		expect(cli.settle(["--faux", "-p", "my token is hunter2"]).code).toBe(0);
		const [own] = sessionFilesIn(join(cli.agentDir, "sessions"));
		expect(mode(own!)).toBe(0o600);

		const shared = sharedFolder("shared");
		expect(cli.settle(["--faux", "--session-dir", shared, "-p", "my token is hunter2"]).code).toBe(0);
		const [file] = sessionFilesIn(shared);
		expect(mode(shared)).toBe(0o755); // the folder is the user's to choose
		expect(mode(file!)).toBe(0o600);
	});

	it("an existing session file keeps its mode: continued, and rewritten by a format migration", () => {
		const shared = sharedFolder("shared");
		expect(cli.settle(["--faux", "--session-dir", shared, "-p", "first"]).code).toBe(0);
		const [file] = sessionFilesIn(shared);
		chmodSync(file!, 0o660); // shared with the group on purpose (a mode the umask 022 would narrow)
		expect(cli.settle(["--faux", "--session", file!, "-p", "second"]).code).toBe(0);
		expect(mode(file!)).toBe(0o660);
		expect(readFileSync(file!, "utf8")).toContain("second");

		for (const kept of [0o600, 0o660]) {
			const old = join(shared, `old-${kept.toString(8)}.jsonl`);
			writeV1Session(old, cli.project);
			chmodSync(old, kept);
			expect(cli.settle(["--faux", "--session", old, "-p", "next"]).code).toBe(0);
			const [header] = readFileSync(old, "utf8").split("\n");
			expect(JSON.parse(header!).version).toBe(3); // migrated: the file was rewritten
			expect({ file: basename(old), mode: mode(old) }).toEqual({ file: basename(old), mode: kept });
		}
	});

	it("a clone (RPC) and an /import write their new session file 0600, whatever the imported file's mode", async () => {
		const shared = sharedFolder("shared");
		const rpc = new RpcClient(["--faux", "--session-dir", shared], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = rpc.next((line) => line.type === "agent_settled");
		expect(await rpc.request({ id: "1", type: "prompt", message: "my token is hunter2" })).toMatchObject({
			success: true,
		});
		await settled;
		expect(await rpc.request({ id: "2", type: "clone" })).toMatchObject({ success: true, data: { cancelled: false } });
		expect(await rpc.end()).toBe(0);
		const files = sessionFilesIn(shared);
		expect(files).toHaveLength(2);
		for (const file of files)
			expect({ file: basename(file), mode: mode(file) }).toEqual({ file: basename(file), mode: 0o600 });

		// A session file someone left world-readable, imported into this project's sessions.
		const source = join(sharedFolder("elsewhere"), "found.jsonl");
		writeFileSync(source, readFileSync(files[0]!));
		chmodSync(source, 0o644);
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("current", "current\n>");
		const current = bannerSessionFile(chat.stdout);
		const from = chat.mark();
		chat.send(`/import ${source}`);
		await chat.until("[y/N] ", from);
		expect(await chat.say("y")).toMatch(/Imported into a new session/);
		expect(await chat.end()).toBe(0);
		const copy = join(current, "..", "found.jsonl");
		expect(readFileSync(copy, "utf8")).toContain("hunter2");
		expect(mode(copy)).toBe(0o600);
		expect(mode(source)).toBe(0o644);
	});

	it("exports, --trace files and trace pages are 0600; a file written over keeps its mode", () => {
		const project = sharedFolder("work");
		const run = (args: string[]) => runSettle(args, { cwd: project, agentDir: cli.agentDir });
		expect(run(["--faux", "--trace", "run.json", "-p", "my token is hunter2"]).code).toBe(0);
		const [session] = sessionFilesIn(join(cli.agentDir, "sessions"));
		expect(run(["--export", session!, "page.html"]).code).toBe(0);
		expect(run(["trace", "run.json"]).code).toBe(0);
		for (const name of ["run.json", "page.html", "run.html"]) {
			expect(readFileSync(join(project, name), "utf8")).toContain("hunter2");
			expect({ name, mode: mode(join(project, name)) }).toEqual({ name, mode: 0o600 });
		}

		// Written over: the user's choice of mode stays (also one the umask 022 would narrow).
		for (const name of ["run.json", "page.html", "run.html"]) chmodSync(join(project, name), 0o664);
		expect(run(["--faux", "--trace", "run.json", "-p", "again"]).code).toBe(0);
		expect(run(["--export", session!, "page.html"]).code).toBe(0);
		expect(run(["trace", "run.json"]).code).toBe(0);
		for (const name of ["run.json", "page.html", "run.html"]) {
			expect({ name, mode: mode(join(project, name)) }).toEqual({ name, mode: 0o664 });
		}
	});

	it("saveTrace (settle/inspect) writes a new trace 0600 and keeps the mode of one it writes over", async () => {
		const file = join(sharedFolder("traces"), "sdk.trace.json");
		await saveTrace(file, createTraceRecorder());
		expect(mode(file)).toBe(0o600);
		chmodSync(file, 0o664);
		await saveTrace(file, createTraceRecorder());
		expect(mode(file)).toBe(0o664);
	});

	it("a long command's output spilled to a temp file is 0600", () => {
		const tmp = sharedFolder("tmp");
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 5000; echo hunter2" } }] }, "done"]),
		);
		const run = runSettle(["--faux-script", script, "--no-session", "-p", "count"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { TMPDIR: tmp },
		});
		expect(run.code).toBe(0);
		const spilled = readdirSync(tmp).filter((name) => name.startsWith("settle-bash-"));
		expect(spilled).toHaveLength(1);
		const file = join(tmp, spilled[0]!);
		expect(readFileSync(file, "utf8")).toContain("hunter2");
		expect(mode(file)).toBe(0o600);
	});

	it.runIf(process.getuid?.() === 0)(
		"another user cannot read a session file in a shared --session-dir, nor an export or a trace",
		() => {
			const shared = sharedFolder("shared");
			// The control: the other user can reach and read a world-readable file in these folders.
			const control = join(shared, "readme.txt");
			writeFileSync(control, "public\n");
			chmodSync(control, 0o644);
			expect(catAsOtherUser(control)).toBe(0);

			const run = (args: string[]) => runSettle(args, { cwd: shared, agentDir: cli.agentDir });
			expect(run(["--faux", "--session-dir", shared, "--trace", "run.json", "-p", "my token is hunter2"]).code).toBe(0);
			const [file] = sessionFilesIn(shared);
			expect(run(["--export", file!, "page.html"]).code).toBe(0);
			for (const path of [file!, join(shared, "run.json"), join(shared, "page.html")]) {
				expect({ path, code: catAsOtherUser(path) }).not.toEqual({ path, code: 0 });
			}
		},
	);
});
