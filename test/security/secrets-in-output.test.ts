/**
 * Risk: an API key (from models.json, the environment or auth.json) or a secret header value that a
 * provider or proxy echoes in its error text ("Incorrect API key provided: sk-…") ends up in the
 * session JSONL, `--json` lines, the retry notice and error on stderr, the `--trace` file and the
 * HTML export — files that get attached to bug reports and CI artifacts. Real `settle` processes
 * against a local OpenAI-format endpoint.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-sec-secrets-");

const LITERAL_KEY = "sk-literal-0123456789abcdef";
const ENV_KEY = "sk-from-env-fedcba9876543210";
const HEADER_SECRET = "hdr-secret-5555666677778888";

const server = useWireServer();

function writeAgentFiles(apiKey: string): void {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
		apiKey,
		headers: { "X-Team-Token": HEADER_SECRET },
		models: [{ id: "m1", name: "M1", contextWindow: 100000, maxTokens: 1000 }],
	});
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ retry: { baseDelayMs: 1, maxRetries: 1, provider: { maxRetries: 0 } } }),
	);
}

/** `settle <args>` with stdin closed; stdout and stderr as text. */
const settle = (args: string[], env: Record<string, string> = {}) =>
	runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir, env });

const echoing = (status: number, key: string) =>
	openAiError(status, `Upstream rejected key ${key} (team header ${HEADER_SECRET})`, "invalid_request_error");

function sessionFiles(): string[] {
	const root = join(cli.agentDir, "sessions");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(root, name));
}

describe("secrets echoed by a provider stay out of everything settle writes", () => {
	for (const source of ["models.json apiKey", "environment variable named by apiKey"] as const) {
		it(`a key from the ${source} and a secret header: not in --json, stderr, session file, trace or export`, async () => {
			const key = source === "models.json apiKey" ? LITERAL_KEY : ENV_KEY;
			writeAgentFiles(source === "models.json apiKey" ? LITERAL_KEY : "SEC_TEST_LOCAL_KEY");
			server.reply(echoing(503, key), echoing(401, key));
			const trace = join(cli.dir, "run.json");
			const json = await settle(["--model", "local/m1", "--json", "--trace", trace, "hi"], {
				SEC_TEST_LOCAL_KEY: ENV_KEY,
			});
			expect(json.code).toBe(4); // the refused key still says so
			// The key was sent: the provider saw it.
			expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
			expect(server.requests[0]?.headers["x-team-token"]).toBe(HEADER_SECRET);

			server.reply(echoing(503, key), echoing(401, key));
			const text = await settle(["--model", "local/m1", "--no-session", "-p", "hi"], { SEC_TEST_LOCAL_KEY: ENV_KEY });
			expect(text.code).toBe(4);
			expect(text.stderr).toContain("Retrying in");
			expect(text.stderr).toContain("Upstream rejected key [redacted] (team header [redacted])");

			const [file] = sessionFiles();
			const page = join(cli.dir, "page.html");
			expect((await settle(["--export", file!, page])).code).toBe(0);

			const outputs = {
				"--json stdout": json.stdout,
				"--json stderr": json.stderr,
				"-p stdout": text.stdout,
				"-p stderr": text.stderr,
				"session file": readFileSync(file!, "utf8"),
				trace: readFileSync(trace, "utf8"),
				"HTML export": readFileSync(page, "utf8"),
			};
			for (const [where, content] of Object.entries(outputs)) {
				expect({ where, key: content.includes(key) }).toEqual({ where, key: false });
				expect({ where, header: content.includes(HEADER_SECRET) }).toEqual({ where, header: false });
			}
			expect(outputs["session file"]).toContain("Upstream rejected key [redacted]");
		});
	}
});

describe("secrets echoed to a compaction's summary request", () => {
	it("the compact error (RPC response, session file) names no key or header value", async () => {
		writeAgentFiles(LITERAL_KEY);
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } }, compaction: { keepRecentTokens: 1 } }),
		);
		server.reply(chatReply([{ type: "text", text: "first answer" }]), chatReply([{ type: "text", text: "second" }]));
		const rpc = new RpcClient(["--model", "local/m1"], { cwd: cli.project, agentDir: cli.agentDir });
		try {
			for (const [id, message] of [
				["p1", "one"],
				["p2", "two"],
			] as const) {
				const settled = rpc.next((line) => line.type === "agent_settled");
				expect((await rpc.request({ id, type: "prompt", message })).success).toBe(true);
				await settled;
			}
			// keepRecentTokens 1 cuts at the last assistant message: a split turn, so the history and
			// turn-prefix summaries are requested in parallel and either may fail first. Both echo.
			server.reply(echoing(401, LITERAL_KEY), echoing(401, LITERAL_KEY));
			const compact = await rpc.request({ id: "c", type: "compact" });
			expect(compact.success).toBe(false);
			expect(String(compact.error)).toContain("Upstream rejected key [redacted] (team header [redacted])");
			expect(rpc.stderr).not.toContain(LITERAL_KEY);
		} finally {
			await rpc.end();
		}
		const everything = [JSON.stringify(rpc.lines), rpc.stderr, readFileSync(sessionFiles()[0]!, "utf8")].join("\n");
		expect(everything).not.toContain(LITERAL_KEY);
		expect(everything).not.toContain(HEADER_SECRET);
	});
});
