/**
 * pi-mcp-adapter#443: an extension registering an MCP server with pi-mcp-adapter, installed as a
 * separate package, got "pi-mcp-adapter is not installed for this Pi instance": the helper it
 * imported kept its registry in module state, and a separately loaded extension had its own copy.
 * The fix the maintainers shipped (pi-mcp-adapter#447) goes through the shared bus: the caller
 * emits `pi-mcp-adapter:runtime-register:v1` from `session_start` and reads the result the
 * adapter's listener wrote into the payload, synchronously. Replayed with three real extension
 * files in the real `settle` CLI, the caller loaded before the adapter and a third extension's
 * listener on the same channel throwing. What the caller should see: the adapter's answer in the
 * payload right after `emit` (a duplicate refused), whatever the load order, the throwing listener
 * neither reaching the caller nor keeping the adapter's from running; the run answers as usual.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-event-bus-");

const CHANNEL = "pi-mcp-adapter:runtime-register:v1";

/** The adapter's side: a registry answering in the payload. */
const ADAPTER = `import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const servers = new Map<string, unknown>();
	pi.events.on("${CHANNEL}", (data) => {
		const request = data as { name: string; definition: unknown; result?: unknown };
		if (servers.has(request.name)) {
			request.result = { ok: false, error: \`server "\${request.name}" is already registered\` };
			return;
		}
		servers.set(request.name, request.definition);
		request.result = { ok: true, servers: [...servers.keys()] };
	});
}
`;

/** Another listener on the channel (an observer) that throws. */
const NOISY = `import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.events.on("${CHANNEL}", () => {
		throw new Error("observer broke");
	});
}
`;

/** The caller: registers at session_start and records what it read back. */
const CALLER = (log: string) => `import { writeFileSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_start", () => {
		const first: { name: string; definition: unknown; result?: unknown } = {
			name: "datadog",
			definition: { url: "https://mcp.example.test/mcp", lifecycle: "lazy" },
		};
		pi.events.emit("${CHANNEL}", first);
		const again: { name: string; definition: unknown; result?: unknown } = { name: "datadog", definition: {} };
		pi.events.emit("${CHANNEL}", again);
		writeFileSync(${JSON.stringify(log)}, JSON.stringify([first.result ?? null, again.result ?? null]));
	});
}
`;

describe("pi-mcp-adapter#443: registering with another extension over pi.events", () => {
	it("pi-mcp-adapter#443: a caller loaded first emits at session_start and reads the adapter's answer synchronously; a duplicate is refused; a throwing listener reaches neither", () => {
		const log = join(cli.dir, "registered.json");
		const files = {
			caller: join(cli.dir, "caller.ts"),
			noisy: join(cli.dir, "noisy.ts"),
			adapter: join(cli.dir, "adapter.ts"),
		};
		writeFileSync(files.caller, CALLER(log));
		writeFileSync(files.noisy, NOISY);
		writeFileSync(files.adapter, ADAPTER);
		const run = runSettle(
			["--faux", "--no-session", "-e", files.caller, "-e", files.noisy, "-e", files.adapter, "-p", "hello"],
			{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 },
		);
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).not.toBe("");
		expect(JSON.parse(readFileSync(log, "utf8"))).toEqual([
			{ ok: true, servers: ["datadog"] },
			{ ok: false, error: 'server "datadog" is already registered' },
		]);
		// The throwing observer is reported once per emit, on stderr, naming its file and the channel.
		const reported = `Extension error (${files.noisy}, events:${CHANNEL}): observer broke (thrown at noisy.ts:5)`;
		expect(run.stderr.split("\n").filter((line) => line.includes("observer broke"))).toEqual([reported, reported]);
	});
});
