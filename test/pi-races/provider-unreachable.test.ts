/**
 * Provider requests the network turns away before any answer, replayed with a real `settle -p`
 * child process (models.json's provider at a local address) and with pi-ai's real clients over HTTP.
 *
 * TradingAgents#664 / opencode#10961: a local model server that was not reachable (not running,
 * another port, a mistyped host) gave "Connection error." and nothing else; the user could not tell
 * which address had been tried, nor why it failed. Settle printed pi-ai's bare "Connection error.".
 * What the user should see: the address from models.json and the cause (nothing listening, host not
 * found), still retried (a server restarting comes back).
 *
 * claude-code#8054: behind a company's TLS inspection (a proxy re-signing connections with its own
 * authority) every request failed with "Connection error." and was retried ten times with growing
 * waits, though a certificate the process does not trust fails the same way every time. Settle did
 * the same. What the user should see: one attempt, the certificate named as the cause, and
 * NODE_EXTRA_CA_CERTS as the fix; with it set to the authority's certificate the answer arrives.
 * `test/fixtures/tls/` holds that authority's certificate and a server certificate it signed for
 * 127.0.0.1 (the authority's key was thrown away).
 *
 * codex#9110: a Cloudflare gateway answering 502 with its HTML page printed the whole page's markup
 * as the error, on every retry. Settle did the same (the HTML in the retry line, the session file and
 * stderr). What the user should see: the status and the page's title, said to come from a gateway,
 * and the retry.
 *
 * qwen-code#6465: a gateway blocked the request with its HTML page under a `200` status; the client
 * read it as a stream with no events and the user saw only "Model stream ended without a finish
 * reason". Settle printed "the model's answer holds no text" and exited 0, as if the model had
 * answered nothing (the same with a `baseUrl` naming a web UI). What the user should see: an error
 * saying the address served an HTML page, not the API, and to check the `baseUrl`; not retried.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents, chatReply } from "../llm/wire/openai.js";
import { encodeSse, type Reply, text, useWireServer } from "../llm/wire/server.js";
import { lastAssistant, useWireSession, type WireApi } from "../llm/wire/session.js";

const cli = useCliProject("settle-provider-unreachable-");
const server = useWireServer();
const prompt = ["--no-session", "--model", "local/coder", "-p", "hello"];
const TLS = join(import.meta.dirname, "..", "fixtures", "tls");

let tlsServer: HttpsServer | undefined;
afterEach(async () => {
	tlsServer?.closeAllConnections();
	await new Promise<void>((closed) => (tlsServer ? tlsServer.close(() => closed()) : closed()));
	tlsServer = undefined;
});
// After-hooks run last first: the session is disposed before the TLS server closes.
const wireSession = useWireSession();

/** models.json's `local` provider at `baseUrl`; one session retry at once, none inside the client. */
function localProvider(baseUrl: string): void {
	writeLocalProvider(cli.agentDir, baseUrl);
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ retry: { maxRetries: 1, baseDelayMs: 1, provider: { maxRetries: 0 } } }),
	);
}

/** A local port nothing listens on (a model server that is not running). */
async function closedPort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((ready) => probe.listen(0, "127.0.0.1", ready));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((closed) => probe.close(() => closed()));
	return port;
}

describe("TradingAgents#664 / opencode#10961: an unreachable model server gave only 'Connection error.'", () => {
	it("TradingAgents#664: a server that is not running: the error names the address from models.json and ECONNREFUSED; retried", async () => {
		const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
		localProvider(baseUrl);
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		const explained =
			`Connection error: nothing accepted the connection at ${baseUrl} (ECONNREFUSED). ` +
			"Check that the server runs and that the baseUrl of local names its address and port.";
		expect(run).toEqual({
			code: 1,
			stdout: "",
			stderr: `Retrying in 0.0 s, attempt 1/1: ${explained}\n${explained}\n`,
		});
	});

	it("opencode#10961: a host that does not resolve: the error names the host and the address; retried", async () => {
		// `.invalid` never resolves (RFC 6761); a resolver that cannot be reached says EAI_AGAIN instead.
		localProvider("http://models.lab.invalid:11434/v1");
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		const code = /\((ENOTFOUND|EAI_AGAIN)\)/.exec(run.stderr)?.[1];
		const explained =
			`Connection error: the host models.lab.invalid could not be found (${code}): the request to ` +
			"http://models.lab.invalid:11434/v1 was not sent. Check the baseUrl of local for a typo, and the network's DNS.";
		expect(run).toEqual({
			code: 1,
			stdout: "",
			stderr: `Retrying in 0.0 s, attempt 1/1: ${explained}\n${explained}\n`,
		});
	});

	it("TradingAgents#664: the baseUrl names a port that answers but not in HTTP: the error names the address, the cause and what to check; retried", async () => {
		// Another service on the model server's port: it reads the request and answers something else.
		const other = createServer((socket) => socket.once("data", () => socket.end("SSH-2.0-OpenSSH_9.6\r\n\r\n")));
		await new Promise<void>((ready) => other.listen(0, "127.0.0.1", ready));
		try {
			const baseUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;
			localProvider(baseUrl);
			const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
			const explained =
				`Connection error: the request to ${baseUrl} failed (HPE_INVALID_CONSTANT: Response does not match the HTTP/1.1 protocol (Expected HTTP/)). ` +
				"Check that the server runs, that the baseUrl of local names it, and any proxy in between.";
			expect(run).toEqual({
				code: 1,
				stdout: "",
				stderr: `Retrying in 0.0 s, attempt 1/1: ${explained}\n${explained}\n`,
			});
		} finally {
			await new Promise<void>((closed) => other.close(() => closed()));
		}
	});
});

describe("claude-code#8054: a certificate from a company's TLS inspection was retried as a connection error", () => {
	/** An HTTPS model server whose certificate chain ends at the test authority; answers `answer`. */
	async function inspectedServer(answer: string): Promise<{ baseUrl: string; requests: () => number }> {
		let requests = 0;
		const reply = chatReply([{ type: "text", text: answer }]);
		tlsServer = createHttpsServer(
			{
				key: readFileSync(join(TLS, "server-key.pem")),
				cert: `${readFileSync(join(TLS, "server.pem"), "utf8")}${readFileSync(join(TLS, "ca.pem"), "utf8")}`,
			},
			(req, res) => {
				requests++;
				req.resume();
				req.on("end", () => reply({ method: "POST", path: req.url ?? "", headers: req.headers, body: {} }, res, req));
			},
		);
		await new Promise<void>((ready) => tlsServer!.listen(0, "127.0.0.1", ready));
		return { baseUrl: `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/v1`, requests: () => requests };
	}

	it("claude-code#8054: one attempt, no retry; the error names the certificate and NODE_EXTRA_CA_CERTS", async () => {
		const server = await inspectedServer("never sent");
		localProvider(server.baseUrl);
		const run = await runSettleAsync(prompt, {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NODE_EXTRA_CA_CERTS: undefined, NODE_TLS_REJECT_UNAUTHORIZED: undefined },
		});
		expect(run).toEqual({
			code: 1,
			stdout: "",
			stderr:
				"The certificate of 127.0.0.1 is not signed by an authority this process trusts " +
				"(SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain): " +
				`the request to ${server.baseUrl} was not sent. If your network or a proxy signs connections with its own ` +
				"authority (a company's TLS inspection), set NODE_EXTRA_CA_CERTS to that authority's certificate " +
				"(a PEM file) and start the process again.\n",
		});
		expect(server.requests()).toBe(0);
	});

	it("claude-code#8054: with NODE_EXTRA_CA_CERTS naming the authority's certificate, the answer arrives", async () => {
		const server = await inspectedServer("Answered through the inspection.");
		localProvider(server.baseUrl);
		const run = await runSettleAsync(prompt, {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NODE_EXTRA_CA_CERTS: join(TLS, "ca.pem"), NODE_TLS_REJECT_UNAUTHORIZED: undefined },
		});
		expect(run).toEqual({ code: 0, stdout: "Answered through the inspection.\n", stderr: "" });
		expect(server.requests()).toBe(1);
	});
});

const CLOUDFLARE_502 =
	"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
	"<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n";

describe("codex#9110: a gateway's 502 HTML page printed as the error", () => {
	for (const api of ["openai-completions", "anthropic-messages"] as const satisfies readonly WireApi[]) {
		it(`codex#9110: ${api}: the retry says "502 Bad Gateway" from the gateway, not its markup; the answer arrives`, async () => {
			const w = await wireSession({ api, settings: { defaultThinkingLevel: "off" } });
			const answer = [{ type: "text" as const, text: "answered after the gateway blip" }];
			w.server.reply(
				text(502, CLOUDFLARE_502, "text/html"),
				api === "openai-completions" ? chatReply(answer) : anthropicReply(answer),
			);
			await w.session.prompt("hello");

			expect(w.server.requests).toHaveLength(2);
			const host = new URL(w.server.url).host;
			expect(w.eventsOf("auto_retry_start")).toEqual([
				expect.objectContaining({
					attempt: 1,
					errorMessage: `502 Bad Gateway: an HTML error page from ${host} (a gateway or proxy in front of the API), not the API's answer`,
				}),
			]);
			expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: answer });
		});
	}

	it("codex#9110: when the retries run out, the error and the session file hold the short text, not the page", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { retry: { maxRetries: 1, baseDelayMs: 1 } } });
		w.server.reply(text(502, CLOUDFLARE_502, "text/html"), text(502, CLOUDFLARE_502, "text/html"));
		await w.session.prompt("hello");

		const host = new URL(w.server.url).host;
		const short = `502 Bad Gateway: an HTML error page from ${host} (a gateway or proxy in front of the API), not the API's answer`;
		expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: short });
		const saved = w.entries().filter((entry) => entry.type === "message" && entry.message.role === "assistant");
		// Each failed attempt is kept, each with the short text.
		expect(
			saved.map(
				(entry) => entry.type === "message" && entry.message.role === "assistant" && entry.message.errorMessage,
			),
		).toEqual([short, short]);
	});
});

const BLOCK_PAGE =
	"<!DOCTYPE html><html><head><title>Request blocked</title></head>" +
	"<body><h1>Request blocked</h1><p>Missing request classification header.</p></body></html>";

describe("qwen-code#6465: a gateway's HTML page under a 200 status read as an empty answer", () => {
	it("qwen-code#6465: `settle -p` ends with an error naming the address and the page, exit 1; one request, no retry", async () => {
		const baseUrl = `${server.url}/v1`;
		localProvider(baseUrl);
		server.reply(text(200, BLOCK_PAGE, "text/html; charset=UTF-8"));
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		expect(run).toEqual({
			code: 1,
			stdout: "",
			stderr:
				`The server at ${baseUrl} answered with an HTML page ("Request blocked"), not the API. Check the baseUrl ` +
				"of local: it names a web page (a web UI, a sign-in or a gateway's block page), not the API's address.\n",
		});
		expect(server.requests).toHaveLength(1);
	});

	for (const api of [
		"openai-completions",
		"openai-responses",
		"anthropic-messages",
	] as const satisfies readonly WireApi[]) {
		it(`qwen-code#6465: ${api}: the turn ends with the error, kept in the session file; no retry`, async () => {
			const w = await wireSession({ api });
			w.server.reply(text(200, BLOCK_PAGE, "text/html"));
			await w.session.prompt("hello");

			expect(w.server.requests).toHaveLength(1);
			expect(w.eventsOf("auto_retry_start")).toEqual([]);
			const error =
				`The server at ${w.model.baseUrl} answered with an HTML page ("Request blocked"), not the API. Check the baseUrl ` +
				`of ${w.model.provider}: it names a web page (a web UI, a sign-in or a gateway's block page), not the API's address.`;
			expect(lastAssistant(w)).toMatchObject({ stopReason: "error", errorMessage: error, content: [] });
			const saved = w.entries().filter((entry) => entry.type === "message" && entry.message.role === "assistant");
			expect(saved).toEqual([expect.objectContaining({ message: expect.objectContaining({ errorMessage: error }) })]);
		});
	}
});

describe("an answer stream mislabeled text/html is not a served page", () => {
	it("a server sending its SSE answer as `text/html; charset=utf-8` (a misconfigured gateway) is answered as before; only a body that is markup is a page", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply((_request, res) => {
			res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
			res.end(encodeSse(chatEvents([{ type: "text", text: "Here it is." }])));
		});
		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(1);
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "Here it is." }] });
	});
});

describe("a 200 JSON or HTML answer whose connection drops mid-body", () => {
	/** `drop` answers the first request: the retry line names the dropped connection, and the retry is answered. */
	async function expectDropRetried(drop: Reply): Promise<void> {
		const baseUrl = `${server.url}/v1`;
		localProvider(baseUrl);
		server.reply(drop, chatReply([{ type: "text", text: "Hello there." }]));
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stderr).toContain(`Connection error: ${baseUrl} closed the connection in the middle of its answer`);
		expect(run.stdout).toBe("Hello there.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
	}

	it("the retry line names the dropped connection (not an empty answer) and the retry is answered", async () => {
		await expectDropRetried((_request, res) => {
			// Promises more bytes than it sends, then hangs up: a server that crashed mid-answer.
			res.writeHead(200, { "content-type": "application/json", "content-length": "4096" });
			res.write('{"id":"chatcmpl-1","object":"chat.completion","choices":[');
			setTimeout(() => res.socket?.destroy(), 20);
		});
	});

	for (const type of ["application/json", "text/html; charset=utf-8"]) {
		it(`an answer (${type}) whose connection drops after its headers, before any body: the same line, and the retry is answered`, async () => {
			await expectDropRetried((_request, res) => {
				// Headers sent, then the server dies before its first body byte.
				res.writeHead(200, { "content-type": type, "content-length": "4096" });
				res.flushHeaders();
				setTimeout(() => res.socket?.destroy(), 20);
			});
		});
	}
});

describe("an event stream cut in the middle of its answer", () => {
	/** Sends the first events of an answer, then hangs up (undici words it "terminated"). */
	const cutStream = (_request: unknown, res: import("node:http").ServerResponse) => {
		res.writeHead(200, { "content-type": "text/event-stream" });
		const events = encodeSse(chatEvents([{ type: "text", text: "Hello there, this answer is cut." }]));
		res.write(events.slice(0, events.indexOf("\n\n") + 2));
		setTimeout(() => res.socket?.destroy(), 20);
	};

	it("the retry line names the address and the cause, not a bare 'terminated'; the retry is answered", async () => {
		const baseUrl = `${server.url}/v1`;
		localProvider(baseUrl);
		server.reply(cutStream, chatReply([{ type: "text", text: "Hello there." }]));
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stderr).toContain(
			`Connection error: ${baseUrl} closed the connection in the middle of its answer (UND_ERR_SOCKET`,
		);
		expect(run.stderr).not.toMatch(/: terminated\b/);
		expect(run.stdout).toBe("Hello there.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
	});

	it("when the retries run out, the final error names it the same way (exit 1)", async () => {
		const baseUrl = `${server.url}/v1`;
		localProvider(baseUrl);
		server.reply(cutStream, cutStream);
		const run = await runSettleAsync(prompt, { cwd: cli.project, agentDir: cli.agentDir });
		const lines = run.stderr.split("\n").filter((line) => line.includes("closed the connection in the middle"));
		expect(lines.length).toBeGreaterThanOrEqual(2);
		expect(run.stderr).not.toMatch(/: terminated\b|^terminated$/m);
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(2);
	});
});
