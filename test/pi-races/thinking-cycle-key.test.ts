/**
 * Shift+Tab in the chat cycles the thinking level, as pi's `app.thinking.cycle` does; replayed
 * against a real `settle -i` in a pseudo-terminal (test/cli/interactive.helpers.ts) on a reasoning
 * model served by a local OpenAI-compatible server, whose requests show the level each message ran at.
 *
 * oh-my-pi#403: once Shift+Tab turned thinking on, it could not cycle back to `off`. What the user
 * should see: the cycle wraps from the model's highest level to `off`, and a message sent there asks
 * for no reasoning.
 *
 * pi#5909: every press appended a `thinking_level_change` to the session file; rapid cycling (a held
 * key) wrote tens of thousands and the session became too slow to use. What the user should see: the
 * level picked when a message is sent is recorded once (none when the presses came back round to the
 * level already set), and `settings.json` keeps it as the default.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { exitWitness, fileAppears, killWitnessed, readEntries, Terminal } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const SHIFT_TAB = "\x1b[Z";

describe("oh-my-pi#403, pi#5909: Shift+Tab cycles the thinking level", () => {
	const cli = useCliProject("settle-thinking-cycle-key-");
	const server = useWireServer();

	it("oh-my-pi#403, pi#5909: the cycle wraps to off; each message runs at the level picked, recorded once per message that changed it and once at the end", async () => {
		writeLocalProvider(cli.agentDir, server.url, { models: [{ id: "coder", reasoning: true }] });
		server.reply(
			chatReply([{ type: "text", text: "answer one" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer two" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer three" }], { model: "coder" }),
		);
		const term = new Terminal(["--model", "local/coder", "--thinking", "off"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		const file = /session: (\S+\.jsonl)/.exec(term.output)![1]!;

		/** Presses Shift+Tab `presses` times as one burst (a held key), then sends `text`; waits for `answer`. */
		const send = async (presses: number, text: string, answer: string) => {
			const from = term.mark();
			term.type(`${SHIFT_TAB.repeat(presses)}${text}\r`);
			await term.until(answer, from);
			return term.output.slice(from);
		};
		const shown = (screen: string) => [...screen.matchAll(/Thinking: (\w+)/g)].map((match) => match[1]);

		// Through the model's five levels and round again, in one burst.
		const first = await send(7, "one", "answer one");
		expect(shown(first)).toEqual(["minimal", "low", "medium", "high", "off", "minimal", "low"]);
		const second = await send(3, "two", "answer two");
		expect(shown(second)).toEqual(["medium", "high", "off"]);
		// Round to the level already set: nothing changes, nothing is written.
		const third = await send(5, "three", "answer three");
		expect(shown(third)).toEqual(["minimal", "low", "medium", "high", "off"]);
		// Picked, then the chat ends: set on the way out, so `-c` comes back on it.
		const from = term.mark();
		term.type(SHIFT_TAB.repeat(2));
		await term.until("Thinking: low", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);

		const efforts = server.requests.map((request) => (request.body as { reasoning_effort?: string }).reasoning_effort);
		expect(efforts).toEqual(["low", undefined, undefined]);
		const levels = readEntries(file)
			.filter((entry) => entry.type === "thinking_level_change")
			.map((entry) => entry.thinkingLevel);
		expect(levels).toEqual(["off", "low", "off", "low"]);
		const settings = JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8")) as Record<string, unknown>;
		expect(settings.defaultThinkingLevel).toBe("low");
	});

	const ends = [
		{ how: "the terminal hangs up", code: "129", end: (term: Terminal) => term.child.kill("SIGKILL") },
		{
			how: "settle gets SIGTERM",
			code: "143",
			end: () => process.kill(Number(readFileSync(join(cli.dir, "pid"), "utf8")), "SIGTERM"),
		},
	];
	for (const { how, code, end } of ends) {
		it(`pi#5909: a level picked with Shift+Tab and not yet used when ${how} is kept: recorded once in the session and saved as the default, as on Ctrl+D`, async () => {
			writeLocalProvider(cli.agentDir, server.url, { models: [{ id: "coder", reasoning: true }] });
			server.reply(chatReply([{ type: "text", text: "answer one" }], { model: "coder" }));
			const witness = join(cli.dir, "witness.mjs");
			writeFileSync(witness, exitWitness(cli.dir));
			const term = new Terminal(["--model", "local/coder", "--thinking", "off", "-e", witness], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				env: { NO_COLOR: "1" },
			});
			try {
				await term.until("> ", 0);
				const file = /session: (\S+\.jsonl)/.exec(term.output)![1]!;
				const answered = term.mark();
				term.type("one\r");
				await term.until("answer one", answered);
				const from = term.mark();
				term.type(SHIFT_TAB.repeat(3));
				await term.until("Thinking: medium", from);
				end(term);
				await fileAppears(cli.dir, "exit-code");
				expect(readFileSync(join(cli.dir, "exit-code"), "utf8")).toBe(code);
				const levels = readEntries(file)
					.filter((entry) => entry.type === "thinking_level_change")
					.map((entry) => entry.thinkingLevel);
				expect(levels).toEqual(["off", "medium"]);
				const settings = JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8")) as Record<
					string,
					unknown
				>;
				expect(settings.defaultThinkingLevel).toBe("medium");
			} finally {
				killWitnessed(cli.dir);
			}
		});
	}
});
