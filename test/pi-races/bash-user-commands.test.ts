/**
 * Reports about the user's own shell commands (`!cmd`, `!!cmd`, RPC `bash`, the `user_bash` hook),
 * replayed against Settle through its public API with a real shell. A `!!` command is the user's
 * alone: its output is saved in the session but never sent to the model, so nothing that decides
 * what the model gets (the context estimate, the compaction cut, the summary prompt) may count it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { RpcClient as SettleRpcClient } from "../../src/rpc/index.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { cliCommand, RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { bannerSessionFile, Repl, readEntries } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { BIG_ANSWER, script, userTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-bash-user-");
let h: Harness | undefined;
let server: WireServer | undefined;
afterEach(async () => {
	h?.cleanup();
	h = undefined;
	await server?.close();
	server = undefined;
});

/** The bash messages a session file holds, in order. */
function bashEntries(file: string): { command: string; output: string; excludeFromContext?: boolean }[] {
	return readEntries(file)
		.filter((entry) => entry.type === "message")
		.map((entry) => entry.message as { role: string; command: string; output: string; excludeFromContext?: boolean })
		.filter((message) => message.role === "bashExecution");
}

/** 20,000 characters of output (~5,000 estimated tokens) from a real shell. */
const BIG_PRIVATE_COMMAND = "head -c 20000 /dev/zero | tr '\\0' p";

describe("openclaw#121147: a `!!` command's output counted as context it never is", () => {
	it("openclaw#121147: a big `!!` output neither raises the context usage nor pushes the user's last exchange out of the kept span at compaction; the summary request does not carry it", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 2_000 } } });
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("noted"),
			fauxAssistantMessage("PELICAN"),
		]);
		await h.session.prompt("old work");
		await h.session.prompt("remember the codeword PELICAN");
		const before = h.session.getContextUsage();

		const result = await h.session.executeBash(BIG_PRIVATE_COMMAND, undefined, { excludeFromContext: true });
		expect(result.output).toBe("p".repeat(20_000));
		// The user sees their output; the model's context did not grow.
		expect(h.session.getContextUsage()?.tokens).toBe(before?.tokens);

		await h.session.compact();
		expect(summaryRequests).toHaveLength(1);
		expect(JSON.stringify(summaryRequests[0]!.messages)).not.toContain("pppppppp");

		await h.session.prompt("what was the codeword?");
		const sent = userTexts(answerRequests.at(-1)!);
		// The last exchange is kept verbatim (it is well under keepRecentTokens); only the old work was summarized.
		expect(sent).toContain("remember the codeword PELICAN");
		expect(sent).not.toContain("old work");
		expect(sent.join("\n")).not.toContain("pppppppp");
	});
});

describe("pi#5039: RPC `bash` with `excludeFromContext` (the `!!` of an RPC client)", () => {
	it("pi#5039: `settle --rpc`: a `bash` command with excludeFromContext: true is answered with its output, saved marked as such, and never sent to the model; a plain `bash` still is; a non-boolean is refused", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const rpc = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		const hidden = await rpc.request({
			id: "hidden",
			type: "bash",
			command: "echo PRIVATE-OUTPUT",
			excludeFromContext: true,
		});
		expect(hidden).toMatchObject({ success: true, data: { output: "PRIVATE-OUTPUT\n", exitCode: 0 } });
		const shown = await rpc.request({ id: "shown", type: "bash", command: "echo SHARED-OUTPUT" });
		expect(shown).toMatchObject({ success: true, data: { output: "SHARED-OUTPUT\n" } });
		const refused = await rpc.request({
			id: "bad",
			type: "bash",
			command: "echo NEVER-RUN",
			excludeFromContext: "yes",
		});
		expect(refused).toMatchObject({ success: false });
		expect(String(refused.error)).toContain("excludeFromContext");

		server.reply(chatReply([{ type: "text", text: "seen" }]));
		const ended = rpc.next((line) => line.type === "agent_end");
		await rpc.request({ id: "ask", type: "prompt", message: "what did I run?" });
		await ended;
		const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
		expect(sent).toContain("SHARED-OUTPUT");
		expect(sent).not.toContain("PRIVATE-OUTPUT");
		expect(sent).not.toContain("NEVER-RUN");

		const state = await rpc.request({ id: "state", type: "get_state" });
		const file = (state.data as { sessionFile: string }).sessionFile;
		expect(await rpc.end()).toBe(0);
		expect(rpc.stderr).toBe("");
		expect(bashEntries(file).map(({ command, excludeFromContext }) => ({ command, excludeFromContext }))).toEqual([
			{ command: "echo PRIVATE-OUTPUT", excludeFromContext: true },
			{ command: "echo SHARED-OUTPUT", excludeFromContext: undefined },
		]);
	});

	it("pi#5039: `settle/rpc`'s RpcClient: bash(command, { excludeFromContext: true }) returns the output and the saved message says it is kept out", async () => {
		const rpc = new SettleRpcClient({
			command: [process.execPath, ...cliCommand(), "--rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux", "--no-session"],
		});
		try {
			await rpc.start();
			expect((await rpc.bash("echo PRIVATE", { excludeFromContext: true })).output).toBe("PRIVATE\n");
			expect((await rpc.bash("echo SHARED")).output).toBe("SHARED\n");
			const bash = (await rpc.getMessages()).filter((message) => message.role === "bashExecution");
			expect(bash.map((message) => [message.command, message.excludeFromContext === true])).toEqual([
				["echo PRIVATE", true],
				["echo SHARED", false],
			]);
		} finally {
			await rpc.stop();
		}
	});
});

/** An extension that logs every `user_bash` event and answers commands starting with `hooked` itself. */
function userBashExtension(log: string): string {
	const path = join(cli.dir, "user-bash.mjs");
	writeFileSync(
		path,
		`import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("user_bash", (event) => {
		appendFileSync(${JSON.stringify(log)}, JSON.stringify([event.command, event.excludeFromContext, event.cwd]) + "\\n");
		if (event.command.startsWith("hooked")) {
			return { result: { output: "answered by the hook\\n", exitCode: 0, cancelled: false, truncated: false } };
		}
	});
}
`,
	);
	return path;
}

function logged(log: string): unknown[] {
	return readFileSync(log, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}

/**
 * `!make` in `settle -i -e <extension>`, whose extension reports a `null` exit after printing "half a
 * build": the chat shows it killed by a signal, goes on answering, and the session file saves it so.
 */
async function expectMakeShownAsKilled(extension: string): Promise<void> {
	const chat = new Repl(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
	await chat.idle(0);
	const shown = await chat.say("!make");
	expect(shown).toContain("  half a build\n");
	expect(shown).toContain("(killed by a signal)");
	expect(shown).not.toContain("(exit unknown)");
	await chat.say("hello", "hello");
	expect(await chat.end()).toBe(0);
	expect(bashEntries(bannerSessionFile(chat.stdout))).toMatchObject([{ command: "make", killedBySignal: true }]);
}

describe("oh-my-pi#185: the `user_bash` hook never called for `!` and `!!`", () => {
	it("oh-my-pi#185: settle -i: `!cmd` and `!!cmd` each reach the extension's `user_bash` handler (with excludeFromContext and the cwd); an answer from the handler replaces the run, is shown in the chat (it printed nothing) and saved", async () => {
		const log = join(cli.dir, "user-bash.log");
		writeFileSync(log, "");
		const chat = new Repl(["--faux", "-e", userBashExtension(log)], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("!echo one")).toContain("  one\n");
		expect(await chat.say("!!echo two")).toContain("  two\n");
		const hooked = await chat.say("!hooked && touch ran-locally");
		expect(hooked).toContain("  answered by the hook\n");
		// A prompt, so the session file is written (nothing is before the first message).
		await chat.say("hello", "hello");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		expect(logged(log)).toEqual([
			["echo one", false, cli.project],
			["echo two", true, cli.project],
			["hooked && touch ran-locally", false, cli.project],
		]);
		expect(existsSync(join(cli.project, "ran-locally"))).toBe(false);
		expect(bashEntries(bannerSessionFile(chat.stdout))).toMatchObject([
			{ command: "echo one", output: "one\n" },
			{ command: "echo two", output: "two\n", excludeFromContext: true },
			{ command: "hooked && touch ran-locally", output: "answered by the hook\n" },
		]);
	});

	it("pi#9577: settle -i: a `!` command whose extension operations report `exitCode: null` says it was killed by a signal (not `(exit unknown)`), and is saved so", async () => {
		const path = join(cli.dir, "killed-ops.mjs");
		writeFileSync(
			path,
			`export default function (pi) {
	pi.on("user_bash", () => ({
		operations: {
			async exec(_command, _cwd, { onData }) {
				onData(Buffer.from("half a build\\n"));
				return { exitCode: null };
			},
		},
	}));
}
`,
		);
		await expectMakeShownAsKilled(path);
	});

	it("pi#9577: settle -i: a `user_bash` handler's own result with `exitCode: null` says it was killed by a signal, as the operations path does, and is saved so", async () => {
		const path = join(cli.dir, "killed-result.mjs");
		writeFileSync(
			path,
			`export default function (pi) {
	pi.on("user_bash", () => ({
		result: { output: "half a build\\n", exitCode: null, cancelled: false, truncated: false },
	}));
}
`,
		);
		await expectMakeShownAsKilled(path);
	});

	it("pi#9577: `session.recordBashResult` given `exitCode: null` (a child killed by a signal) saves it as the `!` paths do, and the model is told the command was killed by a signal", async () => {
		h = await createHarness({ persistence: "disk" });
		const { answerRequests } = script(h, [fauxAssistantMessage("noted")]);
		// An extension passing on a child's close code, as Node gives it for a signal.
		h.session.recordBashResult("make", {
			output: "half a build\n",
			exitCode: null as never,
			cancelled: false,
			truncated: false,
		});
		await h.session.prompt("what happened?");
		expect(userTexts(answerRequests[0]!)[0]).toBe(
			"Ran `make`\n```\nhalf a build\n\n```\n\nCommand was killed by a signal",
		);
		expect(bashEntries(h.session.sessionFile!)).toMatchObject([{ command: "make", killedBySignal: true }]);
	});

	it("oh-my-pi#185, pi#7063: settle --rpc: the `bash` command reaches `user_bash` too (with excludeFromContext, pi#5039), and the handler's answer is the response", async () => {
		const log = join(cli.dir, "user-bash.log");
		writeFileSync(log, "");
		const rpc = new RpcClient(["--faux", "--no-session", "-e", userBashExtension(log)], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(await rpc.request({ id: "a", type: "bash", command: "echo three" })).toMatchObject({
			success: true,
			data: { output: "three\n" },
		});
		expect(
			await rpc.request({ id: "b", type: "bash", command: "hooked-four", excludeFromContext: true }),
		).toMatchObject({ success: true, data: { output: "answered by the hook\n" } });
		expect(await rpc.end()).toBe(0);
		expect(rpc.stderr).toBe("");
		expect(logged(log)).toEqual([
			["echo three", false, cli.project],
			["hooked-four", true, cli.project],
		]);
	});
});
