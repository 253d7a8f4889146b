/**
 * oh-my-pi#4345: hooks that called `pi.sendMessage("…")` with a plain string (not the documented
 * `{ customType, content, display }`) from `tool_call` had a bare `custom_message` line saved with
 * no content for each call; the conversation froze, and every later turn and every resume failed
 * before any provider call. Settle refused such a send, but its error line read `Extension error
 * (<runtime>, send_message)`: nothing said which extension sent it. What the user should see: the
 * bad send refused at once, the extension and the line named on stderr with what to pass, nothing saved for it, and the session going on — now and
 * after a resume. Replayed with real `settle -p` and `settle -c -p` child processes, a real
 * extension file and the scripted faux model.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { persistedRoles, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-send-message-shapes-");

/** Three hooks on every tool call, each noting it with a plain string. */
const NOTING_HOOKS = `export default function (pi) {
	for (const hook of ["format", "lint", "test"]) {
		pi.on("tool_call", (event) => {
			pi.sendMessage(hook + " noted " + event.toolName);
		});
	}
}
`;

describe("oh-my-pi#4345: pi.sendMessage with a plain string", () => {
	it("oh-my-pi#4345: three tool_call hooks sending a plain string: each send refused on stderr naming the extension; no custom_message saved; the run and a resumed one answer", () => {
		const extension = join(cli.dir, "noting-hooks.mjs");
		writeFileSync(extension, NOTING_HOOKS);
		const settle = (steps: unknown[], args: string[]) => {
			const script = join(cli.dir, "script.json");
			writeFileSync(script, JSON.stringify(steps));
			return runSettle(["--faux-script", script, "-e", extension, ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
			});
		};

		const first = settle(
			[{ toolCalls: [{ name: "bash", arguments: { command: "ls" } }] }, "listed"],
			["-p", "list the files"],
		);
		expect([first.code, first.stdout]).toEqual([0, "listed\n"]);
		const refusals = first.stderr.trim().split("\n");
		expect(refusals).toHaveLength(3);
		expect(refusals).toEqual(
			["format", "lint", "test"].map(
				(hook) =>
					`Extension error (<runtime> for ${extension}, send_message): pi.sendMessage: the message must be an object { customType, content, display } (got "${hook} noted bash"). Nothing was sent. (thrown at noting-hooks.mjs:4)`,
			),
		);

		const second = settle(["answered after the resume"], ["-c", "-p", "and again"]);
		expect([second.code, second.stdout, second.stderr]).toEqual([0, "answered after the resume\n", ""]);
		const [file] = sessionFilesUnder(cli.agentDir);
		// No custom message saved (pi saved a bare one per send): the file holds the two exchanges only.
		expect(persistedRoles(file as string)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"user",
			"assistant",
		]);
	});
});
