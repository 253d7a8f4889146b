/**
 * pi#2024 and pi#4006 in the mode they were reported in: `/resume` of a session another project
 * started, from a chat launched elsewhere. pi loaded the conversation but its tools went on running
 * in the folder pi was launched from, while its footer showed the session's. A real `settle -i`
 * child (stdin a pipe) on a faux script whose model runs `pwd` after the resume: the command must
 * run in the resumed session's project, and what the chat says must agree.
 */
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, Repl, readEntries } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-tree-");

/** Every session file under `dir`, at any depth. */
function sessionFiles(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name));
}

describe("pi#2024, pi#4006: /resume of another project's session keeps the launch folder for the tools", () => {
	it("pi#2024: settle -i started in project A, `/resume <B's session file>`: the model's `pwd` runs in B and the result is saved in B's file", async () => {
		const other = join(cli.dir, "other-project");
		mkdirSync(other);
		const started = runSettle(["--faux", "-p", "hello from the other project"], { cwd: other, agentDir: cli.agentDir });
		expect(started.code).toBe(0);
		const [otherFile] = sessionFiles(join(cli.agentDir, "sessions"));
		expect(otherFile).toBeDefined();

		const steps = join(cli.dir, "script.json");
		writeFileSync(steps, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, "here"]));
		const chat = new Repl(["--faux-script", steps], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(bannerSessionFile(chat.stdout)).not.toBe(otherFile);
		await chat.say(`/resume ${otherFile}`);
		await chat.say("where do your commands run?", "here\n");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");

		const results = readEntries(otherFile!).flatMap((entry) => {
			const message = entry.message as { role?: string; content?: { text?: string }[] } | undefined;
			return message?.role === "toolResult" ? [message.content?.map((part) => part.text ?? "").join("") ?? ""] : [];
		});
		expect(results).toHaveLength(1);
		expect(results[0]!.trim()).toBe(realpathSync(other));
		expect(results[0]).not.toContain(realpathSync(cli.project));
	});
});
