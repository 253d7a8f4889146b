/**
 * `settle -i`: the line-oriented chat, driven as a user would through a pipe (real child process,
 * the faux model, real shell commands). Every wait is on an output marker or a file the command
 * creates, never on time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { startsInteractive } from "../../src/cli/interactive-mode.js";
import { useCliProject } from "./helpers.js";
import {
	bannerSessionFile,
	fileAppears,
	GATED_COMMAND,
	PROMPT,
	Repl,
	readEntries,
	transcript,
} from "./interactive.helpers.js";
import { slowProvider } from "./slow-provider.js";

const cli = useCliProject("settle-interactive-");
/** A 1x1 PNG. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function repl(args: string[], env?: Record<string, string | undefined>): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir, ...(env ? { env } : {}) });
}

function script(steps: unknown[]): string {
	const file = join(cli.dir, "script.json");
	writeFileSync(file, JSON.stringify(steps));
	return file;
}

/** Positions of `parts` in `text`, asserting each is found after the previous one. */
function expectInOrder(text: string, parts: string[]): void {
	let at = 0;
	for (const part of parts) {
		const found = text.indexOf(part, at);
		expect(found, `"${part}" after position ${at} in:\n${text}`).toBeGreaterThanOrEqual(0);
		at = found + part.length;
	}
}

describe("settle -i: starting", () => {
	it("starts by itself only when stdin and stdout are terminals and no prompt, @file or -p is given", () => {
		const tty = { isTTY: true };
		const pipe = { isTTY: false };
		expect(startsInteractive(parseArgs([]), tty, tty)).toBe(true);
		expect(startsInteractive(parseArgs(["--faux"]), tty, tty)).toBe(true);
		expect(startsInteractive(parseArgs([]), pipe, tty)).toBe(false);
		expect(startsInteractive(parseArgs([]), tty, pipe)).toBe(false);
		expect(startsInteractive(parseArgs(["hello"]), tty, tty)).toBe(false);
		expect(startsInteractive(parseArgs(["@a.md"]), tty, tty)).toBe(false);
		expect(startsInteractive(parseArgs(["-p"]), tty, tty)).toBe(false);
		expect(parseArgs(["--mode", "interactive"]).mode).toBe("interactive");
		expect(parseArgs(["--interactive"]).mode).toBe("interactive");
	});

	it("without -i and without a terminal nothing changed: no prompt is a usage error; -i with -p is one too", () => {
		const none = cli.settle(["--faux"]);
		expect(none.code).toBe(2);
		expect(none.stderr).toContain("Error: no prompt.");
		expect(none.stderr).toContain("-i starts a chat");
		const both = cli.settle(["--faux", "-i", "-p", "hi"]);
		expect(both.code).toBe(2);
		expect(both.stderr).toContain("Use either -i/--interactive (a chat) or -p/--print");
	});

	it("prints the banner, runs the prompts given on the command line first, and exits 0 at the end of input", async () => {
		const chat = repl(["--faux", "--no-session", "first prompt"]);
		const shown = await chat.idle(0, "first prompt\n");
		expect(shown).toContain("settle interactive\n");
		expect(shown).toContain("  model: faux/faux-1, thinking off\n");
		expect(shown).toContain("  session: in memory\n");
		expect(shown).toContain(`  cwd: ${cli.project}\n`);
		expect(shown).toContain("/help for commands, Ctrl+C to abort, Ctrl+D to exit\n");
		// The prompt as typed, then the faux model's echo.
		expectInOrder(shown, [`${PROMPT}first prompt\n`, "first prompt\n", PROMPT]);
		expect(await chat.end()).toBe(0);
	});
});

describe("settle -i: a conversation", () => {
	it("streams a text reply and a tool turn in order, with no ANSI codes on a pipe, and writes the session file that --continue resumes", async () => {
		const steps = script([
			"Hello from the faux model.",
			{ text: "Let me look.", toolCalls: [{ name: "bash", arguments: { command: "seq 1 7" } }] },
			"All done.",
		]);
		const chat = repl(["--faux-script", steps], { FORCE_COLOR: "1" });
		const greeting = await chat.say("hi", "Hello from the faux model.");
		expectInOrder(greeting, ["hi\n", "Hello from the faux model.\n", PROMPT]);

		const turn = await chat.say("look around", "All done.");
		// One line for the call, the first lines of its result, a count of the rest, the final answer.
		expectInOrder(turn, [
			"look around\n",
			"Let me look.\n",
			"→ bash seq 1 7\n",
			"  1\n  2\n  3\n  4\n",
			"  … 3 more lines\n",
			"All done.\n",
			PROMPT,
		]);
		expect(turn).not.toContain("  5\n");
		expect(chat.stdout).not.toContain("\x1b[");
		expect(await chat.end()).toBe(0);

		const file = bannerSessionFile(chat.stdout);
		expect(transcript(file)).toEqual([
			"user: hi",
			"assistant: Hello from the faux model.",
			"user: look around",
			"assistant: Let me look. →bash [toolUse]",
			"toolResult: 1\n2\n3\n4\n5\n6\n7\n",
			"assistant: All done.",
		]);

		const again = repl(["--faux", "--continue"]);
		const banner = await again.idle(0);
		expect(banner).toContain(`  session: ${file} (resumed, 6 messages)\n`);
		expect(banner).toContain("  last message: look around\n");
		expect(banner).toContain("  last answer: All done.\n");
		await again.say("and now?", "and now?\n");
		expect(await again.end()).toBe(0);
		expect(transcript(file).slice(6)).toEqual(["user: and now?", "assistant: and now?"]);
	});

	it("a line typed while a tool runs steers the run: it is queued, then delivered after the tool result", async () => {
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
		]);
		await chat.idle(0);
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("use the other branch");
		await chat.until("Queued (steer): use the other branch\n", from);
		writeFileSync(join(cli.project, "gate"), "");
		// The faux model echoes the last user message: the steering message reached it.
		const rest = await chat.idle(from, "use the other branch\n>");
		expectInOrder(rest, ["  opened\n", "use the other branch\n", PROMPT]);
		expect(await chat.end()).toBe(0);
		expect(transcript(bannerSessionFile(chat.stdout))).toEqual([
			"user: start the job",
			"assistant: →bash [toolUse]",
			"toolResult: opened\n",
			"user: use the other branch",
			"assistant: use the other branch",
		]);
	});

	it("an image-only steer an extension sends while a tool runs shows as Queued (steer): [1 image], not an empty notice", async () => {
		const extension = join(cli.dir, "screenshot.mjs");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("tool_call", () => {
		pi.sendUserMessage([{ type: "image", mimeType: "image/png", data: ${JSON.stringify(PIXEL_PNG)} }], { deliverAs: "steer" });
		pi.sendUserMessage([{ type: "text", text: "and this one" }, { type: "image", mimeType: "image/png", data: ${JSON.stringify(PIXEL_PNG)} }, { type: "image", mimeType: "image/png", data: ${JSON.stringify(PIXEL_PNG)} }], { deliverAs: "followUp" });
	});
}
`,
		);
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
			"--no-session",
			"-e",
			extension,
		]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("take a screenshot");
		await chat.until("Queued (follow-up): ", from);
		const shown = chat.stdout.slice(from);
		expect(shown).toContain("Queued (steer): [1 image]\n");
		expect(shown).toContain("Queued (follow-up): and this one [+2 images]\n");
		writeFileSync(join(cli.project, "gate"), "");
		await chat.idle(from, PROMPT);
		expect(await chat.end()).toBe(0);
	});

	it("prints thinking as [thinking] lines, a model error, and the automatic retry", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const steps = script([
			{ stopReason: "error", errorMessage: "529 overloaded" },
			{ thinking: "pondering the question", text: "the answer" },
		]);
		const chat = repl(["--faux-script", steps, "--no-session"]);
		await chat.idle(0);
		const shown = await chat.say("a question", "the answer");
		expectInOrder(shown, [
			"a question\n",
			"Error: 529 overloaded\n",
			"Retrying in 0.0 s, attempt 1/3: 529 overloaded\n",
			"[thinking] pondering the question\n",
			"the answer\n",
			"Retry 1 succeeded.\n",
			PROMPT,
		]);
		expect(await chat.end()).toBe(0);
	});

	it("regression: Ctrl+C in a retry's backoff printed 'Retry failed: Retry cancelled'; now it says the retry was aborted, once; retries that run out still say Retry failed", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		// A backoff long enough to be in it when Ctrl+C comes (it is cancelled, never waited for).
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 30_000 } }));
		const steps = script([{ stopReason: "error", errorMessage: "503 service unavailable" }, "never asked"]);
		const chat = repl(["--faux-script", steps, "--no-session"]);
		const from = await chat.idle(0).then(() => chat.mark());
		chat.send("a question");
		await chat.until("Retrying in 30.0 s, attempt 1/3: 503 service unavailable\n", from);
		chat.child.kill("SIGINT");
		const cancelled = await chat.idle(from, "Aborted");
		expectInOrder(cancelled, [
			"Error: 503 service unavailable\n",
			"Retrying in 30.0 s, attempt 1/3: 503 service unavailable\n",
			"Aborted after 1 retry attempt.\n",
			PROMPT,
		]);
		expect(cancelled).not.toContain("Retry failed");
		expect(cancelled).not.toContain("Aborted.\n");
		expect(await chat.end()).toBe(0);

		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1, maxRetries: 1 } }));
		const failing = script([
			{ stopReason: "error", errorMessage: "503 service unavailable" },
			{ stopReason: "error", errorMessage: "503 still unavailable" },
		]);
		const again = repl(["--faux-script", failing, "--no-session"]);
		await again.idle(0);
		const exhausted = await again.say("a question", "Retry failed");
		expectInOrder(exhausted, ["Retrying in 0.0 s, attempt 1/1", "Retry failed: 503 still unavailable\n", PROMPT]);
		expect(exhausted).not.toContain("Aborted");
		expect(await again.end()).toBe(0);
	});

	it("pi's quietStartup and hideThinkingBlock settings: no banner, thinking shown as a label only", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ quietStartup: true, hideThinkingBlock: true }));
		const steps = script([{ thinking: "pondering the question", text: "the answer" }]);
		const chat = repl(["--faux-script", steps, "--no-session"]);
		// Nothing before the first prompt: the line is read as soon as it is sent.
		const shown = await chat.say("a question", "the answer");
		// The whole output starts with the prompt: no banner before it.
		expect(chat.stdout.startsWith(PROMPT)).toBe(true);
		expectInOrder(shown, ["a question\n", "[thinking hidden]\n", "the answer\n", PROMPT]);
		expect(shown).not.toContain("pondering");
		expect(shown).not.toContain("settle interactive");
		expect(shown).not.toContain("/help for commands");
		expect(await chat.end()).toBe(0);
	});

	it("the end of input during a run: the run finishes, then the chat exits 0", async () => {
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "finished"]),
		]);
		await chat.idle(0);
		chat.send("work");
		await fileAppears(cli.project, "started");
		chat.child.stdin.end();
		writeFileSync(join(cli.project, "gate"), "");
		expect(await chat.exited).toBe(0);
		expectInOrder(chat.stdout, ["  opened\n", "finished\n"]);
		expect(transcript(bannerSessionFile(chat.stdout)).at(-1)).toBe("assistant: finished");
	});

	it("SIGTERM during a run ends the process as the other modes do: the command killed, the session closed, exit 143", async () => {
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
		]);
		await chat.idle(0);
		chat.send("work");
		await fileAppears(cli.project, "started");
		chat.child.kill("SIGTERM");
		expect(await chat.exited).toBe(143);
		expect(transcript(bannerSessionFile(chat.stdout))).toEqual([
			"user: work",
			"assistant: →bash [toolUse]",
			"toolResult: Command aborted",
			"assistant:  [aborted]",
		]);
	});

	it("/followup queues a message for after the run; it runs when the run would stop", async () => {
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "first answer"]),
		]);
		await chat.idle(0);
		chat.send("start");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("/followup then summarize");
		await chat.until("Queued (follow-up): then summarize\n", from);
		writeFileSync(join(cli.project, "gate"), "");
		const rest = await chat.idle(from, "then summarize\n>");
		expectInOrder(rest, ["first answer\n", "then summarize\n", PROMPT]);
		expect(await chat.end()).toBe(0);
	});

	it("a `/skill:name args` queued mid-run shows in the Queued notices as typed, not as the first line of its expanded block", async () => {
		const skillFile = join(cli.project, ".settle", "skills", "lint", "SKILL.md");
		mkdirSync(join(skillFile, ".."), { recursive: true });
		writeFileSync(skillFile, "---\nname: lint\ndescription: Lints a file\n---\nLINT BODY\n");
		const chat = repl([
			"--faux-script",
			script([
				{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
				"linted",
				"linted again",
				"done",
			]),
		]);
		await chat.idle(0);
		chat.send("start");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("/followup /skill:lint src/a.ts");
		await chat.until("Queued (follow-up): ", from);
		chat.send("/skill:lint src/b.ts");
		const queued = await chat.until("Queued (steer): ", from);
		writeFileSync(join(cli.project, "gate"), "");
		const rest = await chat.idle(from, "linted again");
		expect(await chat.end()).toBe(0);
		expect(queued.split("\n").filter((line) => line.startsWith("Queued"))).toEqual([
			"Queued (follow-up): /skill:lint src/a.ts",
			"Queued (steer): /skill:lint src/b.ts",
		]);
		// Delivered, each shows as typed too.
		expectInOrder(rest, ["» /skill:lint src/b.ts\n", "linted\n", "» /skill:lint src/a.ts\n", "linted again\n"]);
		// What the model got is the skill's expansion (the queue holds it expanded).
		expect(transcript(bannerSessionFile(chat.stdout)).filter((line) => line.includes("LINT BODY"))).toHaveLength(2);
	});

	it("Ctrl+C during a run names a queued `/skill:name args` it did not send as typed", async () => {
		const skillFile = join(cli.project, ".settle", "skills", "lint", "SKILL.md");
		mkdirSync(join(skillFile, ".."), { recursive: true });
		writeFileSync(skillFile, "---\nname: lint\ndescription: Lints a file\n---\nLINT BODY\n");
		const chat = repl([
			"--faux-script",
			script([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
		]);
		await chat.idle(0);
		chat.send("run forever");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("/skill:lint src/a.ts");
		await chat.until("Queued (steer): /skill:lint src/a.ts\n", from);
		chat.child.kill("SIGINT");
		expect(await chat.idle(from, "Aborted.\n")).toContain("Not sent: /skill:lint src/a.ts\n");
		expect(await chat.end()).toBe(0);
	});

	it("Ctrl+C while the prompt's own input hook runs: the chat says the prompt was not sent (nothing was sent or saved), and the next line runs", async () => {
		const hook = join(cli.dir, "slow-input.ts");
		writeFileSync(
			hook,
			`export default function (pi: any) {
	let first = true;
	pi.on("input", async () => {
		if (!first) return undefined;
		first = false;
		console.error("in the input hook");
		// Ends once the chat's own SIGINT listener (the Ctrl+C) has run: listeners of one signal run together.
		await new Promise((interrupted) => process.once("SIGINT", interrupted));
		return undefined;
	});
}
`,
		);
		const chat = repl(["--faux", "-e", hook]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("fix the build");
		await new Promise<void>((inHook) => {
			const check = () => (chat.stderr.includes("in the input hook") ? inHook() : undefined);
			chat.child.stderr.on("data", check);
			check();
		});
		chat.child.kill("SIGINT");
		const aborted = await chat.idle(from, "Not sent: fix the build\n");
		expect(aborted).toBe("fix the build\nNot sent: fix the build\nAborted.\n> ");
		const after = await chat.say("still there?", "still there?\n>");
		expectInOrder(after, ["still there?\n", "still there?\n", PROMPT]);
		expect(await chat.end()).toBe(0);
		expect(transcript(bannerSessionFile(chat.stdout))).toEqual(["user: still there?", "assistant: still there?"]);
	});

	it("Ctrl+C (SIGINT) during a run aborts it, keeps what was written, shows the queued line it did not send, and the chat takes the next line", async () => {
		const chat = repl([
			"--faux-script",
			script([{ text: "Starting.", toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
		]);
		await chat.idle(0);
		chat.send("run forever");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("never mind");
		await chat.until("Queued (steer): never mind\n", from);
		chat.child.kill("SIGINT");
		const aborted = await chat.idle(from, "Aborted.\n");
		expect(aborted).not.toContain("again to exit");
		// The queued steer is not delivered after an abort, and the chat says so.
		expect(aborted).toContain("Not sent: never mind\n");
		const after = await chat.say("still there?", "still there?\n>");
		expectInOrder(after, ["still there?\n", "still there?\n", PROMPT]);
		expect(await chat.end()).toBe(0);
		const messages = transcript(bannerSessionFile(chat.stdout));
		// The shell command is killed; the model call that would follow is recorded as aborted.
		expect(messages).toEqual([
			"user: run forever",
			"assistant: Starting. →bash [toolUse]",
			"toolResult: Command aborted",
			"assistant:  [aborted]",
			"user: still there?",
			"assistant: still there?",
		]);
		const result = readEntries(bannerSessionFile(chat.stdout)).filter(
			(entry) => (entry.message as { role?: string } | undefined)?.role === "toolResult",
		)[0]!.message as { isError: boolean };
		expect(result.isError).toBe(true);
	});

	it("Ctrl+C on an idle prompt says how to exit; a line typed then is a prompt as usual", async () => {
		const chat = repl(["--faux", "--no-session"]);
		const from = await chat.idle(0).then(() => chat.mark());
		chat.child.kill("SIGINT");
		await chat.until("(Ctrl+C again to exit, or Ctrl+D)\n", from);
		await chat.say("hello", "hello\n>");
		expect(await chat.end()).toBe(0);
	});
});

describe("settle -i: bad input", () => {
	it("a prompt the session refuses (a provider without a key) is one error line saying what to do; the chat goes on", async () => {
		const chat = repl(["--no-session", "--model", "anthropic/claude-sonnet-4-5"], {
			ANTHROPIC_API_KEY: undefined,
			ANTHROPIC_OAUTH_TOKEN: undefined,
		});
		await chat.idle(0);
		const refused = await chat.say("hi");
		expect(refused).toBe(
			`hi\nError: No API key found for anthropic. To fix it, set the provider's key in the environment (ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY) or in ${join(cli.agentDir, "auth.json")}.\n${PROMPT}`,
		);
		expect(await chat.say("/session")).toContain("  model: anthropic/claude-sonnet-4-5");
		expect(await chat.end()).toBe(0);
	});
});

describe("settle -i: built-in commands", () => {
	it("/name, /session, /new, /resume (list and id prefix), /quit", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("the first session", "the first session\n>");
		expect(await chat.say("/name alpha")).toContain("Session name: alpha\n");
		const info = await chat.say("/session");
		const firstId = /^Session (\S+) "alpha"$/m.exec(info)?.[1];
		expect(firstId).toBeDefined();
		const firstFile = bannerSessionFile(chat.stdout);
		expect(info).toContain(`  file: ${firstFile}\n`);
		// The numbers of RPC get_session_stats: the context's messages, the system prompt record included.
		expect(info).toContain("  messages: 3 in context (1 yours, 1 answers, 0 tool results, 1 other; 0 tool calls)\n");
		expect(info).toMatch(/ {2}tokens: \d+ \(input \d+, output \d+/);
		// pi 1.6's default mode; the faux model declares no prompt cache lifetime, so nothing is warmed.
		expect(info).toContain("  cache warming: idle, Inactive (cache lifetime unavailable)\n");

		const fresh = await chat.say("/new");
		const [, secondId, secondFile] = /^New session (\S+): (\S+)$/m.exec(fresh) ?? [];
		expect(secondId).toBeDefined();
		expect(secondId).not.toBe(firstId);
		await chat.say("the second session", "the second session\n>");

		const list = await chat.say("/resume");
		expectInOrder(list, [
			"Sessions of this project, newest first",
			`  ${secondId}  `,
			"the second session (current)\n",
			`  ${firstId}  `,
			"alpha: the first session\n",
		]);
		// Ids are UUIDv7: sessions started close together share their first characters.
		const resumed = await chat.say(`/resume ${firstId!.slice(0, 24)}`);
		expect(resumed).toContain(`Resumed ${firstId} (2 messages): ${firstFile}\n`);
		expect(resumed).toContain("  last message: the first session\n");
		expect((await chat.say("/session")).split("\n")).toContain(`Session ${firstId} "alpha"`);
		expect(await chat.say(`/resume ${secondFile}`)).toContain(`Resumed ${secondId} (2 messages): ${secondFile}\n`);
		expect(await chat.say(`/resume ${firstFile}`)).toContain(`Resumed ${firstId} (2 messages): ${firstFile}\n`);
		const missing = await chat.say("/resume zzzz");
		expect(missing).toContain("Error: No session of this project has an id starting with zzzz (in ");
		expect(missing).toContain(`The latest: ${secondId} (`);
		expect(missing).toContain(" (/resume lists them).\n");
		// The rule settle --session follows: a prefix both sessions share lists them, nothing is resumed.
		let shared = 0;
		while (firstId![shared] === secondId![shared]) shared++;
		const prefix = firstId!.slice(0, shared);
		const ambiguous = await chat.say(`/resume ${prefix}`);
		expect(ambiguous).toContain(`Error: 2 sessions of this project have an id starting with ${prefix}: `);
		expect(ambiguous).toContain(`${firstId} (`);
		expect(ambiguous).toContain(`${secondId} (`);
		expect(ambiguous).toContain('"the first session")');
		expect(ambiguous).toContain("Give more of the id.\n");
		expect((await chat.say("/session")).split("\n")).toContain(`Session ${firstId} "alpha"`);

		const from = chat.mark();
		chat.send("/quit");
		chat.send("never sent");
		expect(await chat.exited).toBe(0);
		expect(chat.stdout.slice(from)).not.toContain("never sent\n");
		expect(transcript(firstFile)).toEqual(["user: the first session", "assistant: the first session"]);
	});

	it("/resume <id of another project's session>: names that project and the /resume <path> that resumes it there", async () => {
		const other = join(cli.dir, "other");
		mkdirSync(other);
		const there = cli.settle(["--faux", "--json", "--cwd", other, "over there"]);
		expect(there.code).toBe(0);
		const id = (JSON.parse(there.stdout.split("\n")[0]!) as { id: string }).id;
		const chat = repl(["--faux"]);
		await chat.idle(0);
		const refused = await chat.say(`/resume ${id.slice(0, 20)}`);
		const named = new RegExp(`of the project ${other} does\\. To resume it there: /resume (\\S+\\.jsonl)\\n`).exec(
			refused,
		);
		expect(refused).toContain(
			`Error: No session of this project (${cli.project}) has an id starting with ${id.slice(0, 20)}; session ${id} (`,
		);
		expect(named).not.toBeNull();
		expect(await chat.say(`/resume ${named![1]}`)).toContain(`Resumed ${id} (2 messages): ${named![1]}\n`);
		expect((await chat.say("/session")).split("\n")).toContain(`  cwd: ${other}`);
		expect(await chat.end()).toBe(0);
	});

	it("/fork branches into a new session before the last message; the old file keeps everything", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("first question", "first question\n>");
		await chat.say("second question", "second question\n>");
		const oldFile = bannerSessionFile(chat.stdout);
		const forked = await chat.say("/fork");
		const newFile = /^Forked into a new session \((\S+)\), just before your message: second question$/m.exec(
			forked,
		)?.[1];
		expect(newFile).toBeDefined();
		expect(newFile).not.toBe(oldFile);
		await chat.say("another second", "another second\n>");
		expect(await chat.say("/fork nope")).toContain("Error: No entry of this session has an id starting with nope.\n");
		expect(await chat.end()).toBe(0);
		expect(transcript(newFile!)).toEqual([
			"user: first question",
			"assistant: first question",
			"user: another second",
			"assistant: another second",
		]);
		expect(transcript(oldFile)).toEqual([
			"user: first question",
			"assistant: first question",
			"user: second question",
			"assistant: second question",
		]);
	});

	it("/compact summarizes the conversation; a second /compact reports why not, in one line", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("one", "one\n>");
		await chat.say("two", "two\n>");
		const compacted = await chat.say("/compact keep it short", "Compacted");
		expectInOrder(compacted, ["Compacting the context (manual)…\n", "Compacted (manual): "]);
		const again = await chat.say("/compact");
		expect(again.split("\n").filter((line) => line.startsWith("Error:"))).toEqual(["Error: Already compacted"]);
		expect(await chat.end()).toBe(0);
		const entries = readEntries(bannerSessionFile(chat.stdout));
		expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});

	it("/compact whose summary request fails transiently prints the summarization retry, then compacts", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ compaction: { keepRecentTokens: 1 }, retry: { baseDelayMs: 1 } }),
		);
		const steps = script([
			"first answer",
			"second answer",
			// A split turn: the history request fails once, the turn prefix answers, the retry answers.
			{ stopReason: "error", errorMessage: "503 Service Unavailable" },
			"PREFIX",
			"HISTORY",
		]);
		const chat = repl(["--faux-script", steps]);
		await chat.idle(0);
		await chat.say("one", "first answer\n");
		await chat.say("two", "second answer\n");
		const compacted = await chat.say("/compact", "Compacted");
		expectInOrder(compacted, [
			"Compacting the context (manual)…\n",
			"Summary request (history) failed, retrying in 0.0 s, attempt 1/3: 503 Service Unavailable\n",
			"Compacted (manual): ",
		]);
		expect(await chat.end()).toBe(0);
		const entries = readEntries(bannerSessionFile(chat.stdout));
		expect(entries.filter((entry) => entry.type === "compaction").map((entry) => entry.summary)).toEqual([
			expect.stringMatching(/^HISTORY\n[\s\S]*PREFIX/),
		]);
	});

	it("/model and /thinking show and set; bad values are one error line each", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		const list = await chat.say("/model");
		expect(list).toContain("Model: faux/faux-1\n");
		expect(list).toContain("* faux/faux-1\n");
		expect(await chat.say("/model faux/faux-1")).toContain("Model: faux/faux-1, thinking off\n");
		expect(await chat.say("/model nope/none")).toContain(
			"Error: Model nope/none not found (/model lists the models).\n",
		);
		expect(await chat.say("/thinking")).toContain("Thinking: off (this model supports: off)\n");
		// The faux model does not reason: the level is clamped, and the reply says so.
		expect(await chat.say("/thinking high")).toContain("Thinking: off (the model supports: off)\n");
		const bad = await chat.say("/thinking loud");
		expect(bad).toContain(
			'Error: Invalid thinking level "loud". Valid values: off, minimal, low, medium, high, xhigh\n',
		);
		// Level names are lowercase, as for pi's --thinking: another case is refused, the level stays.
		expect(await chat.say("/thinking HIGH")).toContain(
			'Error: Invalid thinking level "HIGH". Valid values: off, minimal, low, medium, high, xhigh\n',
		);
		expect(await chat.say("/thinking")).toContain("Thinking: off (this model supports: off)\n");
		expect(await chat.end()).toBe(0);
	});

	it("an unknown command is one error line naming /help; nothing is sent to the model; a path-like line is a prompt", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		const unknown = await chat.say("/frobnicate now");
		expect(unknown).toBe("/frobnicate now\nError: unknown command /frobnicate. Type /help for the commands.\n> ");
		expect(await chat.say("/usr/bin/env is odd", "/usr/bin/env is odd\n/usr/bin/env is odd\n>")).toBeTruthy();
		expect(await chat.end()).toBe(0);
	});
});

describe("settle -i: extensions", () => {
	it("/model switches to an extension's model; Ctrl+C while its answer streams keeps the partial answer in the session file", async () => {
		const extension = join(cli.dir, "slow.ts");
		writeFileSync(extension, slowProvider());
		const chat = repl(["--faux", "-e", extension]);
		await chat.idle(0);
		expect(await chat.say("/model")).toContain("* faux/faux-1\n  slow/slow-1\n");
		expect(await chat.say("/model slow/slow-1")).toContain("Model: slow/slow-1, thinking off\n");
		const from = chat.mark();
		chat.send("speak");
		await chat.until("partial words", from);
		chat.child.kill("SIGINT");
		expectInOrder(await chat.idle(from, "Aborted."), ["partial words\n", "Aborted.\n", PROMPT]);
		expect(await chat.end()).toBe(0);
		expect(transcript(bannerSessionFile(chat.stdout))).toEqual(["user: speak", "assistant: partial words [aborted]"]);
	});

	it("a prompt template runs as a slash command (expanded) and is listed in /help", async () => {
		mkdirSync(join(cli.agentDir, "prompts"), { recursive: true });
		writeFileSync(
			join(cli.agentDir, "prompts", "greet.md"),
			"---\ndescription: Greets someone\n---\nSay hello to $1 please",
		);
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		expect(await chat.say("/help")).toMatch(/^ {2}\/greet +Greets someone$/m);
		// The faux model echoes the expanded text.
		expect(await chat.say("/greet Bob", "Say hello to Bob please\n>")).toContain("Say hello to Bob please\n");
		expect(await chat.end()).toBe(0);
	});

	it("an extension command is listed in /help and runs; its ctx.ui.confirm, select and input are answered by typed lines; notify prints", async () => {
		const extension = join(cli.dir, "deploy.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.registerCommand("deploy", {
		description: "Deploys after asking",
		handler: async (args, ctx) => {
			const ok = await ctx.ui.confirm("Deploy?", "to " + args);
			const where = ok ? await ctx.ui.select("Where?", ["eu", "us"]) : undefined;
			const name = ok ? await ctx.ui.input("Release name?", "e.g. v1") : undefined;
			ctx.ui.notify(\`hasUI=\${ctx.hasUI} ok=\${ok} where=\${where} name=\${name}\`, "info");
		},
	});
	pi.registerCommand("nowhere", {
		description: "Asks to choose among no options",
		handler: async (_args, ctx) => {
			ctx.ui.notify(\`nowhere=\${await ctx.ui.select("Nowhere?", [])}\`, "info");
		},
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.idle(0);
		expect(await chat.say("/help")).toMatch(/^ {2}\/deploy +Deploys after asking$/m);

		let from = chat.mark();
		chat.send("/deploy staging");
		await chat.until("Deploy?: to staging [y/N] ", from);
		from = chat.mark();
		chat.send("y");
		await chat.until("Choose 1-2 (empty to cancel): ", from);
		expectInOrder(chat.stdout.slice(from), ["Where?\n", "  1. eu\n", "  2. us\n"]);
		from = chat.mark();
		chat.send("2");
		await chat.until("Release name? (e.g. v1): ", from);
		const done = await chat.say("v1.2", "[info]");
		expect(done).toContain("[info] hasUI=true ok=true where=us name=v1.2\n");

		from = chat.mark();
		chat.send("/deploy prod");
		await chat.until("Deploy?: to prod [y/N] ", from);
		expect(await chat.say("no", "[info]")).toContain("[info] hasUI=true ok=false where=undefined name=undefined\n");

		// A select with no options asks nothing ("Choose 1-0" could only cancel): undefined at once. The
		// empty line after it is the chat's, an idle prompt.
		from = chat.mark();
		chat.send("/nowhere");
		chat.send("");
		const nowhere = await chat.idle(from, "[info]");
		expectInOrder(nowhere, ["Nowhere?\n", "No options to choose from: cancelled.\n", "[info] nowhere=undefined\n"]);
		expect(nowhere).not.toContain("Choose");

		// Ctrl+C at a question cancels it (confirm answers false); the chat goes on.
		from = chat.mark();
		chat.send("/deploy later");
		await chat.until("Deploy?: to later [y/N] ", from);
		chat.child.kill("SIGINT");
		const cancelled = await chat.idle(from, "[info]");
		expectInOrder(cancelled, ["(cancelled)\n", "[info] hasUI=true ok=false where=undefined name=undefined\n", PROMPT]);
		expect(await chat.end()).toBe(0);
	});
});
