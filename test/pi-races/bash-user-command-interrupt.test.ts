/**
 * gemini-cli#15399: Ctrl+C in a shell command the user ran from the chat cancelled the whole call,
 * and the agent never saw what the command had printed until then. Replayed against the real
 * `settle` in a real pseudo-terminal (util-linux `script`) on a local OpenAI-compatible server: a
 * `!` command that prints two lines, starts a background `sleep` and waits, stopped with Ctrl+C.
 * What the user should see: the command (the background `sleep` too) stopped, the chat still there,
 * and the next message's request carrying the output printed before the interrupt.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { bannerSessionFile, readEntries, Terminal } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-bash-user-command-interrupt-");
const server = useWireServer();
beforeEach(() => writeLocalProvider(cli.agentDir, `${server.url}/v1`));

let marker: string;
beforeEach(() => {
	marker = processMarker();
});
afterEach(() => killMarked(marker));

describe("gemini-cli#15399: Ctrl+C in the user's shell command cancelled the call; its output never reached the agent", () => {
	it("gemini-cli#15399: settle -i, Ctrl+C while `!` runs: the command and its background sleep are gone, the chat goes on, and the next request carries the output printed so far", async () => {
		const term = new Terminal(["--model", "local/coder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		// `ready` is printed once the marked background sleep runs; then the command waits for it.
		term.type(`!echo first line; ${markedSleepCommand(marker, 300, "echo second line")}\r`);
		await term.until("second line\r\n", term.mark());
		expect(markedProcesses(marker)).not.toEqual([]);
		const interrupted = term.mark();
		term.type("\x03");
		await term.until("(cancelled)", interrupted);
		await term.until("> ", interrupted);
		// Nothing of the command is left (read once the chat shows its prompt again, no waiting).
		expect(markedProcesses(marker)).toEqual([]);

		server.reply(chatReply([{ type: "text", text: "It printed two lines." }]));
		const asked = term.mark();
		term.type("what did it print?\r");
		await term.until("It printed two lines.", asked);
		const sent = JSON.stringify(server.requests[0]?.body?.messages);
		expect(sent).toContain("first line\\nsecond line");
		expect(sent).toContain("what did it print?");
		term.type("\x04");
		expect(await term.exited).toBe(0);

		const saved = readEntries(bannerSessionFile(term.output.replaceAll("\r\n", "\n")))
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message as { role: string; output?: string; cancelled?: boolean })
			.filter((message) => message.role === "bashExecution");
		expect(saved).toEqual([expect.objectContaining({ output: "first line\nsecond line\n", cancelled: true })]);
	});
});
