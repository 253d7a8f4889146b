/**
 * Reports about the slash commands of the interactive chat, replayed against `settle -i`: a real
 * `settle` child process driven through a pipe, with `models.json` providers on a local
 * OpenAI-compatible endpoint (test/llm/wire/server.ts). Every wait is on an output marker.
 *
 * openclaw#44498: with several models under one provider whose ids carry a vendor prefix
 * (`z-ai/glm5`, `minimaxai/minimax-m2.5` under `nvidia`), `/model minimaxai/minimax-m2.5` failed:
 * the slash was read as the provider/id separator. pi 0.73.1's `/model <ref>` takes `provider/id`
 * or a bare id (one containing a slash too), case-insensitively (`findExactModelReferenceMatch`).
 * What the user should see: `/model <id>` switches to that model, and it answers.
 *
 * pi#8081 / pi#5135: an unknown command, or a bare `/`, went to the model as a prompt. senpi#1519:
 * `/thinking <level>` had no handler and reached the model (a steer while it streamed). pi#6172: an
 * extension command's body on the lines after its name (piped) was lost. openclaw#35092: `/new`
 * while a message waited in the queue delivered it to the fresh session.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { bannerSessionFile, fileAppears, GATED_COMMAND, Repl, transcript } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-interactive-commands-");
const server = useWireServer();

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

describe("openclaw#44498: /model <id> for a model whose id carries a vendor prefix", () => {
	it("openclaw#44498: settle -i: /model minimaxai/minimax-m2.5 (the id alone, with its slash) switches to it and it answers; /model NVIDIA/Z-AI/GLM5 (another case) switches back", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "z-ai/glm5" }, { id: "minimaxai/minimax-m2.5" }],
		});
		const chat = repl(["--no-session", "--model", "local/z-ai/glm5"]);
		await chat.idle(0);
		expect(await chat.say("/model minimaxai/minimax-m2.5")).toContain("Model: local/minimaxai/minimax-m2.5");
		server.reply(chatReply([{ type: "text", text: "answered by minimax" }]));
		expect(await chat.say("which model?")).toContain("answered by minimax");
		expect(server.requests.at(-1)?.body.model).toBe("minimaxai/minimax-m2.5");

		expect(await chat.say("/model LOCAL/Z-AI/GLM5")).toContain("Model: local/z-ai/glm5");
		server.reply(chatReply([{ type: "text", text: "answered by glm" }]));
		expect(await chat.say("and now?")).toContain("answered by glm");
		expect(server.requests.at(-1)?.body.model).toBe("z-ai/glm5");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("pi#8081 / pi#5135: a typo'd slash command, or a bare /, typed in the chat", () => {
	it("pi#8081: /exti (an unknown command) is refused with a pointer to /help and costs no model call; /exit quits", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const chat = repl(["--no-session", "--model", "local/coder"]);
		await chat.idle(0);
		expect(await chat.say("/exti")).toContain("Error: unknown command /exti. Type /help for the commands.");
		const from = chat.mark();
		chat.send("/exit");
		expect(await chat.exited).toBe(0);
		expect(chat.stdout.slice(from)).not.toContain("Error");
		expect(server.requests).toHaveLength(0);
	});

	it("pi#5135: a bare / (and / with blanks) is refused with a pointer to /help, not sent to the model; the next prompt is the first request", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const chat = repl(["--no-session", "--model", "local/coder"]);
		await chat.idle(0);
		expect(await chat.say("/")).toContain("Type /help for the commands.");
		expect(await chat.say("  /  ")).toContain("Type /help for the commands.");
		server.reply(chatReply([{ type: "text", text: "the real question answered" }]));
		expect(await chat.say("the real question")).toContain("the real question answered");
		expect(server.requests).toHaveLength(1);
		expect(JSON.stringify(server.requests[0]?.body.messages)).not.toMatch(/"content":"\s*\/\s*"/);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("senpi#1519: /thinking <level> typed while the model runs", () => {
	it("senpi#1519: /thinking high during a tool call sets the level at once (not a steer to the model); the run's next request asks for high effort; /thinking banana lists the levels", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", reasoning: true }] });
		server.reply(
			chatReply([{ type: "tool_call", id: "call_gate", name: "bash", arguments: { command: GATED_COMMAND } }]),
			chatReply([{ type: "text", text: "job done" }]),
		);
		const chat = repl(["--no-session", "--model", "local/coder", "--thinking", "low"]);
		await chat.idle(0);
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("/thinking high");
		await chat.until("Thinking: high", from);
		writeFileSync(join(cli.project, "gate"), "");
		const rest = await chat.idle(from, "job done");
		expect(rest).not.toContain("Queued");
		expect(server.requests).toHaveLength(2);
		expect(server.requests[0]?.body.reasoning_effort).toBe("low");
		expect(server.requests[1]?.body.reasoning_effort).toBe("high");
		expect(JSON.stringify(server.requests[1]?.body.messages)).not.toContain("/thinking");

		const refused = await chat.say("/thinking banana");
		expect(refused).toContain('Invalid thinking level "banana". Valid values: off, minimal, low, medium, high, xhigh');
		expect(server.requests).toHaveLength(2);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("pi#6172: an extension command whose body follows on the next lines", () => {
	it("pi#6172: `/spec:next`, a blank line, then the body, piped to settle -p: the handler gets the whole body as args; nothing goes to the model (faux echo)", async () => {
		const log = join(cli.dir, "args.json");
		const extension = join(cli.dir, "spec.mjs");
		writeFileSync(
			extension,
			`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("spec:next", {
		description: "next spec step",
		handler: async (args) => writeFileSync(${JSON.stringify(log)}, JSON.stringify(args)),
	});
}
`,
		);
		const body = "focus on UI\nand the settings page";
		// The faux model echoes a prompt: had the text gone to it, stdout would hold it.
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p"], `/spec:next\n\n${body}\n`);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(JSON.parse(readFileSync(log, "utf8"))).toBe(`\n${body}`);
		expect(run.stdout).toBe("");
	});
});

describe("openclaw#35092: /new typed while a message waits in the queue", () => {
	it("openclaw#35092: /new during a run is refused (said so), the queued steer goes to the run it was typed in, and the session /new opens afterwards starts empty", async () => {
		const steps = join(cli.dir, "script.json");
		writeFileSync(
			steps,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
				"job done",
				"fresh answer",
			]),
		);
		const chat = repl(["--faux-script", steps]);
		await chat.idle(0);
		const first = bannerSessionFile(chat.stdout);
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("remember the blue folder");
		chat.send("/new");
		await chat.until("/new needs an idle session and was not run", from);
		writeFileSync(join(cli.project, "gate"), "");
		await chat.idle(from, "job done");
		expect(transcript(first)).toEqual([
			"user: start the job",
			"assistant: →bash [toolUse]",
			"toolResult: opened\n",
			"user: remember the blue folder",
			"assistant: job done",
		]);
		const opened = await chat.say("/new");
		const second = /New session \S+: (\S+\.jsonl)/.exec(opened)?.[1];
		expect(second, opened).toBeDefined();
		await chat.say("a new question", "fresh answer");
		expect(await chat.end()).toBe(0);
		expect(second).not.toBe(first);
		expect(transcript(second!)).toEqual(["user: a new question", "assistant: fresh answer"]);
	});
});
