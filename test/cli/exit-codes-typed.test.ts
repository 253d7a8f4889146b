/**
 * `settle -p` exit codes 4 (the provider refused the key) and 5 (the session file's lock) follow the
 * failure's `SettleError` code, not its text: a real HTTP 401 from a local provider exits 4, while a
 * provider error whose text merely mentions a 401, an invalid key or the store's lock wording is an
 * ordinary failed answer (exit 1). A session stalled mid-run past the lock's stale timeout, whose lock
 * another writer then takes over, exits 5 at its next write. Real child processes; the provider is a
 * local HTTP server.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { gate } from "../session/recovery-helpers.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "./helpers.js";

const cli = useCliProject("settle-exit-typed-");
const server = useWireServer();

/** `settle <args>` in the project (async: the provider server answers from this process). */
const settle = (args: string[]) => runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir });

/** A models.json provider `local` (OpenAI chat completions) on the wire server, with a key. */
function localProvider(): string[] {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { compat: { supportsDeveloperRole: false } });
	return ["--model", "local/coder", "--no-session", "-p", "hi"];
}

function script(steps: unknown[]): string {
	const file = join(cli.dir, `script-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** What a 401 adds: where the refused key came from (here: models.json's apiKey; codewhale#2665). */
const LOCAL_KEY_NOTE =
	'\n\nlocal answered 401 to the "apiKey" of local in models.json (or an extension\'s registerProvider); auth.json and the environment have none: replace that apiKey.';

describe("exit codes by error code, not by error text", () => {
	it("a provider answering HTTP 401 exits 4; an HTTP 400 whose text mentions 401 and an invalid key exits 1 (was 4)", async () => {
		const args = localProvider();
		server.reply(openAiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
		const refused = await settle(args);
		expect(refused).toEqual({
			code: 4,
			stdout: "",
			stderr: `401 Incorrect API key provided.${LOCAL_KEY_NOTE}\n`,
		});

		server.reply(
			openAiError(
				400,
				"The proxy's upstream answered 401 Unauthorized (invalid api key for the image store); this request was not sent.",
				"invalid_request_error",
			),
		);
		const mentions = await settle(args);
		expect(mentions.code).toBe(1);
		expect(mentions.stderr).toBe(
			"400 The proxy's upstream answered 401 Unauthorized (invalid api key for the image store); this request was not sent.\n",
		);
		expect(server.requests).toHaveLength(2);
	});

	it("regression: an extension that reworded the refused key's error at message_end made it exit 1 (was the code lost); now 4, and 0 once it turns the failure into an answer", async () => {
		const args = localProvider();
		const extension = join(cli.dir, "reword.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("message_end", (event) => {
		const message = event.message;
		if (message.role !== "assistant" || message.stopReason !== "error") return undefined;
		if (process.env.RECOVER) return { message: { ...message, stopReason: "stop", errorMessage: undefined, content: [{ type: "text", text: "offline answer" }] } };
		return { message: { ...message, errorMessage: "The provider refused the key: " + message.errorMessage } };
	});
}
`,
		);
		server.reply(openAiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
		const reworded = await settle(["-e", extension, ...args]);
		expect(reworded).toEqual({
			code: 4,
			stdout: "",
			stderr: `The provider refused the key: 401 Incorrect API key provided.${LOCAL_KEY_NOTE}\n`,
		});

		server.reply(openAiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
		const recovered = await runSettleAsync(["-e", extension, ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { RECOVER: "1" },
		});
		expect(recovered).toEqual({ code: 0, stdout: "offline answer\n", stderr: "" });
	});

	it("regression: another writer taking the session's lock over mid-run went unnoticed (exit 0, the run kept writing, and settle's exit removed that writer's lock); now exit 5, nothing more written, its lock left alone", async () => {
		const file = join(cli.dir, "shared.jsonl");
		const lock = `${file}.lock`;
		const theirs = { pid: 1, hostname: "ci-2", acquiredAt: "", token: "theirs" };
		// While the run is under way, its bash tool call stalls settle (SIGSTOP: a suspended process)
		// past the stale timeout (2 s here, SETTLE_TEST_LOCK_STALE_MS), so that the lock is stale for
		// every writer; then replaces the lock directory with another writer's, as a writer that found
		// it stale does; then lets settle go on.
		const untilStale = `const s=require("fs").statSync(process.argv[1]).mtimeMs+2000,p=new Int32Array(new SharedArrayBuffer(4));while(Date.now()<=s)Atomics.wait(p,0,0,Math.ceil(s)+1-Date.now())`;
		const takeOver =
			`kill -STOP $PPID; '${process.execPath}' -e '${untilStale}' '${lock}' && ` +
			`rm -rf '${lock}' && mkdir '${lock}' && printf %s '${JSON.stringify(theirs)}' > '${lock}/owner.json'; kill -CONT $PPID`;
		const run = await runSettleAsync(
			[
				"--faux-script",
				script([{ toolCalls: [{ name: "bash", arguments: { command: takeOver } }] }, "never reached"]),
				"--session",
				file,
				"-p",
				"go",
			],
			{ cwd: cli.project, agentDir: cli.agentDir, env: { SETTLE_TEST_LOCK_STALE_MS: "2000" } },
		);
		expect(run.code).toBe(5);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(`Error: Session file ${file} was taken over by another writer during this run (`);
		expect(run.stderr).toContain(
			`only one process may write a session at a time, so this run stopped at its next write; what this run wrote before stays in the file. Run again once that writer has exited (--session ${file} continues from what the file holds then), or carry on now in a new session (--fork ${file}).\n`,
		);
		const roles = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string } })
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message!.role);
		// The tool's result and the answer after it were not written.
		expect(roles).toEqual(["system", "user", "assistant"]);
		expect(existsSync(lock)).toBe(true);
		expect(JSON.parse(readFileSync(join(lock, "owner.json"), "utf8"))).toEqual(theirs);
	});

	it("regression: a run whose lock another writer took over while the model answered printed the answer, then the SDK's 'Nothing was written. Open the session again'; now it says in flags that the printed answer is not in the file, what the run wrote before is, and how to go on", async () => {
		const file = join(cli.dir, "taken.jsonl");
		const lock = `${file}.lock`;
		const pidFile = join(cli.dir, "settle.pid");
		const theirs = { pid: 1, hostname: "ci-2", acquiredAt: "", token: "theirs" };
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { compat: { supportsDeveloperRole: false } });
		const answerAsked = gate();
		const answer = gate();
		server.reply(
			// The bash tool's parent is settle: the test stalls that process while the answer is held.
			chatReply([{ type: "tool_call", id: "c1", name: "bash", arguments: { command: `echo $PPID > '${pidFile}'` } }]),
			(recorded, res, req) => {
				answerAsked.release();
				void answer.promise.then(() => chatReply([{ type: "text", text: "the answer" }])(recorded, res, req));
			},
		);
		const running = runSettleAsync(["--model", "local/coder", "--session", file, "-p", "go"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { SETTLE_TEST_LOCK_STALE_MS: "2000" },
		});
		await answerAsked.promise;
		const pid = Number(readFileSync(pidFile, "utf8"));
		// Stalled past the stale timeout (its lock is then stale for every writer), the lock is replaced
		// by another writer's, as a writer that found it stale does; then settle goes on.
		process.kill(pid, "SIGSTOP");
		const staleAt = statSync(lock).mtimeMs + 2000;
		await new Promise((resolve) => setTimeout(resolve, Math.ceil(staleAt - Date.now()) + 1));
		rmSync(lock, { recursive: true });
		mkdirSync(lock);
		writeFileSync(join(lock, "owner.json"), JSON.stringify(theirs));
		process.kill(pid, "SIGCONT");
		answer.release();

		const run = await running;
		expect(run.code).toBe(5);
		expect(run.stdout).toBe("the answer\n");
		// Why the lock is lost depends on which of settle's checks saw it first (its refresh or the append).
		expect(run.stderr).toContain(`Error: Session file ${file} was taken over by another writer during this run (`);
		expect(run.stderr).toMatch(
			/\): only one process may write a session at a time, so the answer printed above was not written to it; what this run wrote before stays in the file\. Run again once that writer has exited \(--session \S+ continues from what the file holds then\), or carry on now in a new session \(--fork \S+\)\.\n$/,
		);
		expect(run.stderr).not.toMatch(/Open the session again|Nothing was written/);
		const roles = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string } })
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message!.role);
		expect(roles).toEqual(["system", "user", "assistant", "toolResult"]);
		expect(JSON.parse(readFileSync(join(lock, "owner.json"), "utf8"))).toEqual(theirs);
	});

	it("a provider error in the store's lock wording exits 1 (was 5), printed as the provider said it", async () => {
		const lockWording =
			"Session file /srv/state.jsonl is already open for writing by process 7 on ci-1. Only one SessionManager may write a session: close the other one. A lock left by a crashed process on this machine is cleared automatically.";
		const run = await settle([
			"--faux-script",
			script([{ stopReason: "error", errorMessage: lockWording }]),
			"--no-session",
			"-p",
			"hi",
		]);
		expect(run).toEqual({ code: 1, stdout: "", stderr: `${lockWording}\n` });
	});
});
