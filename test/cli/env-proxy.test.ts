/**
 * Behind a proxy (`HTTPS_PROXY` / `HTTP_PROXY`, a corporate network or a VPN), Node 20's `fetch`
 * ignores the variables: `settle` dialled providers directly, while pi's command routes them through
 * the proxy (undici's `EnvHttpProxyAgent`), as curl and git do (pilish#196, pi_agent_rust#210).
 * Real `settle -p` processes, a models.json provider on a local server and a real forwarding proxy.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { runSettleAsync, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-env-proxy-");
const server = useWireServer();
let proxy: { url: string; seen: string[]; close: () => Promise<void> };

/**
 * A forward proxy as corporate ones are: tunnels `CONNECT host:port` (what undici's ProxyAgent
 * sends, for http and https targets alike) and relays absolute-form requests; records each target.
 */
async function startProxy(): Promise<typeof proxy> {
	const seen: string[] = [];
	const http: Server = createServer((req, res) => {
		seen.push(`${req.method} ${req.url}`);
		const upstream = request(req.url ?? "", { method: req.method, headers: req.headers }, (answer) => {
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(res);
		});
		upstream.on("error", () => res.destroy());
		req.pipe(upstream);
	});
	http.on("connect", (req, client: Socket, head: Buffer) => {
		seen.push(`CONNECT ${req.url}`);
		const [host, port] = (req.url ?? "").split(":");
		const upstream = connect(Number(port), host, () => {
			client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
			upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		upstream.on("error", () => client.destroy());
		client.on("error", () => upstream.destroy());
	});
	await new Promise<void>((ready) => http.listen(0, "127.0.0.1", ready));
	const { port } = http.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		seen,
		close: () =>
			new Promise<void>((done) => {
				http.closeAllConnections();
				http.close(() => done());
			}),
	};
}

beforeEach(async () => {
	proxy = await startProxy();
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
});
afterEach(async () => {
	await proxy.close();
});

const prompt = ["--no-session", "--model", "gateway/team-model", "-p", "hello"];

describe("pilish#196: settle ignored HTTP(S)_PROXY and dialled providers directly", () => {
	for (const name of ["HTTP_PROXY", "http_proxy"]) {
		it(`with ${name} set, the provider request goes through the proxy and the answer arrives`, async () => {
			server.reply(chatReply([{ type: "text", text: "through the proxy" }]));
			const run = await runSettleAsync(prompt, {
				cwd: cli.project,
				agentDir: cli.agentDir,
				env: { [name]: proxy.url, NO_PROXY: "" },
			});
			expect(run.stderr).toBe("");
			expect(run.stdout).toBe("through the proxy\n");
			expect(proxy.seen).toEqual([`CONNECT ${server.url.slice("http://".length)}`]);
			expect(server.requests).toHaveLength(1);
		});
	}

	it("a host NO_PROXY names is dialled directly", async () => {
		server.reply(chatReply([{ type: "text", text: "direct" }]));
		const run = await runSettleAsync(prompt, {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" },
		});
		expect(run.stdout).toBe("direct\n");
		expect(proxy.seen).toEqual([]);
		expect(server.requests).toHaveLength(1);
	});
});
