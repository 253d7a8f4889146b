/**
 * Azure OpenAI set-ups, replayed through the real `settle -p` (child processes) with pi-ai's Azure
 * client (the `openai` package's AzureOpenAI) pointed by AZURE_OPENAI_BASE_URL at a local endpoint
 * speaking the Responses API (test/llm/wire/responses.ts).
 *
 * LibreChat#2797: a deployment named otherwise than its model (`GPT4-Turbo-Latest-Dev` for
 * gpt-4-turbo) got 404: the model's name was sent where the deployment's belongs. What the user
 * should see: AZURE_OPENAI_DEPLOYMENT_NAME_MAP's deployment name in the request, and the answer.
 *
 * agentv#1366: a full gateway URL given for Azure was cut to a resource name, so the requests went to
 * `<name>.openai.azure.com`. What the user should see: AZURE_OPENAI_BASE_URL used as given, with the
 * api-version it names in AZURE_OPENAI_API_VERSION.
 *
 * craft-agents-oss#340: the base URL configured for the connection never reached the Azure client,
 * which failed "Azure OpenAI base URL is required". What the user should see: a models.json
 * `baseUrl` for azure-openai-responses used; with no base URL anywhere, that sentence naming the
 * variables to set, a non-zero exit, nothing sent.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-azure-");
const MODEL = "azure-openai-responses/gpt-5.4";
const server = useWireServer();

/** `settle -p hi` on {@link MODEL} with `env` over no AZURE_ variables of the test's own. */
function settle(env: Record<string, string>) {
	const cleared = Object.keys(process.env).filter((name) => name.startsWith("AZURE_"));
	return runSettleAsync(["--no-session", "--model", MODEL, "-p", "hi"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { ...Object.fromEntries(cleared.map((name) => [name, undefined])), ...env },
	});
}

describe("LibreChat#2797, agentv#1366: a deployment named otherwise, behind a gateway URL", () => {
	it("LibreChat#2797: settle -p with AZURE_OPENAI_DEPLOYMENT_NAME_MAP and a full AZURE_OPENAI_BASE_URL: the deployment's name is sent there, with the key and api-version; the answer printed", async () => {
		server.reply(responsesReply([{ type: "message", text: "answered by the deployment" }]));
		const run = await settle({
			AZURE_OPENAI_API_KEY: "azure-key",
			AZURE_OPENAI_BASE_URL: `${server.url}/gateway/openai/v1`,
			AZURE_OPENAI_API_VERSION: "2025-04-01-preview",
			AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5.4=GPT54-Prod, gpt-4o=Other",
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("answered by the deployment\n");
		expect(server.requests).toHaveLength(1);
		const [request] = server.requests;
		expect(request!.path).toBe("/gateway/openai/v1/responses?api-version=2025-04-01-preview");
		expect(request!.headers["api-key"]).toBe("azure-key");
		expect(request!.body.model).toBe("GPT54-Prod");
	});
});

describe("craft-agents-oss#340: Azure without a base URL", () => {
	it("craft-agents-oss#340: settle -p with the base URL in models.json's azure-openai-responses entry: the request goes there, the answer printed", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { "azure-openai-responses": { baseUrl: `${server.url}/openai/v1` } } }),
		);
		server.reply(responsesReply([{ type: "message", text: "answered at the configured URL" }]));
		const run = await settle({ AZURE_OPENAI_API_KEY: "azure-key" });
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("answered at the configured URL\n");
		expect(server.requests.map((request) => request.path)).toEqual(["/openai/v1/responses?api-version=v1"]);
		expect(server.requests[0]!.body.model).toBe("gpt-5.4");
	});

	it("craft-agents-oss#340: settle -p with AZURE_OPENAI_API_KEY only: exit 1, the variables to set named, nothing sent", async () => {
		const run = await settle({ AZURE_OPENAI_API_KEY: "azure-key" });
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			"Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME",
		);
		expect(server.requests).toHaveLength(0);
	});
});
