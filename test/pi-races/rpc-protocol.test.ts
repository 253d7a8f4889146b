/**
 * pi's reports about the RPC protocol itself (framing, malformed lines, the ends of the pipes),
 * replayed against a real `settle --rpc` child process; where cheap, pi 0.73.1's own RPC mode
 * (test/cli/pi-rpc-peer.mjs) runs the same lines side by side.
 *
 * - pi#4901: valid JSON that is not a command (`null`) crashed pi's worker while it reported the
 *   error; an object without a string `type` got a "weak envelope": no id, so a client waiting on
 *   its request id never heard the refusal.
 * - oh-my-pi#5194: one non-JSON line on stdin (`ls`) killed the whole RPC process.
 * - pi#1908, pi#1911: a payload holding U+2028 / U+2029 was split by line readers that treat them
 *   as line ends; the client missed `agent_end` and stayed "streaming".
 * - pi#2645: a client that writes a prompt and closes stdin (`echo … | pi --mode rpc`) got no
 *   answer: the process exited 0 before the model was asked.
 * - pi#7860: a host that closes its read end of stdout crashed pi with an EPIPE stack trace.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-protocol-");

/** pi 0.73.1's RPC mode on pi-ai's faux provider, answering `replies` in turn. */
function piPeer(name: string, replies: string[]): RpcClient {
	const dirs = {
		cwd: join(cli.dir, name, "cwd"),
		agent: join(cli.dir, name, "agent"),
		sessions: join(cli.dir, name, "s"),
	};
	for (const path of Object.values(dirs)) mkdirSync(path, { recursive: true });
	const repliesFile = join(cli.dir, name, "replies.json");
	writeFileSync(repliesFile, JSON.stringify(replies));
	return new RpcClient([], {
		cwd: dirs.cwd,
		agentDir: dirs.agent,
		command: [join(ROOT, "test/cli/pi-rpc-peer.mjs"), dirs.cwd, dirs.agent, dirs.sessions, repliesFile],
	});
}

const settle = (args: string[] = ["--faux", "--no-session"]) =>
	new RpcClient(args, { cwd: cli.project, agentDir: cli.agentDir });

const responses = (client: RpcClient) => client.lines.filter((line) => line.type === "response");

describe("pi#4901: RPC mode crashes while reporting invalid command envelopes", () => {
	it("pi#4901: settle --rpc: null, an array, a string and objects without a string type each get one parse error, under the object's id when it has one; the server goes on answering", async () => {
		const client = settle();
		client.child.stdin.write(
			["null", "[1]", '"just a string"', '{"id":"x","type":5}', '{"id":"y"}', '{"type":null}'].join("\n") + "\n",
		);
		const after = await client.request({ id: "after", type: "get_state" });
		expect(after).toMatchObject({ success: true, data: { isStreaming: false } });
		const parse = responses(client).filter((line) => line.command === "parse");
		// One refusal per line, in order; the two objects with an id get it back (a client matching ids hears them).
		expect(parse.map((line) => line.id)).toEqual([undefined, undefined, undefined, "x", "y", undefined]);
		for (const line of parse) {
			expect(line).toMatchObject({ type: "response", success: false });
			expect(String(line.error)).toMatch(
				/^Failed to parse command: a command is one JSON object per line with a string "type"/,
			);
		}
		// The server is still whole: a prompt is answered.
		const answered = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "still here" })).toMatchObject({ success: true });
		await answered;
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});

	it("pi#4901 (pi-peer): pi 0.73.1 answers an object without a type as `Unknown command: undefined` with no id, so a client waiting on the id never hears it", async () => {
		const pi = piPeer("pi-4901", ["ok"]);
		pi.send({ id: "y" });
		const after = await pi.request({ id: "after", type: "get_state" });
		expect(after).toMatchObject({ success: true });
		expect(responses(pi).filter((line) => line.id !== "after")).toEqual([
			{ type: "response", command: undefined, success: false, error: "Unknown command: undefined" },
		]);
		expect(await pi.end()).toBe(0);
	});
});

/** Malformed commands that still carry an id (numbers among them, 0 included), and a line that is not JSON. */
const MALFORMED_WITH_IDS = [
	'{"id":7,"type":"prompt","message":5}',
	'{"id":"s7","type":"prompt","message":5}',
	'{"id":8,"type":"nope"}',
	'{"id":9,"type":5}',
	'{"id":0}',
	"not json",
];

describe("helidon#10740, python-jsonrpc#26: an error response without the request's id (or with id 0 dropped) leaves the client waiting", () => {
	it("helidon#10740: settle --rpc answers each malformed command under its id as sent (7 and 0 stay numbers, a string stays a string); the line that is not JSON gets its error without an id", async () => {
		const client = settle();
		client.child.stdin.write(`${MALFORMED_WITH_IDS.join("\n")}\n`);
		const after = await client.request({ id: "after", type: "get_state" });
		expect(after).toMatchObject({ success: true });
		const refusals = responses(client).filter((line) => line.id !== "after");
		expect(refusals).toHaveLength(MALFORMED_WITH_IDS.length);
		for (const line of refusals) expect(line).toMatchObject({ type: "response", success: false });
		const byId = (id: unknown) => refusals.filter((line) => line.id === id);
		expect(byId(7)).toEqual([
			expect.objectContaining({ command: "prompt", error: expect.stringMatching(/"message" must be a string/) }),
		]);
		expect(byId("s7")).toEqual([expect.objectContaining({ command: "prompt" })]);
		expect(byId(8)).toEqual([expect.objectContaining({ command: "nope", error: "Unknown command: nope" })]);
		expect(byId(9)).toEqual([expect.objectContaining({ command: "parse" })]);
		expect(byId(0)).toEqual([expect.objectContaining({ command: "parse" })]);
		const withoutId = refusals.filter((line) => !("id" in line));
		expect(withoutId).toEqual([
			expect.objectContaining({ command: "parse", error: expect.stringMatching(/^Failed to parse command: /) }),
		]);
		expect(await client.end()).toBe(0);
	});

	it("helidon#10740 (pi-peer): pi 0.73.1 keeps the id only for the mistyped field (its error a crash message); the unknown type, the numeric type and the object without a type are answered without one", async () => {
		const pi = piPeer("pi-ids", ["ok"]);
		pi.child.stdin.write(`${MALFORMED_WITH_IDS.join("\n")}\n`);
		await pi.request({ id: "after", type: "get_state" });
		const ids = responses(pi)
			.filter((line) => line.id !== "after")
			.map((line) => line.id);
		expect(ids.sort()).toEqual([7, "s7", undefined, undefined, undefined, undefined].sort());
		expect(await pi.end()).toBe(0);
	});
});

describe("oh-my-pi#5194: RPC mode crashes the whole process on any non-JSON stdin line", () => {
	it("oh-my-pi#5194: settle --rpc: `ls`, a half line and invalid UTF-8 each get a parse error; the prompt after them is answered and the server exits 0", async () => {
		const client = settle();
		client.child.stdin.write("ls\n");
		client.child.stdin.write('{"type":"get_st\n');
		client.child.stdin.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "after the noise" })).toMatchObject({
			success: true,
		});
		await settled;
		const parse = responses(client).filter((line) => line.command === "parse");
		expect(parse).toHaveLength(3);
		for (const line of parse) expect(String(line.error)).toMatch(/^Failed to parse command: /);
		const end = client.lines.find((line) => line.type === "agent_end") as {
			messages: { role: string; content: unknown }[];
		};
		expect(end.messages.at(-1)).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "after the noise" }],
		});
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});

describe("pi#1908, pi#1911: RPC mode breaks JSON-lines framing on U+2028 / U+2029", () => {
	it("pi#1908, pi#1911: settle --rpc: a prompt holding raw U+2028 / U+2029 is one command; the text reaches the model whole, every stdout line is one JSON value, the separators written as escapes", async () => {
		const client = settle();
		let raw = "";
		client.child.stdout.on("data", (chunk: Buffer) => {
			raw += chunk.toString("utf8");
		});
		const text = "line\u2028separator\u2029paragraph";
		// JSON.stringify leaves both characters raw: the line holds them as they are.
		const line = `${JSON.stringify({ id: "p", type: "prompt", message: text })}\n`;
		expect(line).toContain("\u2028");
		const settled = client.next((event) => event.type === "agent_settled");
		const answer = client.next((event) => event.type === "response" && event.id === "p");
		client.child.stdin.write(line);
		expect(await answer).toMatchObject({ success: true, data: { disposition: "started" } });
		await settled;
		const messages = (await client.request({ id: "m", type: "get_messages" })).data as {
			messages: { role: string; content: unknown }[];
		};
		expect(messages.messages.filter((message) => message.role !== "system")).toMatchObject([
			{ role: "user", content: [{ type: "text", text }] },
			{ role: "assistant", content: [{ type: "text", text }] },
		]);
		expect(await client.end()).toBe(0);
		expect(responses(client).some((event) => event.command === "parse")).toBe(false);
		// No raw separator on stdout: a reader that splits on them still sees whole lines.
		expect(raw).not.toMatch(/[\u2028\u2029]/);
		expect(raw).toContain("\\u2028separator\\u2029");
		expect(raw.split(/\n|\u2028|\u2029/).filter(Boolean)).toHaveLength(client.lines.length);
	});
});

describe("pi#2645: RPC mode: stdin EOF races with in-flight prompts, exits before response", () => {
	it("pi#2645: settle --rpc: a prompt followed at once by the end of stdin is run to the end (a tool still waiting when stdin closed, then the answer, agent_settled) before the exit 0", async () => {
		const go = join(cli.dir, "eof-go");
		const script = join(cli.dir, "eof-script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ name: "bash", arguments: { command: `until [ -e '${go}' ]; do sleep 0.05; done; echo released` } },
					],
				},
				"hello after the tool",
			]),
		);
		const client = settle(["--faux-script", script, "--no-session"]);
		const toolStarted = client.next((line) => line.type === "tool_execution_start");
		client.child.stdin.end(`${JSON.stringify({ id: "p", type: "prompt", message: "say hello" })}\n`);
		// stdin has ended and the command is still waiting: only now may it finish.
		await toolStarted;
		writeFileSync(go, "");
		expect(await client.exited).toBe(0);
		const types = client.lines.map((line) => line.type);
		expect(types.slice(0, 2)).toEqual(["response", "agent_start"]);
		expect(types.slice(-2)).toEqual(["agent_end", "agent_settled"]);
		const end = client.lines.find((line) => line.type === "agent_end") as {
			messages: { role: string; content: unknown }[];
		};
		expect(end.messages.filter((message) => message.role !== "system")).toMatchObject([
			{ role: "user", content: [{ type: "text", text: "say hello" }] },
			{ role: "assistant", content: [{ type: "toolCall", name: "bash" }] },
			{ role: "toolResult", content: [{ type: "text", text: "released\n" }] },
			{ role: "assistant", content: [{ type: "text", text: "hello after the tool" }] },
		]);
		expect(client.stderr).toBe("");
	});
});

describe("pi#7860: EPIPE crash when a desktop host closes the stdout pipe", () => {
	it("pi#7860: settle --rpc: the host closes its read end of stdout, then sends a prompt: no EPIPE stack trace, the process ends with 141 (stdout closed)", async () => {
		const client = settle();
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		client.child.stdout.destroy();
		client.child.stdin.write(`${JSON.stringify({ id: "p", type: "prompt", message: "hi" })}\n`);
		expect(await client.exited).toBe(141);
		expect(client.stderr).toBe("");
	});
});
