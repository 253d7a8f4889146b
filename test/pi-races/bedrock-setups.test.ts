/**
 * Amazon Bedrock set-ups, replayed through the real `settle -p` (child processes) with the real AWS
 * SDK client pi-ai 0.73.1 uses, pointed by `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` at a local HTTP/2
 * Bedrock endpoint (test/llm/wire/bedrock.ts). The user's `~/.aws` is a temporary HOME's; the
 * credentials are fake, and the endpoint reads the SigV4 header the SDK signed them into.
 *
 * craft-agents-oss#474: with no AWS credentials the user was told to `/login` or set "an API key
 * environment variable"; Bedrock takes neither. What the user should see: the AWS variables that
 * count, and that a key in auth.json does not.
 *
 * opencode#29106 (and agent-swarm#731, where the run even exited 0): an expired session's request
 * ended with the raw `ExpiredTokenException`, nothing saying how to renew it. What the user should
 * see: the failure, a non-zero exit, and which credentials to renew, how.
 *
 * opencode#23522: an expired single sign-on session failed with a generic error. What the user
 * should see: `aws sso login`, at once, no request sent.
 *
 * cline#2482: `anthropic.claude-3-7-sonnet-…`, picked as listed, got "on-demand throughput isn't
 * supported. Retry your request with the ID or ARN of an inference profile", no id given. What the
 * user should see: the inference profile ids to select instead.
 *
 * chatwise#867: thinking asked of a Bedrock model that takes none was sent as a reasoning field,
 * and Bedrock refused the request ("reasoningConfig: Extra inputs are not permitted"). What the
 * user should see: the answer, the request carrying no reasoning field.
 *
 * pi#1800: with AWS_PROFILE set and the region only in the profile, the request went to us-east-1.
 * What the user should see: the answer, from the profile's region (and AWS_DEFAULT_REGION's when
 * that is where the region is, crewAI#4582). With no AWS_PROFILE and the region only in the
 * `[default]` profile (the file `aws configure` writes), pi-ai pinned us-east-1's endpoint. What the
 * user should see: the answer, from the default profile's region — here reached by its real host
 * name through an HTTPS proxy (a tunnel to a local TLS endpoint whose certificate the run trusts).
 * An extension's own summary request (pi's `generateSummary`, which Settle's compat module sends
 * through pi-ai directly) went to us-east-1 there; it goes to the profile's region too.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createProxy } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import {
	type BedrockServer,
	bedrockAnswer,
	bedrockError,
	signedKeyId,
	signedRegion,
	startBedrockServer,
} from "../llm/wire/bedrock.js";

const cli = useCliProject("settle-pi-races-bedrock-");
const MODEL = "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0";
let server: BedrockServer;
beforeEach(async () => {
	server = await startBedrockServer();
});
afterEach(async () => {
	await server.close();
});

/** Every AWS variable of the test's own environment unset: the run sees only what a test gives it. */
function awsCleared(): Record<string, undefined> {
	return Object.fromEntries(
		Object.keys(process.env)
			.filter((name) => name.startsWith("AWS_"))
			.map((name) => [name, undefined]),
	);
}

/** `settle -p hi` on `model` (and `flags`) with HOME in the test folder and `env` over no AWS variables. */
function settle(env: Record<string, string>, model = MODEL, flags: string[] = []) {
	return runSettleAsync(["--no-session", "--model", model, ...flags, "-p", "hi"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { ...awsCleared(), HOME: cli.dir, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url, ...env },
	});
}

/** Writes `~/.aws/config` and `~/.aws/credentials` of the test HOME. */
function awsFiles(config: string, credentials = ""): void {
	mkdirSync(join(cli.dir, ".aws"), { recursive: true });
	writeFileSync(join(cli.dir, ".aws", "config"), config);
	writeFileSync(join(cli.dir, ".aws", "credentials"), credentials);
}

describe("craft-agents-oss#474: Bedrock without AWS credentials", () => {
	it("craft-agents-oss#474: settle -p on a Bedrock model with no AWS variables: the AWS variables that count are named, not an auth.json key", async () => {
		const run = await settle({ AWS_ACCESS_KEY_ID: "AKIAHALF" });
		expect(run.code).toBe(4);
		expect(run.stderr).toContain("No API key found for amazon-bedrock.");
		expect(run.stderr).toContain("AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY");
		expect(run.stderr).toContain("AWS_PROFILE");
		expect(run.stderr).toContain("AWS_BEARER_TOKEN_BEDROCK");
		expect(run.stderr).toContain("AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY.");
		// pi-ai sends no auth.json key to Bedrock: writing one would not have helped.
		expect(run.stderr).toContain("not with a key in auth.json");
		expect(run.stderr).not.toContain('"amazon-bedrock":{"type":"api_key"');
		expect(server.requests).toHaveLength(0);
	});
});

describe("opencode#29106, agent-swarm#731: Bedrock refuses expired AWS credentials", () => {
	it("opencode#29106: settle -p with AWS_PROFILE, Bedrock answering ExpiredTokenException: exit 1, the refusal and how to renew the profile's credentials", async () => {
		awsFiles(
			"[profile dev]\nregion = eu-west-3\n",
			"[dev]\naws_access_key_id = AKIADEV\naws_secret_access_key = fake\n",
		);
		server.reply(bedrockError(403, "ExpiredTokenException", "The security token included in the request is expired"));
		const run = await settle({ AWS_PROFILE: "dev" });
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("ExpiredTokenException: The security token included in the request is expired");
		expect(run.stderr).toContain("refused the AWS credentials of the profile dev (AWS_PROFILE)");
		expect(run.stderr).toContain("`aws sso login --profile dev`");
		// Refused credentials are not sent again.
		expect(server.requests).toHaveLength(1);
		expect(signedKeyId(server.requests[0]!.authorization)).toBe("AKIADEV");
	});

	it("opencode#29106: settle -p with AWS_ACCESS_KEY_ID, Bedrock answering UnrecognizedClientException: the key variables to replace", async () => {
		server.reply(
			bedrockError(403, "UnrecognizedClientException", "The security token included in the request is invalid."),
		);
		const run = await settle({ AWS_ACCESS_KEY_ID: "AKIAOLD", AWS_SECRET_ACCESS_KEY: "fake", AWS_REGION: "us-west-2" });
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("The security token included in the request is invalid.");
		expect(run.stderr).toContain("refused the AWS credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
		expect(run.stderr).toContain("AWS_SESSION_TOKEN");
		expect(server.requests).toHaveLength(1);
	});

	it("a refusal that is not about the credentials (a model not enabled) gets no credentials note", async () => {
		server.reply(
			bedrockError(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."),
		);
		const run = await settle({ AWS_ACCESS_KEY_ID: "AKIAOK", AWS_SECRET_ACCESS_KEY: "fake", AWS_REGION: "us-west-2" });
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("You don't have access to the model with the specified model ID.");
		expect(run.stderr).not.toContain("refused the AWS credentials");
	});
});

describe("cline#2482: a base model id only inference profiles serve", () => {
	it("cline#2482: settle -p on amazon-bedrock/anthropic.claude-sonnet-4-5-…, Bedrock refusing on-demand throughput: exit 1, the us./eu./global. ids to select named", async () => {
		server.reply(
			bedrockError(
				400,
				"ValidationException",
				"Invocation of model ID anthropic.claude-sonnet-4-5-20250929-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.",
			),
		);
		const run = await settle(
			{ AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "fake", AWS_REGION: "eu-west-1" },
			"amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
		);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("with on-demand throughput isn’t supported");
		expect(run.stderr).toContain(
			"amazon-bedrock serves anthropic.claude-sonnet-4-5-20250929-v1:0 through inference profiles only: select one, the prefix being where the request may run: amazon-bedrock/eu.anthropic.claude-sonnet-4-5-20250929-v1:0, amazon-bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0, amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0.",
		);
		// A refusal of the id, not a transient failure: sent once.
		expect(server.requests).toHaveLength(1);
	});
});

describe("chatwise#867: thinking asked of a Bedrock model without it", () => {
	it("chatwise#867: settle -p --thinking high on amazon-bedrock/amazon.nova-pro-v1:0: the answer; the request carries no additional model fields", async () => {
		server.reply(bedrockAnswer("nova answers"));
		const run = await settle(
			{ AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "fake", AWS_REGION: "us-east-1" },
			"amazon-bedrock/amazon.nova-pro-v1:0",
			["--thinking", "high"],
		);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("nova answers\n");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]!.path).toBe("/model/amazon.nova-pro-v1%3A0/converse-stream");
		expect(server.requests[0]!.body).not.toHaveProperty("additionalModelRequestFields");
	});
});

describe("opencode#23522: an expired single sign-on session", () => {
	it("opencode#23522: settle -p with AWS_PROFILE of an SSO session whose cached token expired: exit 1, `aws sso login`, nothing sent", async () => {
		awsFiles(
			"[profile sso]\nsso_session = corp\nsso_account_id = 111111111111\nsso_role_name = Dev\nregion = eu-west-3\n\n" +
				"[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n",
		);
		const cache = join(cli.dir, ".aws", "sso", "cache");
		mkdirSync(cache, { recursive: true });
		// The SDK names the cache file after the SHA-1 of the session name.
		const { createHash } = await import("node:crypto");
		writeFileSync(
			join(cache, `${createHash("sha1").update("corp").digest("hex")}.json`),
			JSON.stringify({
				accessToken: "old",
				expiresAt: "2020-01-01T00:00:00Z",
				region: "us-east-1",
				startUrl: "https://corp.awsapps.com/start",
			}),
		);
		const run = await settle({ AWS_PROFILE: "sso" });
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("aws sso login");
		expect(server.requests).toHaveLength(0);
	});
});

describe("pi#1800, crewAI#4582: the region Bedrock is asked in", () => {
	it("pi#1800: settle -p with AWS_PROFILE whose region is only in ~/.aws/config: the answer, signed for the profile's region with its keys", async () => {
		awsFiles(
			"[profile work]\nregion = ap-southeast-2\n",
			"[work]\naws_access_key_id = AKIAWORK\naws_secret_access_key = fake\n",
		);
		server.reply(bedrockAnswer("hello from Sydney"));
		const run = await settle({ AWS_PROFILE: "work" });
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hello from Sydney\n");
		expect(server.requests).toHaveLength(1);
		const [request] = server.requests;
		// The cross-region inference profile id is the model id sent.
		expect(request!.path).toBe("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream");
		expect(signedRegion(request!.authorization)).toBe("ap-southeast-2");
		expect(signedKeyId(request!.authorization)).toBe("AKIAWORK");
	});

	it("crewAI#4582: settle -p with keys and only AWS_DEFAULT_REGION: signed for that region", async () => {
		server.reply(bedrockAnswer("hello from Stockholm"));
		const run = await settle({
			AWS_ACCESS_KEY_ID: "AKIAENV",
			AWS_SECRET_ACCESS_KEY: "fake",
			AWS_DEFAULT_REGION: "eu-north-1",
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hello from Stockholm\n");
		expect(signedRegion(server.requests[0]!.authorization)).toBe("eu-north-1");
	});
});

/**
 * `settle -p hi` (or `args`) through an HTTPS proxy that tunnels every CONNECT to a local TLS Bedrock endpoint
 * holding a certificate for bedrock-runtime in eu-west-1, ap-northeast-1 and us-east-1 (pi-ai's pin): the CONNECT targets and the endpoint's requests.
 */
async function settleThroughProxy(env: Record<string, string>, args = ["-p", "hi"]) {
	// Checked in (see its README): a clean machine may have no `openssl`.
	const certDir = fileURLToPath(new URL("../fixtures/llm/bedrock-tls/", import.meta.url));
	const tls = await startBedrockServer({
		key: readFileSync(join(certDir, "key.pem"), "utf8"),
		cert: readFileSync(join(certDir, "cert.pem"), "utf8"),
	});
	tls.reply(bedrockAnswer("hello from the profile's region"));
	const port = Number(new URL(tls.url).port);
	const connects: string[] = [];
	const sockets = new Set<Socket>();
	const proxy = createProxy().on("connect", (req, client: Socket, head) => {
		connects.push(String(req.url));
		const upstream = connect(port, "127.0.0.1", () => {
			client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
			upstream.write(head);
			upstream.pipe(client).on("error", () => {});
			client.pipe(upstream).on("error", () => {});
		});
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on("error", () => {});
		}
	});
	await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
	try {
		const run = await runSettleAsync(["--no-session", "--model", MODEL, ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: {
				...awsCleared(),
				HOME: cli.dir,
				HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
				NO_PROXY: "",
				NODE_EXTRA_CA_CERTS: join(certDir, "cert.pem"),
				AWS_ACCESS_KEY_ID: "AKIADEFAULT",
				AWS_SECRET_ACCESS_KEY: "fake",
				...env,
			},
		});
		return { run, connects, requests: tls.requests };
	} finally {
		for (const socket of sockets) socket.destroy();
		await new Promise<void>((resolve) => proxy.close(() => resolve()));
		await tls.close();
	}
}

describe("the region only in the [default] profile, no AWS_PROFILE", () => {
	it("settle -p with key variables and `region = eu-west-1` under [default] of ~/.aws/config: the request goes to eu-west-1's endpoint, signed for eu-west-1; the answer is printed", async () => {
		awsFiles("[default]\nregion = eu-west-1 # set by aws configure\noutput = json\n");
		const { run, connects, requests } = await settleThroughProxy({});
		expect(run.stdout).toBe("hello from the profile's region\n");
		expect(run.code).toBe(0);
		expect(connects).toEqual(["bedrock-runtime.eu-west-1.amazonaws.com:443"]);
		expect(requests.map((r) => [r.host, signedRegion(r.authorization)])).toEqual([
			["bedrock-runtime.eu-west-1.amazonaws.com", "eu-west-1"],
		]);
	});

	it("AWS_CONFIG_FILE is the file read ([profile default] there); AWS_REGION, when set, still wins over it", async () => {
		const config = join(cli.dir, "aws-config");
		writeFileSync(config, "[profile default]\nregion = ap-northeast-1\n");
		awsFiles("[default]\nregion = eu-west-1\n");
		const fromFile = await settleThroughProxy({ AWS_CONFIG_FILE: config });
		expect(fromFile.run.stdout).toBe("hello from the profile's region\n");
		expect(fromFile.connects).toEqual(["bedrock-runtime.ap-northeast-1.amazonaws.com:443"]);
		expect(signedRegion(fromFile.requests[0]!.authorization)).toBe("ap-northeast-1");
		const fromEnv = await settleThroughProxy({ AWS_CONFIG_FILE: config, AWS_REGION: "us-east-1" });
		expect(fromEnv.run.stdout).toBe("hello from the profile's region\n");
		expect(fromEnv.connects).toEqual(["bedrock-runtime.us-east-1.amazonaws.com:443"]);
	});
});

/** An extension command asking pi's `generateSummary` (Settle's compat module) for a summary, and printing it. */
const SUMMARY_EXTENSION = `import { generateSummary } from "@mariozechner/pi-coding-agent";
export default function (pi) {
	pi.registerCommand("summarize", {
		description: "summarizes a message with the session's model",
		handler: async (_args, ctx) => {
			const messages = [{ role: "user", content: "hi", timestamp: Date.now() }];
			process.stdout.write("summary: " + (await generateSummary(messages, ctx.model, 2000, "unused")) + "\\n");
		},
	});
}
`;

describe("an extension's summary request, the region only in the [default] profile", () => {
	it("regression: settle -p /summarize, an extension calling pi's generateSummary on the Bedrock model with `region = eu-west-1` under [default]: the summary request went to us-east-1 (pi-ai's pin); now to eu-west-1's endpoint, signed for eu-west-1, like the session's own requests", async () => {
		awsFiles("[default]\nregion = eu-west-1\n");
		const extension = join(cli.project, "summarize.ts");
		writeFileSync(extension, SUMMARY_EXTENSION);
		const { run, connects, requests } = await settleThroughProxy({}, ["-e", extension, "-p", "/summarize"]);
		// print mode keeps stdout for the answer: what an extension prints goes to stderr.
		expect(run.stderr).toContain("summary: hello from the profile's region\n");
		expect(run.code).toBe(0);
		expect(connects).toEqual(["bedrock-runtime.eu-west-1.amazonaws.com:443"]);
		expect(requests.map((r) => [r.host, signedRegion(r.authorization)])).toEqual([
			["bedrock-runtime.eu-west-1.amazonaws.com", "eu-west-1"],
		]);
	});
});
