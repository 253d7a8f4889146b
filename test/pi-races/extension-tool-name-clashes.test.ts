/**
 * Reports about two tool sources that register the same tool name after start-up, replayed against
 * a real `settle -p` child process with real extension files on a scripted faux model.
 *
 * kimi-code#575, opencode#33965: two MCP servers (or two plugins) exposed a tool of the same name
 * (`read_node`, `run`); the later registration silently took the name, or was silently dropped, so
 * the model called a tool other than the one its user had set up and nothing said so. Settle
 * reports such a clash between extension files at start-up (and exits 1, as pi 0.73.1 does), but
 * an MCP bridge registers its tools once its server answers — from `session_start` — after that
 * check: the name stayed with the extension loaded first and nothing was said. What the user should
 * see: the run goes on with the first-loaded extension's tool (the start-up rule), and stderr names
 * the tool, both files and which one the model gets; an extension that registers its own tool again
 * (a refresh) is no clash.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-tool-clash-");

/** A guard against a hang only (the run takes about a second). */
const HANG_GUARD_MS = 60_000;

/** An extension file registering `query` (answering `answer`) at load or from `session_start`. */
function queryExtension(name: string, answer: string, when: "load" | "session_start"): string {
	const path = join(cli.dir, name);
	const register = `pi.registerTool({ name: "query", label: "Query", description: "Runs a query", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "${answer}" }], details: {} }) });`;
	const body =
		when === "load"
			? register
			: // An MCP bridge: registers once its server answered, and again on list_changed.
				`pi.on("session_start", () => { ${register} ${register} });`;
	writeFileSync(path, `export default function (pi) {\n${body}\n}\n`);
	return path;
}

function runQuery(extensions: string[]) {
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "query", arguments: {} }] }, "done"]));
	const flags = extensions.flatMap((path) => ["-e", path]);
	return runSettle(["--faux-script", script, ...flags, "--no-session", "--mode", "json", "-p", "query it"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		timeoutMs: HANG_GUARD_MS,
	});
}

describe("kimi-code#575, opencode#33965: a tool name taken at run time by a second extension", () => {
	it("kimi-code#575: a bridge registering a name another extension has: the model gets the first-loaded one, stderr names both", () => {
		const database = queryExtension("database.mjs", "from database", "load");
		const bridge = queryExtension("mcp-bridge.mjs", "from bridge", "session_start");
		const run = runQuery([database, bridge]);
		expect(run.code).toBe(0);
		expect(toolEnds(run.stdout).map((end) => end.result.content)).toEqual([[{ type: "text", text: "from database" }]]);
		expect(run.stderr).toBe(
			`Extension error (${bridge}, register_tool): Tool "query" is also registered by ${database}: the model gets the one of ${database}, the extension loaded first; rename one\n`,
		);
	});

	it("opencode#33965: the first-loaded extension registering late takes the name back: said, naming the one the model gets", () => {
		const bridge = queryExtension("mcp-bridge.mjs", "from bridge", "session_start");
		const database = queryExtension("database.mjs", "from database", "load");
		const run = runQuery([bridge, database]);
		expect(run.code).toBe(0);
		expect(toolEnds(run.stdout).map((end) => end.result.content)).toEqual([[{ type: "text", text: "from bridge" }]]);
		expect(run.stderr).toBe(
			`Extension error (${bridge}, register_tool): Tool "query" is also registered by ${database}: the model gets the one of ${bridge}, the extension loaded first; rename one\n`,
		);
	});

	it("kimi-code#575: one bridge alone registering its tool twice is no clash: nothing on stderr", () => {
		const bridge = queryExtension("mcp-bridge.mjs", "from bridge", "session_start");
		const run = runQuery([bridge]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(toolEnds(run.stdout).map((end) => end.result.content)).toEqual([[{ type: "text", text: "from bridge" }]]);
	});
});
