/**
 * `models.json` changed by another program while `settle -i` runs (an editor mid-save, a script, a
 * typo), replayed against the real `settle` command on a local OpenAI-compatible endpoint: what
 * `/model` (which reads the file again, as pi's does) shows, and what the running session keeps.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-while-running-");
const server = useWireServer();

describe("pi-web#243: a models.json that no longer reads drops every custom provider, and nothing says why", () => {
	it("pi-web#243: settle -i, models.json cut mid-save: /model names the file and its error, keeps the last good read's models, and the next prompt still reaches the provider with its key; once fixed, its new model is listed", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const models = join(cli.agentDir, "models.json");
		const chat = new Repl(["--no-session", "--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);

		// Another program is writing the file: what is there so far is not JSON.
		writeFileSync(models, '{ "providers": { "local": { "baseUrl": ');
		const listed = await chat.say("/model");
		expect(listed).toContain(models);
		expect(listed).toContain("was not read");
		expect(listed).toContain("* local/coder");

		server.reply(chatReply([{ type: "text", text: "still answered" }]));
		expect(await chat.say("hi")).toContain("still answered");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer local-key");

		// The save finished, with a model added: /model reads it and lists it, the error gone.
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder" }, { id: "reviewer" }] });
		const fixed = await chat.say("/model");
		expect(fixed).toContain("local/reviewer");
		expect(fixed).not.toContain("was not read");
		expect(await chat.end()).toBe(0);
	});
});
