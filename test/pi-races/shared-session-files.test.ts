/**
 * Reports about several processes on one session file, replayed against real `settle` child
 * processes on a local OpenAI-compatible endpoint (test/llm/wire/server.ts): two `-c` runs started
 * together in one project, a process killed (SIGKILL) during or right after a compaction, a chat
 * whose file another program (pi, which takes no lock) wrote to, a session deleted by another
 * process while `settle -r` shows it in its list, and `--fork` of a session whose tool call another
 * process is still running.
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { beforeEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import {
	cliCommand,
	RpcClient,
	runSettleAsync,
	trackChild,
	useCliProject,
	writeLocalProvider,
} from "../cli/helpers.js";
import { bannerSessionFile, Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, type Reply, sse, useWireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-shared-session-files-");
/** How compaction summary requests are answered, when a test says (else they take the queue's next reply). */
let summaryReply: (() => Reply) | undefined;
/** Compaction summary requests, in arrival order. */
const summaryRequests: RecordedRequest[] = [];

/** A summary request asks with the summarizer's system prompt. */
function isSummaryRequest(request: RecordedRequest): boolean {
	return sentText(request).includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));
}

const server = useWireServer((request, next) => {
	if (!summaryReply || !isSummaryRequest(request)) return next();
	summaryRequests.push(request);
	return summaryReply();
});
beforeEach(() => {
	summaryReply = undefined;
	summaryRequests.length = 0;
});

/** A reply held back until `release()`: the run that sent the request stays mid-turn until then. */
function heldReply(text: string): { reply: Reply; release: () => void } {
	let send: (() => void) | undefined;
	let released = false;
	return {
		reply: (request, res, req) => {
			send = () => chatReply([{ type: "text", text }])(request, res, req);
			if (released) send();
		},
		release: () => {
			released = true;
			send?.();
		},
	};
}

/** The text of every message of a chat-completions request, joined: what the model was sent. */
function sentText(request: RecordedRequest | undefined): string {
	return JSON.stringify(request?.body?.messages ?? []);
}

/** Every line of `file` parses as JSON (nothing cut, nothing interleaved). */
function parsedLines(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

const settle = (args: string[]) =>
	runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });

describe("pi#9596, pi#8848, pi#8177: two concurrent `-c` runs in one project append into one session file", () => {
	it("pi#9596: while one settle -c -p runs, a second settle -c -p is refused (exit 5) naming the file, its holder and --fork <file>; that --fork carries on in a new file; neither file holds the other's turn", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "SEED" }]));
		expect((await settle(["-p", "reply with exactly: SEED"])).code).toBe(0);
		const [seeded] = sessionFilesUnder(cli.agentDir);
		const seedBytes = readFileSync(seeded!, "utf8");

		// Run ONE continues the session and waits on its model's answer.
		const one = heldReply("ONE");
		server.reply(one.reply);
		const runOne = settle(["-c", "-p", "reply with exactly: ONE"]);
		await server.waitForRequests(2);

		const two = await settle(["-c", "-p", "reply with exactly: TWO"]);
		expect(two.code).toBe(5);
		expect(two.stderr).toContain(`Session file ${seeded} is in use by process`);
		expect(two.stderr).toContain(`--fork ${seeded}`);
		expect(server.requests).toHaveLength(2);

		// What the refusal names: a fork of the busy session, in a file of its own, runs now.
		server.reply(chatReply([{ type: "text", text: "TWO" }]));
		const forked = await settle(["--fork", seeded!, "-p", "reply with exactly: TWO"]);
		expect(forked.code).toBe(0);
		expect(forked.stdout).toContain("TWO");
		expect(sentText(server.requests[2])).toContain("reply with exactly: SEED");

		one.release();
		const first = await runOne;
		expect(first.code).toBe(0);
		expect(first.stdout).toContain("ONE");

		const files = sessionFilesUnder(cli.agentDir);
		expect(files).toHaveLength(2);
		const forkFile = files.find((file) => file !== seeded)!;
		const mine = readFileSync(seeded!, "utf8");
		expect(mine.startsWith(seedBytes)).toBe(true);
		expect(mine).toContain("reply with exactly: ONE");
		expect(mine).not.toContain("reply with exactly: TWO");
		const fork = parsedLines(forkFile);
		expect(fork[0]).toMatchObject({ type: "session", parentSession: seeded });
		expect(JSON.stringify(fork)).toContain("reply with exactly: TWO");
		parsedLines(seeded!);
	});
});

describe("opencode#47178, claude-code#14462: a process killed during or right after a compaction", () => {
	it("opencode#47178, claude-code#14462: settle --rpc SIGKILLed mid-compaction leaves the file as it was and -c sends the whole history; SIGKILLed once compact answered, -c sends the summary, not the summarized turns", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { compat: { supportsDeveloperRole: false } });
		// Everything but the last exchange is summarized.
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
		);
		const first = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		for (const [id, message] of [
			["p1", "first question"],
			["p2", "second question"],
		]) {
			const settled = first.next((line) => line.type === "agent_settled");
			expect(await first.request({ id, type: "prompt", message })).toMatchObject({ success: true });
			await settled;
		}
		const [file] = sessionFilesUnder(cli.agentDir);
		const before = readFileSync(file!, "utf8");

		// Killed while its summary requests wait on the wire: nothing of the compaction is on disk.
		summaryReply = () => sse([], "hang");
		first.send({ id: "c1", type: "compact" });
		await server.waitForRequests(3);
		expect(summaryRequests.length).toBeGreaterThan(0);
		first.child.kill("SIGKILL");
		await first.exited;
		expect(readFileSync(file!, "utf8")).toBe(before);

		// The next run continues the whole session: the crashed holder's lock is cleared at once.
		// Summary requests keep hanging: the killed process's second one can reach the server only now,
		// and must not take the reply scripted for this run.
		server.reply(chatReply([{ type: "text", text: "third answer" }]));
		const third = await settle(["-c", "-p", "third question"]);
		expect(third.code, third.stderr).toBe(0);
		const thirdSent = sentText(server.requests.filter((request) => !isSummaryRequest(request)).at(-1));
		expect(thirdSent).toContain("first question");
		expect(thirdSent).toContain("second question");

		// Compacted, and killed as soon as compact answered: the compaction is what the next run sees.
		summaryReply = () => chatReply([{ type: "text", text: "## Goal\nCOMPACTED SUMMARY" }]);
		const second = new RpcClient(["--model", "local/coder", "-c"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await second.request({ id: "c2", type: "compact" })).toMatchObject({ command: "compact", success: true });
		second.child.kill("SIGKILL");
		await second.exited;
		const entries = parsedLines(file!);
		expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(1);

		summaryReply = undefined;
		server.reply(chatReply([{ type: "text", text: "fourth answer" }]));
		const fourth = await settle(["-c", "-p", "fourth question"]);
		expect(fourth.code, fourth.stderr).toBe(0);
		const fourthSent = sentText(server.requests.at(-1));
		expect(fourthSent).toContain("COMPACTED SUMMARY");
		expect(fourthSent).not.toContain("first question");
		expect(fourthSent).not.toContain("second question");
		expect(fourthSent).toContain("fourth question");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([file]);
	});
});

describe("oh-my-pi#12624: a session file another window wrote to: every later entry kept in memory only, warned once", () => {
	it("oh-my-pi#12624: settle -i after another program appended to its file: each prompt is refused before the model is asked, naming /clone; /clone saves the conversation to a new file that goes on; the written-to file keeps its bytes", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const chat = new Repl(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		const file = bannerSessionFile(await chat.idle(0));
		server.reply(chatReply([{ type: "text", text: "first answer" }]));
		expect(await chat.say("first question")).toContain("first answer");

		// pi on the same file (no lock) appends an entry of its own.
		appendFileSync(
			file,
			`${JSON.stringify({ type: "label", id: "ab12cd34", parentId: null, timestamp: new Date().toISOString(), targetId: "x", label: "from pi" })}\n`,
		);
		const theirs = readFileSync(file, "utf8");

		for (const text of ["second question", "third question"]) {
			const refused = await chat.say(text);
			expect(refused).toContain(`Session file ${file} was written to by another program`);
			expect(refused).toContain("/clone saves it to a new session file");
			expect(refused).not.toContain("SessionManager");
		}
		expect(server.requests).toHaveLength(1);

		const cloned = await chat.say("/clone");
		const clone = /Cloned into a new session \S+: (\S+\.jsonl)/.exec(cloned)?.[1];
		expect(clone).toBeDefined();
		server.reply(chatReply([{ type: "text", text: "fourth answer" }]));
		expect(await chat.say("fourth question")).toContain("fourth answer");
		expect(sentText(server.requests[1])).toContain("first question");
		expect(await chat.end()).toBe(0);

		expect(readFileSync(file, "utf8")).toBe(theirs);
		const kept = JSON.stringify(parsedLines(clone!));
		expect(kept).toContain("first answer");
		expect(kept).toContain("fourth answer");
		expect(kept).not.toContain("second question");
	});
});

describe("oh-my-pi#11491, pi#7931: a session another process deleted, picked from a list made before", () => {
	it("oh-my-pi#11491: settle -i -r, the listed session's file deleted before its number is typed: the pick is refused naming the file and asked again; nothing is made at its path; the other session resumes", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(
			chatReply([{ type: "text", text: "alpha answer" }]),
			chatReply([{ type: "text", text: "beta answer" }]),
		);
		expect((await settle(["-p", "alpha question"])).code).toBe(0);
		expect((await settle(["-p", "beta question"])).code).toBe(0);
		const [beta] = sessionFilesUnder(cli.agentDir).filter((file) =>
			readFileSync(file, "utf8").includes("beta question"),
		);

		const chat = new Repl(["--model", "local/coder", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const list = await chat.until("Resume which session?");
		expect(list).toMatch(/1\. .*beta question/);
		rmSync(beta!);
		let from = chat.mark();
		chat.send("1");
		const refused = await chat.until("Resume which session?", from);
		expect(refused).toContain(`${beta} was deleted after this list was made`);
		expect(refused).not.toContain("Resumed");
		expect(existsSync(beta!)).toBe(false);

		from = chat.mark();
		chat.send("2");
		expect(await chat.idle(from)).toMatch(/Resumed \S+ \(2 messages\)/);
		server.reply(chatReply([{ type: "text", text: "gamma answer" }]));
		expect(await chat.say("gamma question")).toContain("gamma answer");
		expect(sentText(server.requests.at(-1))).toContain("alpha question");
		expect(await chat.end()).toBe(0);
		expect(existsSync(beta!)).toBe(false);
		expect(sessionFilesUnder(cli.agentDir)).toHaveLength(1);
	});
});

describe("goose#2951: a session cut while a tool call ran: every request after failed with tool_use ids without tool_result", () => {
	it("goose#2951: settle --fork of a session whose bash call another settle is still running: the fork's request answers that call under its id, and both runs answer", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const fifo = join(cli.dir, "release");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		server.reply(
			chatReply([{ type: "tool_call", id: "call_busy", name: "bash", arguments: { command: `cat ${fifo}` } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "forked answer" }]),
			chatReply([{ type: "text", text: "first run done" }]),
		);
		// Process A: its model's bash call waits on the fifo.
		const first = spawn(process.execPath, [...cliCommand(), "--model", "local/coder", "--mode", "json", "run it"], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const firstExit = trackChild(first);
		await new Promise<void>((started) =>
			createInterface({ input: first.stdout }).on("line", (line) => {
				if (line.includes('"tool_execution_start"')) started();
			}),
		);
		const [file] = sessionFilesUnder(cli.agentDir);

		const forked = await settle(["--fork", file!, "-p", "and now?"]);
		expect(forked.code, forked.stderr).toBe(0);
		expect(forked.stdout).toContain("forked answer");
		const messages = server.requests[1]?.body.messages as {
			role: string;
			tool_call_id?: string;
			tool_calls?: { id: string }[];
		}[];
		const call = messages.findIndex((message) => message.tool_calls?.some((tool) => tool.id === "call_busy"));
		expect(call).toBeGreaterThan(0);
		expect(messages[call + 1]).toMatchObject({ role: "tool", tool_call_id: "call_busy" });
		expect(messages.at(-1)).toMatchObject({ role: "user" });

		writeFileSync(fifo, "released\n");
		expect(await firstExit).toBe(0);
		expect(sentText(server.requests[2])).toContain("released");
		expect(JSON.stringify(parsedLines(file!))).not.toContain("and now?");
	});
});

describe("settle -p on a session file another program deleted or wrote to during the run", () => {
	/** Starts `settle -c -p "second question"` on the project's one session and changes its file while the model answers. */
	async function changedDuringRun(change: (file: string) => void) {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "first answer" }]));
		expect((await settle(["-p", "first question"])).code).toBe(0);
		const [file] = sessionFilesUnder(cli.agentDir);
		const held = heldReply("second answer");
		server.reply(held.reply);
		const run = settle(["-c", "-p", "second question"]);
		await server.waitForRequests(2);
		change(file!);
		held.release();
		return { file: file!, result: await run };
	}

	it("settle -c -p, the file written to by another program while the model answers: the answer on stdout, exit 1, the error names the file and says to run again with --session <file> or --fork <file>, no SDK call; --session <file> then continues from it", async () => {
		// pi on the same file (no lock) labels its last entry.
		const { file, result } = await changedDuringRun((path) => {
			const lastId = parsedLines(path).at(-1)!.id;
			const label = { type: "label", id: "ab12cd34", parentId: lastId, targetId: lastId, label: "from pi" };
			appendFileSync(path, `${JSON.stringify({ ...label, timestamp: new Date().toISOString() })}\n`);
		});
		expect(result.code).toBe(1);
		// The model's answer arrived (and was paid for): printed, though no file holds it.
		expect(result.stdout).toBe("second answer\n");
		expect(result.stderr).toContain(`Session file ${file} was written to by another program`);
		expect(result.stderr).toContain(`--session ${file}`);
		expect(result.stderr).toContain(`--fork ${file}`);
		expect(result.stderr).not.toContain("SessionManager");
		const theirs = readFileSync(file, "utf8");
		expect(theirs).toContain("from pi");

		server.reply(chatReply([{ type: "text", text: "third answer" }]));
		const again = await settle(["--session", file, "-p", "third question"]);
		expect(again).toMatchObject({ code: 0, stdout: "third answer\n" });
		expect(sentText(server.requests[2])).toContain("first answer");
		expect(readFileSync(file, "utf8").startsWith(theirs)).toBe(true);
	});

	it("settle -c -p, the file deleted while the model answers: the answer on stdout, exit 1, the error names the file and says to run the prompt again in a new session, no SDK call; nothing is made at its path", async () => {
		const { file, result } = await changedDuringRun((path) => rmSync(path));
		expect(result.code).toBe(1);
		expect(result.stdout).toBe("second answer\n");
		expect(result.stderr).toContain(`Session file ${file} was deleted while this session was open`);
		expect(result.stderr).toContain("Run the prompt again in a new session (leave out -c and --session).");
		expect(result.stderr).not.toContain("SessionManager");
		expect(existsSync(file)).toBe(false);
	});
});
