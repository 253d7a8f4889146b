/**
 * narumiruna/pi-extensions#725, replayed: with pi-github-pr loaded, Esc while a tool ran made pi
 * exit to the shell (code 0) instead of returning to the prompt: its `agent_end` handler ran
 * `pi.exec("gh", …, { signal: ctx.signal })` on the aborted run's signal, that failed, and the
 * handler's rejection ended the process. Against Settle: a real `settle -i` whose extension's
 * `agent_end` handler does the same (the exec on the aborted signal, then a throw), Ctrl+C while
 * the model's `sleep 20` runs: the chat says the run was aborted and names the handler's error,
 * is back at the prompt, answers the next line, and exits 0 at the end of input.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-abort-agent-end-");

/** pi-github-pr's status refresh after every run, aborted ones included. */
const PR_STATUS_EXTENSION = `export default function (pi) {
	pi.on("agent_end", async (_event, ctx) => {
		const view = await pi.exec("sh", ["-c", "echo '#42 open'"], { signal: ctx.signal });
		if (view.killed || view.code !== 0) throw new Error("gh pr view failed: aborted");
	});
}
`;

describe("narumiruna/pi-extensions#725: Esc during a tool run exited pi (code 0) when an agent_end handler failed on the aborted signal", () => {
	it("narumiruna/pi-extensions#725: settle -i, Ctrl+C while bash runs: the handler's error is named, the chat is back at the prompt, the next line is answered, exit 0", async () => {
		const extension = join(cli.dir, "pr-status.mjs");
		writeFileSync(extension, PR_STATUS_EXTENSION);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "touch started; sleep 20" } }] },
				"answer to the next line",
			]),
		);
		const chat = new Repl(["--approve", "--faux-script", script, "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		chat.send("run sleep 20 in bash");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.child.kill("SIGINT");
		const after = await chat.idle(from);
		expect(after).toContain("Aborted.\n");
		expect(after).toContain(`Extension error (${extension}, agent_end): gh pr view failed: aborted`);
		// Still running: the next line is answered by the same process (no model request followed the abort).
		const next = await chat.say("and now?", "answer to the next line");
		expect(next).not.toContain("Extension error");
		expect(await chat.end()).toBe(0);
	});
});
