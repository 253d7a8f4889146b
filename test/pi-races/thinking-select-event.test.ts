/**
 * pi-model-router#27: with `defaultThinkingLevel` in `settings.json`, newer pi sent extensions a
 * `thinking_level_select` on startup and reload, which a model-router extension took for the user
 * pressing Shift+Tab: it saved the default as the user's level for every routed model. Replayed with
 * a real `settle -i` in a pseudo-terminal (test/cli/interactive.helpers.ts) and a real `settle -c -p`,
 * on a reasoning model served by a local OpenAI-compatible server, an extension logging each event to
 * a file. What the user should see: no event for the level a session starts or resumes at, one for the
 * level picked with Shift+Tab.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Terminal } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

describe("pi-model-router#27: thinking_level_select at startup", () => {
	const cli = useCliProject("settle-thinking-select-event-");
	const server = useWireServer();

	it("pi-model-router#27: starting and resuming at defaultThinkingLevel send extensions no thinking_level_select; Shift+Tab sends one, with the level picked", async () => {
		writeLocalProvider(cli.agentDir, server.url, { models: [{ id: "coder", reasoning: true }] });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "medium" }));
		const log = join(cli.dir, "selects.jsonl");
		const extension = writeExtension(
			cli.dir,
			"router.mjs",
			`pi.on("thinking_level_select", (event) => {
	process.getBuiltinModule("node:fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(event) + "\\n");
});`,
		);
		const selects = () =>
			existsSync(log)
				? readFileSync(log, "utf8")
						.trim()
						.split("\n")
						.map((line) => JSON.parse(line) as Record<string, unknown>)
				: [];
		server.reply(
			chatReply([{ type: "text", text: "answer one" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer two" }], { model: "coder" }),
			chatReply([{ type: "text", text: "answer three" }], { model: "coder" }),
		);
		const sessionDir = join(cli.dir, "sessions");
		const term = new Terminal(["--session-dir", sessionDir, "-e", extension, "--model", "local/coder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		let from = term.mark();
		term.type("one\r");
		await term.until("answer one", from);
		expect(selects()).toEqual([]);

		from = term.mark();
		term.type("\x1b[Ztwo\r");
		await term.until("answer two", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(selects()).toEqual([{ type: "thinking_level_select", level: "high", previousLevel: "medium" }]);

		const resumed = await runSettleAsync(["--session-dir", sessionDir, "-e", extension, "-c", "-p", "three"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(resumed.stdout).toBe("answer three\n");
		expect(resumed.code).toBe(0);
		expect(selects()).toHaveLength(1);
		const efforts = server.requests.map((request) => (request.body as { reasoning_effort?: string }).reasoning_effort);
		expect(efforts).toEqual(["medium", "high", "high"]);
	});
});
