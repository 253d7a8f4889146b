/**
 * Reports about a session's cached prefix across restarts, replayed with the real `settle`
 * command (one child process per prompt, as a script resuming with `-c` does) on a local OpenAI
 * Responses endpoint reached through pi-ai's own client:
 * - inspect_swe#142: each `--resume` rebuilt the system prompt (its git status and more) from the
 *   current state: every resumed turn missed the cache for the whole conversation.
 * - opencode#23571: after a restart the MCP tools came in another order: same tools, other bytes,
 *   a cache miss.
 * - oh-my-pi#274: skills were listed in the order their files finished loading, so the skills
 *   section of the system prompt changed from run to run.
 * - exo#24: OpenAI Responses requests carried no `prompt_cache_key`, so a session's requests were
 *   not routed to the machine holding its cached prefix: a cache miss on every request.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-prompt-cache-restarts-");
const server = useWireServer();

const SKILLS = ["zeta-deploy", "alpha-lint", "mu-docs"];

/** Writes the skills, in `order` (files written later are newer). */
function writeSkills(order: readonly string[]): void {
	for (const name of order) {
		const dir = join(cli.agentDir, "skills", name);
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} steps.\n---\nDo ${name}.\n`);
	}
}

/** An extension registering MCP-like tools after an await of `delayMs` (as a bridge listing a server's tools). */
function writeBridge(file: string, delayMs: number, tools: readonly string[]): void {
	const registrations = tools.map(
		(name) => `pi.registerTool({
		name: "${name}",
		label: "${name}",
		description: "The ${name} tool",
		parameters: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" } }, required: ["query"] },
		execute: async () => ({ content: [{ type: "text", text: "${name}" }], details: {} }),
	});`,
	);
	mkdirSync(join(cli.agentDir, "extensions"), { recursive: true });
	writeFileSync(
		join(cli.agentDir, "extensions", file),
		`export default async function (pi) {\n\tawait new Promise((resolve) => setTimeout(resolve, ${delayMs}));\n\t${registrations.join("\n\t")}\n}\n`,
	);
}

// biome-ignore lint/suspicious/noExplicitAny: request payloads are walked field by field
type Json = any;
const bytes = (value: unknown) => JSON.stringify(value);

describe("inspect_swe#142, opencode#23571, oh-my-pi#274, exo#24: the prefix across restarts", () => {
	it("three `settle -c -p` processes send one prefix: the same instructions and tools bytes, the earlier turns unchanged, one prompt_cache_key (the session id)", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { api: "openai-responses" });
		writeSkills(SKILLS);
		// The slower bridge sorts first: tools loaded concurrently would come in finishing order.
		writeBridge("a-bridge.ts", 60, ["mcp_search", "mcp_fetch"]);
		writeBridge("b-bridge.ts", 0, ["mcp_open", "mcp_close"]);
		server.reply(
			responsesReply([{ type: "message", text: "one" }]),
			responsesReply([{ type: "message", text: "two" }]),
			responsesReply([{ type: "message", text: "three" }]),
		);
		const run = (args: string[]) =>
			runSettleAsync([...args, "--model", "local/coder", "-p"], { cwd: cli.project, agentDir: cli.agentDir });

		for (const [args, prompt, skillOrder] of [
			[[], "first", SKILLS],
			[["-c"], "second", [...SKILLS].reverse()],
			[["-c"], "third", [SKILLS[1]!, SKILLS[2]!, SKILLS[0]!]],
		] as const) {
			// Between runs the skill files are written again, newest first this time (same content).
			writeSkills(skillOrder);
			const result = await run([...args, prompt]);
			expect(result.stderr).toBe("");
			expect(result.code).toBe(0);
		}
		const bodies: Json[] = server.requests.map((request) => request.body);
		expect(bodies).toHaveLength(3);

		const [file] = sessionFilesUnder(cli.agentDir);
		const header = JSON.parse(readFileSync(file!, "utf8").split("\n")[0]!) as { id: string };
		const system = bodies[0].input[0];
		expect(system.content).toContain("alpha-lint");
		expect(system.content.indexOf("alpha-lint")).toBeLessThan(system.content.indexOf("mu-docs"));
		expect(system.content.indexOf("mu-docs")).toBeLessThan(system.content.indexOf("zeta-deploy"));
		expect(bodies[0].tools.map((tool: Json) => tool.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"mcp_search",
			"mcp_fetch",
			"mcp_open",
			"mcp_close",
		]);
		for (const [i, body] of bodies.entries()) {
			expect(body.prompt_cache_key).toBe(header.id);
			expect(server.requests[i]!.headers.session_id).toBe(header.id);
			expect(bytes(body.tools)).toBe(bytes(bodies[0].tools));
		}
		// Each resumed request begins with the previous request's input, byte for byte.
		for (let i = 1; i < bodies.length; i++) {
			const previous = bodies[i - 1].input;
			expect(bytes(bodies[i].input.slice(0, previous.length))).toBe(bytes(previous));
		}
		expect(bodies[2].input.at(-1)).toMatchObject({ role: "user" });
		// The prompt was recorded once: the resumed runs found it unchanged.
		expect(readFileSync(file!, "utf8").match(/"role":"system"/g)).toHaveLength(1);
	});
});
