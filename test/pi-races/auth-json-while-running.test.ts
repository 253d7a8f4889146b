/**
 * `auth.json` changed by another program while `settle -i` runs (a key rotated in an editor, a key
 * stored from another terminal), replayed against the real `settle` command on a local
 * OpenAI-compatible endpoint: which key the next request carries.
 *
 * TelePi#10 (a long-running pi SDK host), codex-acp#258, codex#42771: credentials were read once at
 * start. A key stored after start (pi `/login` in another terminal) still gave "No API key found",
 * and a rotated key kept the old one on the wire (401) until the process was restarted. What the
 * user should see: the next prompt after the file changed goes out with the file's current key; a
 * file caught mid-save (not JSON yet) keeps the last good keys in use.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuthStorage } from "../../src/index.js";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-auth-json-while-running-");
const server = useWireServer();

describe("TelePi#10, codex-acp#258, codex#42771: auth.json changed while a session runs is not read again", () => {
	it("TelePi#10: settle -i started without a key, the key stored in auth.json from another process: the next prompt reaches the provider with it", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { deepseek: { baseUrl: `${server.url}/v1` } } }),
		);
		const chat = new Repl(["--no-session", "--model", "deepseek/deepseek-v4-flash"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { DEEPSEEK_API_KEY: undefined },
		});
		await chat.idle(0);
		const refused = await chat.say("first try");
		expect(refused).toContain("No API key");
		expect(server.requests).toHaveLength(0);

		// Another terminal stores the key (as `settle` and pi do: under the lock, by rename).
		AuthStorage.create(join(cli.agentDir, "auth.json")).set("deepseek", "stored-later");
		server.reply(chatReply([{ type: "text", text: "now keyed" }]));
		expect(await chat.say("second try")).toContain("now keyed");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer stored-later");
		expect(await chat.end()).toBe(0);
	});

	it("codex#42771: settle -i, the key in auth.json rotated in an editor: the next prompt carries the new key; a half-saved auth.json keeps the last good key", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const auth = join(cli.agentDir, "auth.json");
		writeFileSync(auth, JSON.stringify({ local: { type: "api_key", key: "old-key" } }), { mode: 0o600 });
		const chat = new Repl(["--no-session", "--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);

		server.reply(chatReply([{ type: "text", text: "one" }]));
		expect(await chat.say("hi")).toContain("one");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer old-key");

		// Rotated in place, the way an editor saves (same file, new content).
		writeFileSync(auth, JSON.stringify({ local: { type: "api_key", key: "rotated-key" } }));
		server.reply(chatReply([{ type: "text", text: "two" }]));
		expect(await chat.say("again")).toContain("two");
		expect(server.requests[1]?.headers.authorization).toBe("Bearer rotated-key");

		// Caught mid-save: not JSON yet. The key last read stays in use.
		writeFileSync(auth, '{ "local": { "type": "api_key", "key": ');
		server.reply(chatReply([{ type: "text", text: "three" }]));
		expect(await chat.say("once more")).toContain("three");
		expect(server.requests[2]?.headers.authorization).toBe("Bearer rotated-key");
		expect(await chat.end()).toBe(0);
	});
});
