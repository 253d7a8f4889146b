/**
 * pi#6749: an OpenAI-compatible server (Open WebUI) that refused a request with a body of its own
 * shape (`{"detail": "Bad request"}`, a validation error's `{"detail": [...]}`), not OpenAI's
 * `{"error": {...}}`, showed as "400 status code (no body)": the OpenAI client keeps only an `error`
 * field, so the server's reason was lost. In Settle it was worse: "400 status code (no body)" is
 * also Cerebras's context-overflow text, so the refusal was reported as a context too long for the
 * model. What the user should see: the status and the body the server sent, and no overflow.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's OpenAI client.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { json, useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-refusal-bodies-");
const server = useWireServer();

async function refusedWith(status: number, body: unknown) {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	server.reply(json(status, body));
	return runSettleAsync(["--model", "local/coder", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir });
}

/** The error texts of the assistant messages in the run's session file. */
function savedErrors(): (string | undefined)[] {
	const [file] = sessionFilesUnder(cli.agentDir);
	return fileEntries(file!)
		.filter((entry) => entry.type === "message" && entry.message?.role === "assistant")
		.map((entry) => (entry.message as { errorMessage?: string }).errorMessage);
}

describe("pi#6749: a refusal whose body has no `error` field shows as '(no body)'", () => {
	it('pi#6749: a 400 `{"detail":"Bad request"}` prints the status and the body, not "(no body)" nor a context overflow; the session file keeps the same text', async () => {
		const run = await refusedWith(400, { detail: "Bad request" });

		expect(run.stderr).toBe('400 {"detail":"Bad request"}\n');
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
		expect(savedErrors()).toEqual(['400 {"detail":"Bad request"}']);
	});

	it("pi#6749: a 422 validation error (`detail` as a list, Open WebUI / FastAPI) names the field it refused", async () => {
		const detail = [{ type: "missing", loc: ["body", "model"], msg: "Field required" }];
		const run = await refusedWith(422, { detail });

		expect(run.stderr).toBe(`422 ${JSON.stringify({ detail })}\n`);
		expect(run.code).toBe(1);
	});
});
