/**
 * A proxy that turns provider requests away, replayed with a real `settle -p` child process whose
 * models.json provider is a local server, with the proxy variables pointing at a local port.
 *
 * dub#1452: with a proxy variable naming a proxy that cannot be reached, every request failed with
 * a generic network error that never said the proxy was the cause; the user spent a long while
 * before finding the forgotten variable. claude-code-router#341: behind a proxy the agent showed only
 * "connection error" on every request, until the user unset `http_proxy`. Settle showed pi-ai's bare
 * "Connection error." (three retries, then exit 1), also for a proxy answering 407 Proxy
 * Authentication Required, which no retry can fix. What the user should see: an error naming the
 * proxy and its variable, why, and what to do; a 407 not retried; the proxy's password never shown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-proxy-refusals-");
const server = useWireServer();
let proxy: Server | undefined;
const tunnelRequests: string[] = [];

beforeEach(() => {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({
			providers: {
				gateway: {
					baseUrl: `${server.url}/v1`,
					api: "openai-completions",
					apiKey: "gateway-key",
					models: [{ id: "team-model" }],
				},
			},
		}),
	);
	// One session retry, at once, and none inside the provider client (its own retries are pi's
	// `retry.provider.maxRetries`): the test checks what the session retries, not the backoff.
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ retry: { maxRetries: 1, baseDelayMs: 1, provider: { maxRetries: 0 } } }),
	);
});
afterEach(async () => {
	await new Promise<void>((closed) => (proxy ? proxy.close(() => closed()) : closed()));
	proxy = undefined;
	tunnelRequests.length = 0;
});

/** A proxy that answers every tunnel request 407 Proxy Authentication Required. */
async function startProxyWantingCredentials(): Promise<number> {
	proxy = createServer((socket: Socket) => {
		socket.once("data", (head: Buffer) => {
			tunnelRequests.push(head.toString("latin1").split("\r\n")[0]!);
			socket.end(
				'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
			);
		});
	});
	await new Promise<void>((ready) => proxy!.listen(0, "127.0.0.1", ready));
	return (proxy.address() as AddressInfo).port;
}

/** A local port nothing listens on (a proxy that is not running). */
async function closedPort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((ready) => probe.listen(0, "127.0.0.1", ready));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((closed) => probe.close(() => closed()));
	return port;
}

const prompt = ["--no-session", "--model", "gateway/team-model", "-p", "hello"];
const onlyProxy = (name: string, url: string) => ({
	HTTP_PROXY: "",
	http_proxy: "",
	HTTPS_PROXY: "",
	https_proxy: "",
	NO_PROXY: "",
	no_proxy: "",
	[name]: url,
});

describe("dub#1452 / claude-code-router#341: a proxy that turns the request away shows only a bare connection error", () => {
	it("dub#1452: a proxy that is not running: the error names the proxy, its variable and NO_PROXY; retried as a connection error", async () => {
		const port = await closedPort();
		const run = await runSettleAsync(prompt, {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: onlyProxy("http_proxy", `http://127.0.0.1:${port}`),
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		const explained =
			`Connection error: the proxy http://127.0.0.1:${port} (http_proxy) could not be reached (ECONNREFUSED): ` +
			`the request to ${server.url.slice("http://".length)} was not sent. Check that the proxy runs and http_proxy names it, ` +
			"or list 127.0.0.1 in NO_PROXY.";
		expect(run.stderr).toBe(`Retrying in 0.0 s, attempt 1/1: ${explained}\n${explained}\n`);
		expect(server.requests).toEqual([]);
	});

	it("claude-code-router#341: a proxy answering 407 is not retried; the error says to put credentials in the variable and never shows the password", async () => {
		const port = await startProxyWantingCredentials();
		const run = await runSettleAsync(prompt, {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: onlyProxy("HTTP_PROXY", `http://alice:wrong-s3cret@127.0.0.1:${port}`),
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(
			`The proxy http://127.0.0.1:${port} (HTTP_PROXY) answered 407 Proxy Authentication Required: ` +
				`the request to ${server.url.slice("http://".length)} was not sent. Put the proxy's user and password in HTTP_PROXY ` +
				"(http://user:password@host:port), or list 127.0.0.1 in NO_PROXY.\n",
		);
		expect(run.stderr).not.toContain("wrong-s3cret");
		// One attempt: a retry cannot change the proxy's answer.
		expect(tunnelRequests).toEqual([`CONNECT ${server.url.slice("http://".length)} HTTP/1.1`]);
		expect(server.requests).toEqual([]);
	});
});
