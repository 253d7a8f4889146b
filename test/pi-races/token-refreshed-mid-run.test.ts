/**
 * databricks/unity-gateway#451: a gateway token that a helper refreshes every 30 minutes while pi
 * runs ("Pi token refresh is managed automatically"): once a session outlived the first token,
 * every request got 401 until pi was closed and resumed, since pi read its credentials at start.
 * What the user should see: a request made after the helper stored the new token (here, the next
 * turn of the same run, after a tool call) carries the new token and the run finishes.
 *
 * Real `settle -p` against a local server that, as the gateway does, accepts only the token
 * currently issued (the one `auth.json` holds when the request arrives) and answers 401 to the
 * older one; the refresh happens while the run's tool call executes, by rename as a helper saves.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-token-refreshed-mid-run-");
/** Token → the refresh a helper makes as a request bearing that token arrives, before the gateway checks it. */
const refreshOn = new Map<string, string>();
const server = useWireServer((request, next) => {
	// A second process, run to its end before the check: the old token is refused, every time.
	const refresh = refreshOn.get(String(request.headers.authorization).replace(/^Bearer /, ""));
	if (refresh) execFileSync("sh", ["-c", refresh]);
	const issued = JSON.parse(readFileSync(join(cli.agentDir, "auth.json"), "utf8")).local.key;
	if (request.headers.authorization !== `Bearer ${issued}`) {
		return openAiError(401, "Invalid access token: the token has expired.", "invalid_request_error", "invalid_api_key");
	}
	return next();
});
beforeEach(() => {
	refreshOn.clear();
});

describe("databricks/unity-gateway#451: a token refreshed while the session runs gave 401 until a relaunch", () => {
	it("databricks/unity-gateway#451: settle -p, the token in auth.json replaced by another program during the run's tool call: the next turn sends the new token and the answer prints", async () => {
		const auth = gatewayWithToken1();
		// The helper's refresh, made while the tool runs: written aside, then renamed over auth.json.
		const fresh = JSON.stringify({ local: { type: "api_key", key: "gateway-token-2" } });
		const refresh = `printf '%s' '${fresh}' > '${auth}.new' && mv '${auth}.new' '${auth}'`;
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "bash", arguments: { command: refresh } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "done after the refresh" }]),
		);

		const run = await runSettleAsync(["--model", "local/coder", "-p", "run the long job"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer gateway-token-1",
			"Bearer gateway-token-2",
		]);
		expect(run).toEqual({ code: 0, stdout: "done after the refresh\n", stderr: "" });
	});

	/** The local provider, its key gateway-token-1 in auth.json; returns auth.json's path. */
	function gatewayWithToken1(): string {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const auth = join(cli.agentDir, "auth.json");
		writeFileSync(auth, JSON.stringify({ local: { type: "api_key", key: "gateway-token-1" } }), { mode: 0o600 });
		return auth;
	}

	const runTheJob = () =>
		runSettleAsync(["--model", "local/coder", "-p", "run the job"], { cwd: cli.project, agentDir: cli.agentDir });

	it("databricks/unity-gateway#451: settle -p, auth.json rotated by another program between the key's read and the request: the 401 is answered by sending the request once more with the new key, one answer shown and recorded", async () => {
		const auth = gatewayWithToken1();
		refreshOn.set("gateway-token-1", refreshTo(auth, "gateway-token-2"));
		server.reply(chatReply([{ type: "text", text: "answered with the new token" }]));

		const run = await runTheJob();

		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer gateway-token-1",
			"Bearer gateway-token-2",
		]);
		expect(run).toEqual({ code: 0, stdout: "answered with the new token\n", stderr: "" });
		const [session] = jsonlFiles(cli.agentDir);
		const assistants = readFileSync(session ?? "", "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((entry) => entry.type === "message" && entry.message.role === "assistant");
		expect(assistants.map((entry) => [entry.message.stopReason, entry.message.content])).toEqual([
			["stop", [{ type: "text", text: "answered with the new token" }]],
		]);
	});

	it("databricks/unity-gateway#451: a key still refused after the re-read is sent once more only, and the 401 is reported", async () => {
		const auth = gatewayWithToken1();
		// Every token the gateway sees is already replaced by the next one.
		refreshOn.set("gateway-token-1", refreshTo(auth, "gateway-token-2"));
		refreshOn.set("gateway-token-2", refreshTo(auth, "gateway-token-3"));
		server.reply(chatReply([{ type: "text", text: "never sent" }]));

		const run = await runTheJob();

		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer gateway-token-1",
			"Bearer gateway-token-2",
		]);
		expect(run).toEqual({
			code: 4,
			stdout: "",
			stderr:
				'401 Invalid access token: the token has expired.\n\nlocal answered 401 to the key stored for local in auth.json, which comes before the environment and models.json: replace or remove its "local" entry in auth.json.\n',
		});
	});
});

/** The helper's refresh: the new token written aside, then renamed over auth.json. */
function refreshTo(auth: string, token: string): string {
	const fresh = JSON.stringify({ local: { type: "api_key", key: token } });
	return `printf '%s' '${fresh}' > '${auth}.new' && mv '${auth}.new' '${auth}'`;
}

/** Every `.jsonl` file under `dir`, recursively. */
function jsonlFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return jsonlFiles(path);
		return name.endsWith(".jsonl") ? [path] : [];
	});
}
