/**
 * OpenBot#470: a key pasted with a line break inside it (a long key copied from a wrapped terminal
 * line) cannot go into a request header: fetch refuses it before anything is sent, and what the
 * user saw pointed elsewhere (there, an unreachable agent). Settle printed fetch's own text,
 * `Headers.append: "Bearer [redacted]" is an invalid header value.`, which names neither the key nor
 * where it is written. What the user should see: which provider's key, where it comes from, what
 * is wrong with it (never the key itself) and what to do; nothing sent. A key that only ends with a
 * line break (`echo key > file`) is sent trimmed, as fetch does.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's OpenAI client.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-key-line-breaks-");
const server = useWireServer();

function ask(env: Record<string, string | undefined> = {}) {
	server.reply(chatReply([{ type: "text", text: "hello back" }]));
	return runSettleAsync(["--model", "local/coder", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir, env });
}

describe("OpenBot#470: a key with a line break inside fails with a text that does not name the key", () => {
	it("OpenBot#470: an auth.json key split by a line break: settle -p says the auth.json entry's key holds a line break and to write it on one line; nothing sent, the key not printed", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(
			join(cli.agentDir, "auth.json"),
			JSON.stringify({ local: { type: "api_key", key: "sk-proj-firsthalf\nsecondhalf" } }),
		);
		const run = await ask();

		expect(server.requests).toHaveLength(0);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			`The key for local (auth.json's "local" entry) holds a line break (character 18 of 28): a request header cannot carry it, so nothing was sent. Write the key on one line there.`,
		);
		expect(run.stderr).not.toContain("firsthalf");
		expect(run.stderr).not.toContain("secondhalf");
	});

	it("OpenBot#470: a key in an environment variable with a CR LF inside names that variable", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { apiKey: "LOCAL_KEY" });
		const run = await ask({ LOCAL_KEY: "sk-wrapped-part-one\r\npart-two" });

		expect(server.requests).toHaveLength(0);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			"The key for local (the environment variable LOCAL_KEY) holds a carriage return (character 20 of 29)",
		);
		expect(run.stderr).not.toContain("part-one");
	});

	it("OpenBot#470: a key that only ends with a line break is sent without it and the answer prints (held)", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(
			join(cli.agentDir, "auth.json"),
			JSON.stringify({ local: { type: "api_key", key: "sk-proj-whole\n" } }),
		);
		const run = await ask();

		expect(run).toEqual({ code: 0, stdout: "hello back\n", stderr: "" });
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-proj-whole");
	});
});
