/**
 * Reports about a bash command the user interrupts, replayed against Settle with real processes:
 * - gemini-cli#19512, adal-cli#115: a long test run cancelled once its failures showed; the model
 *   was then given nothing of what it had printed, though the failures were what mattered.
 * - claude-code#88608: Esc during `git commit` whose post-commit hook is slow: the commit was made,
 *   yet the harness told the model the call was rejected and nothing was written.
 * - command-code#428: Esc during `sleep 60 && …`; the next message could not be sent until the sleep
 *   was over.
 * What the user should see: the output so far and "Command aborted" in the call's result (in the
 * file, and in the next request), the command's processes gone, and the next prompt answered at once.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, script } from "./helpers.js";
import { markedProcesses, markersPerTest } from "./processes.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});
const marker = markersPerTest();

/** Resolves once the running bash call has streamed `text`. */
function streamed(harness: Harness, text: string): Promise<void> {
	return new Promise((resolve) => {
		const stop = harness.session.subscribe((event: AgentSessionEvent) => {
			if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes(text)) {
				stop();
				resolve();
			}
		});
	});
}

/** The text of the tool result in a request's messages. */
function toolResultIn(messages: readonly { role: string; content?: unknown }[]): string {
	const result = messages.find((message) => message.role === "toolResult");
	return JSON.stringify(result?.content ?? null);
}

describe("gemini-cli#19512 / adal-cli#115 / command-code#428: a command interrupted mid-run", () => {
	it("gemini-cli#19512: the failures printed before the abort, and that the command was aborted, reach the model with the next prompt; nothing of the command runs on, and the next prompt is answered at once", async () => {
		const mark = marker();
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		// A test run that reports its failures, then goes on for minutes (`sleep 300 && …`, command-code#428).
		const command = `export ${mark}=1; echo 'PASS src/a.test.ts'; echo 'FAIL src/b.test.ts: expected 1, got 2'; sleep 300 && echo 'all suites done'`;
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command })], { stopReason: "toolUse" }),
			fauxAssistantMessage("b.test.ts fails: it expected 1 and got 2"),
		]);
		const failed = streamed(h, "FAIL src/b.test.ts");
		const run = h.session.prompt("run the tests");
		await failed;
		await h.session.abort();
		await run;
		expect(markedProcesses(mark)).toEqual([]);

		await h.session.prompt("what failed?");
		const sent = toolResultIn(h.faux.requests[1]!.messages as { role: string; content?: unknown }[]);
		expect(sent).toContain("PASS src/a.test.ts\\nFAIL src/b.test.ts: expected 1, got 2\\n\\n\\nCommand aborted");
		expect(sent).not.toContain("all suites done");
		expect(h.session.messages.at(-1)).toMatchObject({
			role: "assistant",
			content: [{ text: "b.test.ts fails: it expected 1 and got 2" }],
		});
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("claude-code#88608: Esc during a `git commit` whose post-commit hook is slow", () => {
	it("claude-code#88608: the commit is made; the call's result shows the hook's output and says the command was aborted, never that nothing ran", async () => {
		const mark = marker();
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		const repo = join(h.tempDir, "repo");
		const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
		execFileSync("git", ["init", "-q", repo]);
		git("config", "user.email", "u@example.com");
		git("config", "user.name", "u");
		writeFileSync(join(repo, "seed.txt"), "seed\n");
		git("add", "seed.txt");
		git("commit", "-qm", "seed");
		const seed = git("rev-parse", "HEAD");
		writeFileSync(join(repo, "change.txt"), "change\n");
		git("add", "change.txt");
		// The hook logs one tick per second for a minute, as in the report.
		const hook = join(repo, ".git", "hooks", "post-commit");
		writeFileSync(hook, `#!/bin/sh\nexport ${mark}=1\nfor i in $(seq 1 60); do echo "hook tick $i"; sleep 1; done\n`);
		chmodSync(hook, 0o755);
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: `cd '${repo}' && git commit -m probe` })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("the commit was made; its hook was stopped"),
		]);
		const ticking = streamed(h, "hook tick 1");
		const run = h.session.prompt("commit the change");
		await ticking;
		await h.session.abort();
		await run;
		expect(markedProcesses(mark)).toEqual([]);

		// The commit exists: the command's effect was real.
		expect(git("rev-parse", "HEAD~1")).toBe(seed);
		expect(git("log", "-1", "--format=%s")).toBe("probe");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: true });
		const text = JSON.stringify((result as { content: unknown }).content);
		expect(text).toMatch(/hook tick 1\\n(hook tick \d+\\n)*\\n\\nCommand aborted/);
		expect(text).not.toMatch(/rejected|not written|nothing/i);
		await h.session.prompt("did it commit?");
		expect(toolResultIn(h.faux.requests[1]!.messages as { role: string; content?: unknown }[])).toBe(text);
	});
});
