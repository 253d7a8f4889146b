/**
 * Reports about providers extensions register (`pi.registerProvider`), replayed against the real
 * `settle` command (child processes) with an extension file and a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts): what the user should see is read off the request the model got and
 * the process's output.
 *
 * pi#5349: `pi.registerProvider("my-provider", { compat: { supportsDeveloperRole: false }, models })`
 * — the provider-level `compat` was silently dropped (only each model's own `compat` was read), so
 * an endpoint without the `developer` role answered 400 to every request. What the user should
 * see: the provider's compat shaping its models' requests (a `system` message, `max_tokens`), a
 * model's own compat winning field by field, as models.json does (gsd-2#5137).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-extension-providers-");
let server: WireServer;
beforeEach(async () => {
	server = await startWireServer();
});
afterEach(async () => {
	await server.close();
});

/** The role of the first message of a recorded chat-completions request. */
function firstRole(index: number): string {
	const messages = server.requests[index]?.body.messages as { role: string }[];
	return messages[0]!.role;
}

/** Writes an extension file whose factory body is `body` (`pi` in scope); returns its path. */
function writeExtension(name: string, body: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, `export default function (pi) {\n${body}\n}\n`);
	return path;
}

describe("pi#5349: a provider-level compat in pi.registerProvider()", () => {
	it("pi#5349: settle -p: the registered provider's compat shapes its models' requests; a model's own compat overrides one field and keeps the others", async () => {
		const extension = writeExtension(
			"my-provider.mjs",
			`pi.registerProvider("my-provider", {
	name: "My Provider",
	baseUrl: ${JSON.stringify(`${server.url}/v1`)},
	apiKey: "my-key",
	api: "openai-completions",
	compat: { supportsDeveloperRole: false, maxTokensField: "max_tokens" },
	models: [
		{ id: "plain", name: "Plain", reasoning: true, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
		{ id: "modern", name: "Modern", reasoning: true, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, compat: { supportsDeveloperRole: true } },
	],
});`,
		);
		server.reply(chatReply([{ type: "text", text: "from plain" }]), chatReply([{ type: "text", text: "from modern" }]));
		const at = { cwd: cli.project, agentDir: cli.agentDir };

		const plain = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "my-provider/plain", "-p", "hi"],
			at,
		);
		expect(plain.stderr).toBe("");
		expect(plain.stdout).toContain("from plain");
		expect(firstRole(0)).toBe("system");
		expect(server.requests[0]?.body.max_tokens).toBe(4096);
		expect(server.requests[0]?.body).not.toHaveProperty("max_completion_tokens");

		const modern = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "my-provider/modern", "-p", "hi"],
			at,
		);
		expect(modern.stdout).toContain("from modern");
		// The model's own field wins; the provider's other field still applies.
		expect(firstRole(1)).toBe("developer");
		expect(server.requests[1]?.body.max_tokens).toBe(4096);
		expect(server.requests[1]?.body).not.toHaveProperty("max_completion_tokens");
	});
});
