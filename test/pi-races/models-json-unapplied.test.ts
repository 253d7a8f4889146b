/**
 * Reports about a models.json Settle cannot apply in full, replayed against the real `settle`
 * command (child processes) on a local OpenAI-compatible server: what the user is told, where they
 * look (the run's error and warnings), and what reaches the endpoint.
 *
 * pi#909: a gateway's key sent in a header of its own (`x-portkey-api-key`), kept out of
 * models.json: the reporter asked for `!command` and environment variables in `headers`, as in
 * `apiKey`. Settle reads an environment variable's name there but runs no command (as for `apiKey`),
 * and a `!op read …` header was left out of every request without a word: the gateway's 401 was all
 * the user saw. What the user should see: the variable's value on the wire, and a warning naming the
 * header that is not sent and what to write instead.
 *
 * pi#5418: with a syntax error in models.json, pi died of a bare `JSON.parse` stack trace that never
 * named the file. Settle warns with the file and the position, but `settle --model team/m -p …` (a
 * model of that file) failed before any warning was printed: "Model not found: team/m", the list of
 * known providers without `team`, nothing about models.json. What the user should see: that error
 * saying models.json was not read, where, and why.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-unapplied-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

function writeModelsText(text: string): void {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "models.json"), text);
}

function settle(args: string[], env: Record<string, string | undefined> = {}) {
	return runSettleAsync(["--no-session", ...args], { cwd: cli.project, agentDir: cli.agentDir, env });
}

describe("pi#909: a models.json header holding a command or an environment variable", () => {
	it("settle -p: the variable's value is sent; the !command header is not, and a warning names it and the fix", async () => {
		const gateway = {
			baseUrl: `${server.url}/v1`,
			api: "openai-completions",
			apiKey: "gateway-key",
			headers: { "x-portkey-api-key": "!op read 'op://team/portkey/key'", "x-team": "TEAM_HEADER" },
			models: [{ id: "m", headers: { "x-trace": "!uuidgen" } }],
		};
		writeModelsText(JSON.stringify({ providers: { gateway } }));
		const run = await settle(["--model", "gateway/m", "-p", "hi"], { TEAM_HEADER: "team-42" });
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		const headers = server.requests[0]?.headers ?? {};
		expect(headers["x-team"]).toBe("team-42");
		expect(headers["x-portkey-api-key"]).toBeUndefined();
		const path = join(cli.agentDir, "models.json");
		for (const header of ["x-portkey-api-key", "x-trace"]) {
			expect(run.stderr).toContain(
				`Warning: ${path}: provider "gateway": Settle does not run the command of header "${header}"; the header is not sent. Put its value in an environment variable and name that variable in "headers" ({"${header}": "MY_HEADER_VALUE"}).`,
			);
		}
		expect(run.stderr).not.toContain("op://");
	});

	it("a built-in model's modelOverrides header holding a !command: not sent, and warned like the provider's and models' headers", async () => {
		const groq = {
			baseUrl: `${server.url}/v1`,
			modelOverrides: { "llama-3.3-70b-versatile": { headers: { "x-trace": "!uuidgen", "x-team": "TEAM_HEADER" } } },
		};
		writeModelsText(JSON.stringify({ providers: { groq } }));
		const run = await settle(["--model", "groq/llama-3.3-70b-versatile", "-p", "hi"], {
			GROQ_API_KEY: "gsk-test",
			TEAM_HEADER: "team-42",
		});
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		const headers = server.requests[0]?.headers ?? {};
		expect(headers["x-team"]).toBe("team-42");
		expect(headers["x-trace"]).toBeUndefined();
		expect(run.stderr).toContain(
			`Warning: ${join(cli.agentDir, "models.json")}: provider "groq": Settle does not run the command of header "x-trace"; the header is not sent. Put its value in an environment variable and name that variable in "headers" ({"x-trace": "MY_HEADER_VALUE"}).`,
		);
	});
});

describe("pi#5418: a models.json with a syntax error, and a model of it asked for", () => {
	it("settle -p --model team/m: the error says models.json was not read, where, and why; no request", async () => {
		writeModelsText(`{"providers": {"team": {"baseUrl": "${server.url}/v1", "api": "openai-completions"\ni}}}`);
		const run = await settle(["--model", "team/m", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(
			`Error: Model not found: team/m. ${join(cli.agentDir, "models.json")} was not read (invalid JSON at line 2, column 1:`,
		);
		expect(run.stderr).toContain("its providers are unavailable until it is fixed.");
		expect(server.requests).toHaveLength(0);
	});
});
