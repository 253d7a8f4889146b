/**
 * Reports about OpenAI-compatible servers that answer 400 / 422 to a field pi-ai sends by default,
 * replayed with real `settle -p` processes against a local server that checks each request and
 * refuses as that server does. pi-ai has a models.json `compat` setting for each of these fields,
 * but the refusal named none of them, so users were left with the same 400 on every prompt.
 *
 * pi#5117 / pi#1048 / openclaw#27037: OpenRouter's Qwen, DeepSeek and a Qwen proxy refuse the
 * `developer` role a reasoning model's system prompt is sent in. pi#6238: the provider-level
 * `supportsDeveloperRole: false` of a corporate gateway that answers 422 with a validation list.
 * pi#4891 / slotstream#19 / openclaw#22704: Google's OpenAI endpoint (its body gzipped) and a local
 * server refuse `store`. void#128 / copilot-api#164: `max_completion_tokens` refused by a strict
 * server, `max_tokens` by OpenAI's newer models. wechat-acp#16: "Unrecognized request argument
 * supplied: reasoning_effort". gcli2api#200 / hermes-agent#19728: Gemini's OpenAI endpoint (and a
 * proxy to it) requires the tool's `name` on each tool result. opencodex#1582 / aichat#767: a
 * `baseUrl` written as the full `/chat/completions` endpoint, or with a trailing slash; pi#9099: one
 * without `/v1`. pi-free#435:
 * a provider-level `headers` User-Agent that never reached the request. pi-neuralwatt#12 /
 * mistral-vibe#578: Mistral refuses a user message right after tool results.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, type RecordedRequest, type Reply, startWireServer, text, type WireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-compat-refusals-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** A server that refuses a request `refuse` returns a reply for, and answers the others. */
async function strictServer(refuse: (request: RecordedRequest) => Reply | undefined): Promise<WireServer> {
	server = await startWireServer((request) => refuse(request) ?? chatReply([{ type: "text", text: "Hello there." }]));
	return server;
}

function settle(...args: string[]) {
	return runSettleAsync(["--no-session", "--model", "local/coder", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

/**
 * One `settle --mode json` process sending `prompts` one after the other (each answered or failed on
 * its own, as `-p` would print it): per prompt, the error its answer failed with ("" when answered).
 * The error is the text `settle -p` prints on stderr; one process for several of a server's replies.
 */
/**
 * The error of each of `prompts` runs (`settle --mode json -p`), one after another: one server's
 * replies in turn, one case a run (a failed step ends a run of several prompts), and the last exit code.
 */
async function failuresOf(prompts: number) {
	const errors: string[] = [];
	let code: number | null = null;
	for (let n = 1; n <= prompts; n++) {
		const run = await settle("--mode", "json", `hi ${n}`);
		code = run.code;
		const messages = run.stdout
			.split("\n")
			.filter((line) => line.includes('"message_end"'))
			.map(
				(line) =>
					(JSON.parse(line) as { message: { role: string; stopReason?: string; errorMessage?: string } }).message,
			)
			.filter((message) => message.role === "assistant");
		errors.push(...messages.map((message) => (message.stopReason === "error" ? (message.errorMessage ?? "") : "")));
	}
	return { code, errors };
}

/** A reply per request, in order: one server for several cases. */
const inTurn = (replies: Reply[]) => {
	let next = 0;
	return (): Reply | undefined => replies[next++];
};

type Sent = { messages: { role: string }[] } & Record<string, unknown>;
const sent = (request: RecordedRequest) => request.body as Sent;
const roles = (request: RecordedRequest) => sent(request).messages.map((m) => m.role);
const hasDeveloper = (request: RecordedRequest) => roles(request).includes("developer");

const reasoningModel = { models: [{ id: "coder", reasoning: true }] };

describe("pi#5117, pi#1048, openclaw#27037: the developer role refused", () => {
	const refusals: [string, Reply][] = [
		[
			"OpenRouter (the upstream's text in metadata.raw)",
			json(400, {
				error: {
					message: "Provider returned error",
					code: 400,
					metadata: {
						raw: `{"error":{"message":"developer is not one of ['system', 'assistant', 'user', 'tool', 'function']","type":"invalid_request_error","code":"invalid_parameter_error"}}`,
						provider_name: "Alibaba",
					},
				},
			}),
		],
		[
			"DeepSeek",
			json(400, {
				error: {
					message:
						"Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool`",
					type: "invalid_request_error",
					param: null,
					code: "invalid_request_error",
				},
			}),
		],
	];

	it.each(refusals)(
		"pi#5117: %s: the error names compat.supportsDeveloperRole; with it set, the prompt is answered",
		async (_server, refusal) => {
			const wire = await strictServer((request) => (hasDeveloper(request) ? refusal : undefined));
			writeLocalProvider(cli.agentDir, `${wire.url}/v1`, reasoningModel);

			const refused = await settle("-p", "hi");
			expect(refused.code).toBe(1);
			expect(refused.stderr).toContain("developer");
			expect(refused.stderr).toContain(`set "compat": {"supportsDeveloperRole": false} for local in models.json`);
			expect(wire.requests).toHaveLength(1);
			expect(roles(wire.requests[0]!)[0]).toBe("developer");

			writeLocalProvider(cli.agentDir, `${wire.url}/v1`, {
				...reasoningModel,
				compat: { supportsDeveloperRole: false },
			});
			const answered = await settle("-p", "hi");
			expect(answered.stdout).toContain("Hello there.");
			expect(answered.code).toBe(0);
			expect(roles(wire.requests[1]!)[0]).toBe("system");
		},
	);
});

describe("pi#6238: a gateway's 422 validation list for the developer role", () => {
	const pydantic422 = json(422, {
		detail: [
			{
				type: "enum",
				loc: ["body", "messages", 0, "role"],
				msg: "Input should be 'system', 'user', 'assistant', 'function' or 'tool'",
				input: "developer",
				ctx: { expected: "'system', 'user', 'assistant', 'function' or 'tool'" },
			},
		],
	});

	it("pi#6238: the provider-level supportsDeveloperRole: false sends the system prompt as system; without it the 422's list and the setting are shown", async () => {
		const wire = await strictServer((request) => (hasDeveloper(request) ? pydantic422 : undefined));
		const gateway = { models: [{ id: "coder", reasoning: true }] };
		writeLocalProvider(cli.agentDir, `${wire.url}/api/v1`, {
			...gateway,
			compat: { supportsDeveloperRole: false, supportsReasoningEffort: true },
		});
		const answered = await settle("-p", "hi");
		expect(answered.stdout).toContain("Hello there.");
		expect(answered.code).toBe(0);
		expect(roles(wire.requests[0]!)[0]).toBe("system");

		writeLocalProvider(cli.agentDir, `${wire.url}/api/v1`, gateway);
		const refused = await settle("-p", "hi");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`"input":"developer"`);
		expect(refused.stderr).not.toContain("(no body)");
		expect(refused.stderr).toContain(`"compat": {"supportsDeveloperRole": false}`);
	});
});

describe("pi#4891, slotstream#19, openclaw#22704: store refused", () => {
	const googleBody = [
		{
			error: {
				code: 400,
				message: 'Invalid JSON payload received. Unknown name "store": Cannot find field.',
				status: "INVALID_ARGUMENT",
			},
		},
	];
	/** Google's answer: the JSON error gzipped (openclaw#22704: read undecoded, it showed "(no body)"). */
	const googleRefusal: Reply = (_request, res) => {
		res.writeHead(400, { "content-type": "application/json; charset=UTF-8", "content-encoding": "gzip" });
		res.end(gzipSync(JSON.stringify(googleBody)));
	};
	const slotstreamRefusal = json(400, {
		type: "invalid_request_error",
		code: "invalid_request_error",
		message: "unsupported request field(s): store",
	});

	it.each([
		["Google's OpenAI endpoint, gzipped", googleRefusal, 'Unknown name \\"store\\": Cannot find field.'],
		["slotstream", slotstreamRefusal, "unsupported request field(s): store"],
	] as const)(
		"pi#4891: %s: the server's reason and compat.supportsStore are shown; with it set, no store is sent",
		async (_server, refusal, reason) => {
			const wire = await strictServer((request) => ("store" in sent(request) ? refusal : undefined));
			writeLocalProvider(cli.agentDir, `${wire.url}/v1beta/openai`);

			const refused = await settle("-p", "hi");
			expect(refused.code).toBe(1);
			expect(refused.stderr).toContain(reason);
			expect(refused.stderr).toContain(`set "compat": {"supportsStore": false} for local in models.json`);
			expect(wire.requests).toHaveLength(1);

			writeLocalProvider(cli.agentDir, `${wire.url}/v1beta/openai`, { compat: { supportsStore: false } });
			const answered = await settle("-p", "hi");
			expect(answered.stdout).toContain("Hello there.");
			expect(sent(wire.requests[1]!)).not.toHaveProperty("store");
		},
	);
});

describe("void#128, copilot-api#164: the output cap's field refused", () => {
	it("void#128: a server forbidding max_completion_tokens: the error names maxTokensField max_tokens, which it then accepts", async () => {
		const wire = await strictServer((request) =>
			"max_completion_tokens" in sent(request)
				? json(400, {
						object: "error",
						message: `[{'type': 'extra_forbidden', 'loc': ('body', 'max_completion_tokens'), 'msg': 'Extra inputs are not permitted', 'input': 8192}]`,
						type: "BadRequestError",
						param: null,
						code: 400,
					})
				: undefined,
		);
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`);
		const refused = await settle("-p", "hi");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("Extra inputs are not permitted");
		expect(refused.stderr).toContain(`"compat": {"maxTokensField": "max_tokens"}`);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { compat: { maxTokensField: "max_tokens" } });
		const answered = await settle("-p", "hi");
		expect(answered.stdout).toContain("Hello there.");
		expect(sent(wire.requests[1]!)).toHaveProperty("max_tokens");
	});

	it("copilot-api#164: 'max_tokens' refused with 'Use max_completion_tokens instead': the error names maxTokensField max_completion_tokens", async () => {
		const wire = await strictServer((request) =>
			"max_tokens" in sent(request)
				? json(400, {
						error: {
							message:
								"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
							type: "invalid_request_error",
							param: "max_tokens",
							code: "unsupported_parameter",
						},
					})
				: undefined,
		);
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { compat: { maxTokensField: "max_tokens" } });
		const refused = await settle("-p", "hi");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(`"compat": {"maxTokensField": "max_completion_tokens"}`);
		expect(refused.stderr).not.toContain(`"maxTokensField": "max_tokens"`);
	});
});

describe("wechat-acp#16: reasoning_effort refused", () => {
	it("wechat-acp#16: 'Unrecognized request argument supplied: reasoning_effort': the error names supportsReasoningEffort; with it set, thinking is not asked for", async () => {
		const wire = await strictServer((request) =>
			"reasoning_effort" in sent(request)
				? json(400, {
						error: {
							message: "Unrecognized request argument supplied: reasoning_effort",
							type: "invalid_request_error",
							param: null,
							code: null,
						},
					})
				: undefined,
		);
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, {
			...reasoningModel,
			compat: { supportsDeveloperRole: false },
		});
		const refused = await settle("--thinking", "high", "-p", "hi");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("Unrecognized request argument supplied: reasoning_effort");
		expect(refused.stderr).toContain(`"compat": {"supportsReasoningEffort": false}`);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, {
			...reasoningModel,
			compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		});
		const answered = await settle("--thinking", "high", "-p", "hi");
		expect(answered.stdout).toContain("Hello there.");
		expect(sent(wire.requests[1]!)).not.toHaveProperty("reasoning_effort");
	});
});

describe("gcli2api#200, hermes-agent#19728: a tool result without the tool's name", () => {
	it("gcli2api#200: 'Tool message must have a name field': the error names requiresToolResultName; with it set, results carry the name", async () => {
		type ToolMessage = { role: string; name?: string };
		const wire = await strictServer((request) => {
			const messages = sent(request).messages as ToolMessage[];
			const results = messages.filter((m) => m.role === "tool");
			if (results.some((m) => !m.name)) {
				return json(400, {
					error: {
						message:
							"Tool message must have a 'name' field. The 'name' field is required to match the tool call with its response in Gemini API.",
						type: "invalid_request_error",
					},
				});
			}
			if (results.length > 0) return chatReply([{ type: "text", text: "The note says hello." }]);
			return chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "note.txt" } }]);
		});
		writeFileSync(join(cli.project, "note.txt"), "hello\n");
		writeLocalProvider(cli.agentDir, `${wire.url}/v1beta/openai`);

		const refused = await settle("-p", "what does note.txt say?");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("Tool message must have a 'name' field");
		expect(refused.stderr).toContain(`set "compat": {"requiresToolResultName": true} for local in models.json`);
		expect(wire.requests).toHaveLength(2);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1beta/openai`, { compat: { requiresToolResultName: true } });
		const answered = await settle("-p", "what does note.txt say?");
		expect(answered.stdout).toContain("The note says hello.");
		expect(answered.code).toBe(0);
		const result = (sent(wire.requests[3]!).messages as ToolMessage[]).find((m) => m.role === "tool");
		expect(result?.name).toBe("read");
	});
});

describe("opencodex#1582, aichat#767: the baseUrl's shape", () => {
	/** OpenAI's answer to a path it has no route for. */
	const noRoute = (request: RecordedRequest) =>
		request.path === "/v1/chat/completions"
			? undefined
			: json(404, {
					error: {
						message: `Invalid URL (POST ${request.path})`,
						type: "invalid_request_error",
						param: null,
						code: null,
					},
				});

	it("opencodex#1582: a baseUrl given as the full /chat/completions endpoint: the 404 says which baseUrl to write; written, the prompt is answered", async () => {
		const wire = await strictServer(noRoute);
		writeLocalProvider(cli.agentDir, `${wire.url}/v1/chat/completions`);
		const refused = await settle("-p", "hi");
		expect(refused.code).toBe(1);
		expect(wire.requests.map((r) => r.path)).toEqual(["/v1/chat/completions/chat/completions"]);
		expect(refused.stderr).toContain("Invalid URL (POST /v1/chat/completions/chat/completions)");
		expect(refused.stderr).toContain(`set "baseUrl": "${wire.url}/v1" in models.json`);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1`);
		const answered = await settle("-p", "hi");
		expect(answered.stdout).toContain("Hello there.");
	});

	it("aichat#767: a baseUrl with a trailing slash reaches /v1/chat/completions (no doubled slash) and is answered", async () => {
		const wire = await strictServer(noRoute);
		writeLocalProvider(cli.agentDir, `${wire.url}/v1/`);
		const answered = await settle("-p", "hi");
		expect(answered.stdout).toContain("Hello there.");
		expect(answered.code).toBe(0);
		expect(wire.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
	});

	/** What servers that serve the API only under /v1 answer for another path (their 404 bodies). */
	const unknownPathBodies: [string, Reply][] = [
		["Ollama (gin)", text(404, "404 page not found")],
		["vLLM (FastAPI)", json(404, { detail: "Not Found" })],
		[
			"an HTML page",
			text(404, "<html><head><title>404 Not Found</title></head><body>Not Found</body></html>", "text/html"),
		],
		[
			"OpenAI",
			json(404, { error: { message: "Invalid URL (POST /chat/completions)", type: "invalid_request_error" } }),
		],
	];

	it("pi#9099: a baseUrl without /v1 (http://host:port): each server's unknown-path 404 says to write the baseUrl with /v1; written, the prompt is answered", async () => {
		const reply = inTurn(unknownPathBodies.map(([, body]) => body));
		const wire = await strictServer((request) => (request.path === "/v1/chat/completions" ? undefined : reply()));
		writeLocalProvider(cli.agentDir, wire.url);
		const refused = await failuresOf(unknownPathBodies.length);
		expect(refused.code).toBe(1);
		expect(wire.requests.map((r) => r.path)).toEqual(unknownPathBodies.map(() => "/chat/completions"));
		for (const [index, [server]] of unknownPathBodies.entries()) {
			expect(refused.errors[index], server).toContain(`set "baseUrl": "${wire.url}/v1" for local in models.json`);
		}
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`);
		expect((await settle("-p", "hi")).stdout).toContain("Hello there.");
	});

	it("pi#9099: a baseUrl with a path the server does not serve (http://host:port/api, or …/openai/v1): each server's unknown-path 404 names the URL requested and says to check the baseUrl's path, suggesting /v1 only when the path does not end in it", async () => {
		const servers: [string, Reply][] = [
			...unknownPathBodies,
			["Express", text(404, "Cannot POST /api/chat/completions", "text/html")],
		];
		for (const path of ["/api", "/openai/v1"]) {
			const reply = inTurn(servers.map(([, body]) => body));
			const wire = await strictServer((request) => (request.path === "/v1/chat/completions" ? undefined : reply()));
			writeLocalProvider(cli.agentDir, `${wire.url}${path}`);
			const refused = await failuresOf(servers.length);
			expect(refused.code, path).toBe(1);
			expect(wire.requests.map((r) => r.path)).toEqual(servers.map(() => `${path}/chat/completions`));
			const note = `The request went to ${wire.url}${path}/chat/completions and the server answered 404: it serves no /chat/completions under the path ${path} of the "baseUrl" of local. Check that path in models.json`;
			for (const [index, [server]] of servers.entries()) {
				expect(refused.errors[index], `${server} ${path}`).toContain(note);
				if (path === "/api") expect(refused.errors[index], server).toContain("serve it under /v1");
				else expect(refused.errors[index], server).not.toContain("under /v1");
			}
			await wire.close();
		}
	});

	it("pi#9099: LM Studio answers a baseUrl without /v1 with 200 and an error object: the run fails saying so and naming the baseUrl with /v1, not retried (was an empty answer, exit 0)", async () => {
		const lmStudio = (request: RecordedRequest) =>
			request.path === "/v1/chat/completions"
				? undefined
				: json(200, { error: `Unexpected endpoint or method. (POST ${request.path})` });
		const wire = await strictServer(lmStudio);
		writeLocalProvider(cli.agentDir, wire.url);
		// One session retry allowed, none inside the client (which retries any failed fetch).
		const retry = { maxRetries: 1, baseDelayMs: 1, provider: { maxRetries: 0 } };
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry }));
		const refused = await settle("-p", "hi");
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(
			`The server at ${wire.url} answered 200 with an error, not the API's answer: "Unexpected endpoint or method. (POST /chat/completions)".`,
		);
		expect(refused.stderr).toContain(`set "baseUrl": "${wire.url}/v1" for local in models.json`);
		expect(wire.requests).toHaveLength(1);
	});

	it("pi#9099: LM Studio's 200 error object for a baseUrl with a path of its own (http://host:1234/api, …/openai/v1) names the URL requested and says to check that path, as its 404 would; /v1 suggested only when the path lacks it", async () => {
		// None inside the client, which retries any failed fetch.
		const retry = { maxRetries: 1, baseDelayMs: 1, provider: { maxRetries: 0 } };
		for (const path of ["/api", "/openai/v1"]) {
			const wire = await strictServer((request) =>
				request.path === "/v1/chat/completions"
					? undefined
					: json(200, { error: `Unexpected endpoint or method. (POST ${request.path})` }),
			);
			writeLocalProvider(cli.agentDir, `${wire.url}${path}`);
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry }));
			const refused = await settle("-p", "hi");
			expect(refused.code, path).toBe(1);
			expect(wire.requests.map((r) => r.path)).toEqual([`${path}/chat/completions`]);
			expect(refused.stderr).toContain(
				`answered 200 with an error, not the API's answer: "Unexpected endpoint or method. (POST ${path}/chat/completions)".`,
			);
			expect(refused.stderr, path).toContain(
				`The request went to ${wire.url}${path}/chat/completions and the server answered 200 with that error: it serves no /chat/completions under the path ${path} of the "baseUrl" of local. Check that path in models.json`,
			);
			if (path === "/api") expect(refused.stderr).toContain("serve it under /v1");
			else expect(refused.stderr).not.toContain("under /v1");
			await wire.close();
		}
	});

	it("pi#9099: a 200 JSON body whose error is false, null or empty is no error answer: not reported as one", async () => {
		const errors = [false, null, "", 0];
		const reply = inTurn(errors.map((error) => json(200, { error, status: "ok" })));
		const wire = await strictServer(() => reply());
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`);
		const run = await failuresOf(errors.length);
		expect(wire.requests).toHaveLength(errors.length);
		for (const [index, error] of errors.entries()) {
			expect(run.errors[index], String(error)).not.toContain("answered 200 with an error");
		}
	});

	it("pi#9099: a 404 that names the model (vLLM's, Ollama's unknown model) gets no baseUrl note, with or without /v1", async () => {
		const unknownModel: Reply[] = [
			json(404, { object: "error", message: "The model `coder` does not exist.", type: "NotFoundError", code: 404 }),
			json(404, { error: { message: 'model "coder" not found, try pulling it first', type: "api_error" } }),
		];
		for (const path of ["", "/v1"]) {
			const wire = await strictServer(inTurn(unknownModel));
			writeLocalProvider(cli.agentDir, `${wire.url}${path}`);
			const refused = await failuresOf(unknownModel.length);
			expect(refused.code).toBe(1);
			expect(refused.errors).toHaveLength(unknownModel.length);
			for (const error of refused.errors) {
				expect(error).toMatch(/coder/);
				expect(error).not.toContain('"baseUrl"');
			}
			await wire.close();
		}
	});
});

describe("pi-free#435: a provider-level User-Agent header", () => {
	/** A gateway that serves only the client it knows by its User-Agent (as Cline's and Kimi's do). */
	const knownClientsOnly = (request: RecordedRequest) =>
		request.headers["user-agent"] === "pi-free-providers"
			? undefined
			: json(403, { error: { message: "This endpoint is only available to known clients", type: "forbidden" } });

	it("pi-free#435: an extension's registerProvider headers and models.json's provider headers both reach the request, User-Agent included", async () => {
		const wire = await strictServer(knownClientsOnly);
		const extension = writeExtension(
			cli.dir,
			"free-provider.mjs",
			`pi.registerProvider("free", {
	baseUrl: ${JSON.stringify(`${wire.url}/v1`)},
	apiKey: "free-key",
	api: "openai-completions",
	headers: { "User-Agent": "pi-free-providers" },
	models: [{ id: "coder", name: "Coder", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
});`,
		);
		const viaExtension = await runSettleAsync(["--no-session", "-e", extension, "--model", "free/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(viaExtension.stdout).toContain("Hello there.");
		expect(viaExtension.code).toBe(0);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { headers: { "User-Agent": "pi-free-providers" } });
		const viaFile = await settle("-p", "hi");
		expect(viaFile.stdout).toContain("Hello there.");
		expect(wire.requests.map((r) => r.headers["user-agent"])).toEqual(["pi-free-providers", "pi-free-providers"]);
	});
});

describe("pi-neuralwatt#12, mistral-vibe#578: a user message right after tool results", () => {
	it("pi-neuralwatt#12: a session whose last turn ended at its tool results, continued on a Mistral server: the error names requiresAssistantAfterToolResult; with it set, the prompt is answered", async () => {
		const wire = await strictServer((request) => {
			const roles = sent(request).messages.map((m) => m.role);
			const at = roles.findIndex((role, i) => role === "tool" && roles[i + 1] === "user");
			return at < 0
				? undefined
				: json(400, {
						object: "error",
						message: "Unexpected role 'user' after role 'tool'",
						type: "invalid_request_message_order",
						param: null,
						code: "3230",
					});
		});
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`);
		const sessions = join(cli.dir, "sessions");
		const sm = SessionManager.create(cli.project, sessions);
		const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
		const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		sm.appendMessage({ role: "user", content: "run the tests", timestamp: 1 });
		sm.appendMessage({
			role: "assistant",
			api: "openai-completions",
			provider: "local",
			model: "coder",
			usage: { ...usage, cost },
			timestamp: 2,
			content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "npm test" } }],
			stopReason: "toolUse",
		});
		sm.appendMessage({
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "bash",
			content: [{ type: "text", text: "Skipped: the user cancelled the command." }],
			isError: true,
			timestamp: 3,
		});
		const file = sm.getSessionFile()!;
		sm.close();

		const continued = () =>
			runSettleAsync(["--session", file, "--model", "local/coder", "-p", "run them with the venv instead"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
		const refused = await continued();
		expect(roles(wire.requests[0]!).slice(1)).toEqual(["user", "assistant", "tool", "user"]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("Unexpected role 'user' after role 'tool'");
		expect(refused.stderr).toContain(`"compat": {"requiresAssistantAfterToolResult": true}`);

		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { compat: { requiresAssistantAfterToolResult: true } });
		const answered = await continued();
		expect(answered.stdout).toContain("Hello there.");
		expect(answered.code).toBe(0);
	});
});
