/**
 * Google Vertex set-ups Settle can check without Google's token endpoint: what the user is told
 * when the project, the location or the credentials are missing, replayed through the real
 * `settle` command (child processes) with a temporary HOME standing in for the user's.
 *
 * opencode#7996 (and opencode#3940): the user set GOOGLE_CLOUD_PROJECT_ID (and VERTEX_LOCATION),
 * names the harness does not read, and was told only that a setting was missing. What the user
 * should see: the names read, those unset, and that the look-alike set is not one of them.
 *
 * opencode#12557: with credentials and a project but no location, Vertex failed on "location
 * setting is missing". What the user should see: GOOGLE_CLOUD_LOCATION named as the one missing,
 * not a request for an API key (Settle said "set GOOGLE_CLOUD_API_KEY", which the user never needed).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettleAsync, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-vertex-");
const MODEL = "google-vertex/gemini-2.5-pro";

/** The variables Vertex (or a look-alike) is configured with, all unset, and HOME in the test folder. */
function vertexEnv(env: Record<string, string>): Record<string, string | undefined> {
	const cleared = Object.keys(process.env).filter((name) => /^(?:GOOGLE_|GCLOUD_|GCP_|VERTEX_)/.test(name));
	return { ...Object.fromEntries(cleared.map((name) => [name, undefined])), HOME: cli.dir, ...env };
}

/** `gcloud auth application-default login`'s file in the test HOME (never read: no request is made). */
function adcFile(): string {
	const dir = join(cli.dir, ".config", "gcloud");
	mkdirSync(dir, { recursive: true });
	const file = join(dir, "application_default_credentials.json");
	writeFileSync(
		file,
		JSON.stringify({ type: "authorized_user", client_id: "c", client_secret: "s", refresh_token: "r" }),
	);
	return file;
}

function settle(env: Record<string, string>) {
	return runSettleAsync(["--no-session", "--model", MODEL, "-p", "hi"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: vertexEnv(env),
	});
}

describe("opencode#7996: Vertex configured with names that are not read", () => {
	it("opencode#7996: settle -p with GOOGLE_CLOUD_PROJECT_ID and VERTEX_LOCATION: exit 4, the names read, the look-alikes called out", async () => {
		adcFile();
		const run = await settle({ GOOGLE_CLOUD_PROJECT_ID: "my-project", VERTEX_LOCATION: "us-central1" });
		expect(run.code).toBe(4);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("No API key found for google-vertex.");
		expect(run.stderr).toContain("Not set here: GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION;");
		expect(run.stderr).toContain("GOOGLE_CLOUD_PROJECT_ID is set, but the name read is GOOGLE_CLOUD_PROJECT");
		expect(run.stderr).toContain("VERTEX_LOCATION is set, but the name read is GOOGLE_CLOUD_LOCATION");
		// The credentials file is there: it is not named as missing.
		expect(run.stderr).not.toContain("Not set here: application default credentials");
	});

	it("opencode#7996: settle --rpc, the same set-up: the prompt's refusal names the look-alike", async () => {
		adcFile();
		const client = new RpcClient(["--no-session", "--model", MODEL], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: vertexEnv({ GOOGLE_CLOUD_PROJECT_ID: "my-project", GOOGLE_CLOUD_LOCATION: "us-central1" }),
		});
		const answer = await client.request({ id: "p", type: "prompt", message: "hi" });
		expect(answer).toMatchObject({ success: false });
		expect(String(answer.error)).toMatch(
			/^No API key found for google-vertex\. google-vertex takes GOOGLE_CLOUD_API_KEY, .* Not set here: GOOGLE_CLOUD_PROJECT; GOOGLE_CLOUD_PROJECT_ID is set, but the name read is GOOGLE_CLOUD_PROJECT \(in the environment of settle\), or select another model with set_model\.$/,
		);
		expect(await client.end()).toBe(0);
	});
});

describe("opencode#12557: Vertex without a location", () => {
	it("opencode#12557: settle -p with credentials and GOOGLE_CLOUD_PROJECT, no location: GOOGLE_CLOUD_LOCATION named as the one missing", async () => {
		adcFile();
		const run = await settle({ GOOGLE_CLOUD_PROJECT: "my-project" });
		expect(run.code).toBe(4);
		expect(run.stderr).toContain("Not set here: GOOGLE_CLOUD_LOCATION.");
		expect(run.stderr).toContain("GOOGLE_CLOUD_API_KEY, or Google application default credentials");
		// Not the key-only advice: an auth.json entry under google-vertex is not what was missing.
		expect(run.stderr).not.toContain('"google-vertex":{"type":"api_key"');
	});

	it("settle -p with GOOGLE_APPLICATION_CREDENTIALS naming a file that is not there: that file named", async () => {
		const missing = join(cli.dir, "gone.json");
		const run = await settle({
			GOOGLE_APPLICATION_CREDENTIALS: missing,
			GOOGLE_CLOUD_PROJECT: "p",
			GOOGLE_CLOUD_LOCATION: "global",
		});
		expect(run.code).toBe(4);
		expect(run.stderr).toContain(`Not set here: the file GOOGLE_APPLICATION_CREDENTIALS names (${missing}).`);
	});

	it("opencode#12557: settle -i, no location: the prompt's one error line names GOOGLE_CLOUD_LOCATION; the chat goes on", async () => {
		adcFile();
		const chat = new Repl(["--no-session", "--model", MODEL], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: vertexEnv({ GOOGLE_CLOUD_PROJECT: "my-project" }),
		});
		await chat.idle(0);
		const refused = await chat.say("hi");
		expect(refused).toContain("Error: No API key found for google-vertex. google-vertex takes GOOGLE_CLOUD_API_KEY");
		expect(refused).toContain("Not set here: GOOGLE_CLOUD_LOCATION.");
		expect(await chat.end()).toBe(0);
	});
});
