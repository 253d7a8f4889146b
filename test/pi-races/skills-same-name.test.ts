/**
 * gemini-cli#16022, altimate-code#1276: two skills in one skills folder declaring the same `name`
 * (two plugins' `test-driven-development`, a copied folder): one silently replaced the other, which
 * one depended on the order the folder was walked, and nothing said which file was used. What that
 * user should see: the same winner every run (the folder first by name), and a warning that names
 * both files: the one skipped and the one `/skill:name` runs. pi 0.73.1's interactive start-up
 * lists the winner and the skipped file; Settle's warning said only "collision" and the loser's
 * path. Replayed with the real `settle -p` on a local OpenAI-compatible endpoint.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-skills-same-name-");
const server = useWireServer();

function writeSkill(root: string, folder: string, description: string, body: string): string {
	mkdirSync(join(root, folder), { recursive: true });
	const file = join(root, folder, "SKILL.md");
	writeFileSync(file, `---\nname: deploy\ndescription: ${description}\n---\n${body}\n`);
	return file;
}

describe("gemini-cli#16022: two skills with the same name in one folder", () => {
	it("gemini-cli#16022, altimate-code#1276: settle -p /skill:deploy runs the folder first by name, and the warning names the skipped file and the one used", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const skills = join(cli.project, ".settle", "skills");
		// Made in reverse order: the winner must not depend on the order the folder is read in.
		const loser = writeSkill(skills, "platform-deploy", "PLATFORM-DEPLOY ships the platform", "PLATFORM-BODY");
		const winner = writeSkill(skills, "app-deploy", "APP-DEPLOY ships the app", "APP-BODY");
		server.reply(chatReply([{ type: "text", text: "deployed" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "/skill:deploy staging"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("deployed");
		const prompt = JSON.stringify(server.requests[0]?.body.messages.at(-1));
		expect(prompt).toContain("APP-BODY");
		expect(prompt).not.toContain("PLATFORM-BODY");
		const warning = run.stderr.split("\n").find((line) => line.includes('name "deploy" collision'));
		expect(warning).toBe(
			`Warning: name "deploy" collision: ${loser} is skipped, ${winner} is used; give one of them another name to keep both.`,
		);
	});

	it("gemini-cli#16022: settle -i: a second `deploy` skill added while the chat runs: /reload warns naming the skipped file and the one used", async () => {
		const skills = join(cli.project, ".settle", "skills");
		const winner = writeSkill(skills, "app-deploy", "APP-DEPLOY ships the app", "APP-BODY");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);

		const loser = writeSkill(skills, "platform-deploy", "PLATFORM-DEPLOY ships the platform", "PLATFORM-BODY");
		const reloaded = await chat.say("/reload", "Reloaded:");
		expect(reloaded).toContain(
			`Warning: name "deploy" collision: ${loser} is skipped, ${winner} is used; give one of them another name to keep both.`,
		);
		expect(await chat.end()).toBe(0);
	});
});
