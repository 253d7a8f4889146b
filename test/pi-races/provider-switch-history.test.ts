/**
 * Reports about replaying a session's history to another provider or model than the one that wrote
 * it, replayed against Settle over HTTP: pi-ai's own provider clients (OpenAI and Anthropic SDKs)
 * talk to a local server that answers as the provider does (`test/llm/wire`), through a whole
 * session from `createAgentSession`, its JSONL on disk.
 *
 * pi#5538: on an `anthropic-messages` provider (MiniMax, after a switch from Codex), a turn aborted
 * while its `write` tool call still streamed left the session stuck: every later request rejected.
 * What the user should see: the aborted turn stays in the file, the next request leaves it out (no
 * `tool_use` without its `tool_result`), the answer arrives, and the same holds once reopened.
 *
 * oh-my-pi#7372: a turn aborted mid-thinking, then a switch to another model: the new model got the
 * aborted turn's partial content and answered with empty stops. What the user should see: the new
 * model's request holds none of the aborted turn, and its answer arrives.
 *
 * pi#7067: a session switched from Qwen (OpenAI-compatible, `reasoning_content` thinking) to GPT on
 * the Responses API failed: Qwen's thinking blocks (signature `"reasoning_content"`) went to the
 * other API. What the user should see: no reasoning item of Qwen's reaches GPT, the thinking goes
 * as text, each tool call is paired with its result, and the answer arrives.
 *
 * paseo#1930: an image sent to a text-only model through pi was saved in the JSONL and replayed on
 * every later request and resume; the provider rejected each one and the session was bricked. What
 * the user should see: the text-only model gets a note in its place, never the image, on every
 * later request and after a resume, also once a vision model the session switched to has seen one.
 *
 * openclaw#19450: Claude's `redacted_thinking` blocks were dropped from the history, and Anthropic
 * refused every later request ("thinking or redacted_thinking blocks in the latest assistant message
 * cannot be modified"). What the user should see: the block replayed unchanged to its own model.
 *
 * openclaw#84430: a thinking block saved without its signature was replayed as thinking and every
 * request failed "Invalid signature in thinking block". Here with a real `settle -c` over a file as pi
 * writes it, and `settle -c --model <newer>` (resuming an old session on a newer model): what the
 * user should see is the answer, no unsigned or foreign-signed thinking block in the request.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	cliCommand,
	RpcClient,
	runSettleAsync,
	trackChild,
	useCliProject,
	writeLocalProvider,
} from "../cli/helpers.js";
import { PNG_1X1 } from "../export/helpers.js";
import { anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents, chatReply } from "../llm/wire/openai.js";
import { responsesReply } from "../llm/wire/responses.js";
import { type Reply, type SseEvent, sse, startWireServer, type WireServer } from "../llm/wire/server.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { type WireModelSpec, wireProjectsPerTest } from "./helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const wireProject = wireProjectsPerTest("settle-switch-history-", "high");

/** Prompts `text` and aborts once the streamed answer reaches an event of `type`; waits for the cut. */
async function abortAt(session: AgentSession, server: WireServer, text: string, type: string) {
	const reached = new Promise<void>((resolve) => {
		const off = session.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === type) {
				off();
				resolve();
			}
		});
	});
	const prompt = session.prompt(text);
	await reached;
	await session.abort();
	await prompt;
	await server.waitForClientClose(1);
}

/** The events of `events` up to and including the first one `cut` matches; the stream then hangs. */
function hangAfter(events: SseEvent[], cut: (event: SseEvent) => boolean) {
	const index = events.findIndex(cut);
	expect(index).toBeGreaterThan(0);
	return sse(events.slice(0, index + 1), "hang");
}

type SentBlock = { type: string; id?: string; tool_use_id?: string; text?: string };
type SentMessage = { role: string; content: SentBlock[] | string };
const anthropicBlocks = (server: WireServer, index: number) =>
	(server.requests[index]!.body.messages as SentMessage[]).flatMap((message) =>
		typeof message.content === "string" ? [] : message.content,
	);
const fileMessages = (path: string) =>
	readFileSync(path, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; stopReason?: string } })
		.filter((entry) => entry.type === "message")
		.map((entry) => entry.message!);

const MINIMAX: WireModelSpec = { api: "anthropic-messages", provider: "minimax", id: "MiniMax-M3" };
const CODEX: WireModelSpec = { api: "openai-responses", provider: "openai-codex", id: "gpt-wire-5" };
const QWEN: WireModelSpec = { api: "openai-completions", provider: "aliyun", id: "qwen-wire-max" };
const CLAUDE: WireModelSpec = { api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" };

describe("pi#5538: an anthropic-messages turn aborted while its tool call streams", () => {
	it("pi#5538: the next request leaves the aborted tool call out and is answered; so is the first request after reopening the file", async () => {
		const project = await wireProject([CODEX, MINIMAX]);
		const session = await project.open(CODEX);
		await session.setModel(project.model(MINIMAX));
		const write = {
			type: "tool_use" as const,
			id: "call_function_wr1te5538_1",
			name: "write",
			input: { path: "test.txt", content: "line\n".repeat(100) },
		};
		project.server.reply(
			hangAfter(
				anthropicEvents([{ type: "thinking", thinking: "Write 100 lines.", signature: "minimax_sig" }, write], {
					model: "MiniMax-M3",
					stopReason: "tool_use",
				}),
				(event) => (event.data as { delta?: { type?: string } }).delta?.type === "input_json_delta",
			),
			anthropicReply([{ type: "text", text: "Stopped; nothing written." }], { model: "MiniMax-M3" }),
			anthropicReply([{ type: "text", text: "Still here after reopening." }], { model: "MiniMax-M3" }),
		);
		await abortAt(session, project.server, "write a 100 line file using the write tool", "toolcall_delta");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });

		await session.prompt("what happened?");
		const after = anthropicBlocks(project.server, 1);
		expect(after.filter((block) => block.type === "tool_use" || block.type === "tool_result")).toEqual([]);
		expect(JSON.stringify(project.server.requests[1]!.body)).not.toContain("minimax_sig");
		expect(session.messages.at(-1)).toMatchObject({
			provider: "minimax",
			stopReason: "stop",
			content: [{ type: "text", text: "Stopped; nothing written." }],
		});
		const file = session.sessionManager.getSessionFile()!;
		const turns = fileMessages(file).filter((m) => m.role === "user" || m.role === "assistant");
		expect(turns.map((m) => `${m.role}:${m.stopReason ?? ""}`)).toEqual([
			"user:",
			"assistant:aborted",
			"user:",
			"assistant:stop",
		]);
		session.dispose();
		session.sessionManager.close();

		const reopened = await project.open(MINIMAX, SessionManager.open(file, join(project.dir, "sessions")));
		await reopened.prompt("and now?");
		expect(project.server.requests).toHaveLength(3);
		const resumed = anthropicBlocks(project.server, 2);
		expect(resumed.filter((block) => block.type === "tool_use" || block.type === "tool_result")).toEqual([]);
		expect(reopened.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Still here after reopening." }],
		});
	});
});

describe("oh-my-pi#7372: a turn aborted mid-thinking, then a switch to another model", () => {
	it("oh-my-pi#7372: the new model's request holds none of the aborted turn's content, and its answer arrives", async () => {
		const project = await wireProject([QWEN, CLAUDE]);
		const session = await project.open(QWEN);
		project.server.reply(
			// The reasoning streams in two deltas; the stream hangs after the first, where the abort comes.
			hangAfter(
				chatEvents([{ type: "reasoning", text: "PARTIAL-THOUGHT about the refactor plan" }], {
					model: "qwen-wire-max",
				}),
				(event) => JSON.stringify(event.data).includes("PARTIAL-THOUGHT"),
			),
			anthropicReply([{ type: "text", text: "Here is the plan." }]),
		);
		await abortAt(session, project.server, "plan the refactor", "thinking_delta");
		expect(session.messages.at(-1)).toMatchObject({ provider: "aliyun", stopReason: "aborted" });

		await session.setModel(project.model(CLAUDE));
		await session.prompt("continue, please");

		const sent = project.server.requests[1]!.body.messages as SentMessage[];
		expect(sent.filter((message) => message.role === "assistant")).toEqual([]);
		expect(JSON.stringify(sent)).not.toContain("PARTIAL-THOUGHT");
		expect(JSON.stringify(sent)).toContain("plan the refactor");
		expect(JSON.stringify(sent)).toContain("continue, please");
		expect(session.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "Here is the plan." }],
		});
	});
});

type ResponsesInput = { type?: string; role?: string; call_id?: string; content?: unknown; summary?: unknown };

describe("pi#7067: switching from Qwen (reasoning_content thinking) onto GPT on the Responses API", () => {
	it("pi#7067: no Qwen reasoning item reaches GPT, its thinking goes as text, the call and its result are paired, and the answer arrives", async () => {
		const project = await wireProject([QWEN, CODEX]);
		const session = await project.open(QWEN);
		project.server.reply(
			chatReply(
				[
					{ type: "reasoning", text: "QWEN-THOUGHT: check the folder first." },
					{ type: "tool_call", id: "call_qwen7067", name: "bash", arguments: { command: "echo 7067 > note.txt" } },
				],
				{ model: "qwen-wire-max", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "Wrote note.txt." }], { model: "qwen-wire-max" }),
			responsesReply([{ type: "message", text: "The note says 7067." }]),
		);
		await session.prompt("write a note");
		expect(readFileSync(join(project.dir, "note.txt"), "utf8")).toBe("7067\n");
		const thinking = session.messages
			.flatMap((message) => (message.role === "assistant" ? message.content : []))
			.find((block) => block.type === "thinking");
		expect(thinking).toMatchObject({ thinkingSignature: "reasoning_content" });

		await session.setModel(project.model(CODEX));
		await session.prompt("what does the note say?");

		expect(project.server.requests).toHaveLength(3);
		const input = project.server.requests[2]!.body.input as ResponsesInput[];
		expect(input.filter((item) => item.type === "reasoning")).toEqual([]);
		expect(JSON.stringify(input)).not.toContain('"reasoning_content"');
		expect(JSON.stringify(input)).toContain("QWEN-THOUGHT: check the folder first.");
		const calls = input.filter((item) => item.type === "function_call");
		const outputs = input.filter((item) => item.type === "function_call_output");
		expect(calls).toHaveLength(1);
		expect(outputs).toEqual([expect.objectContaining({ call_id: calls[0]!.call_id })]);
		expect(session.messages.at(-1)).toMatchObject({
			provider: "openai-codex",
			stopReason: "stop",
			content: [{ type: "text", text: "The note says 7067." }],
		});
	});
});

/** A text-only model and a vision model, both on the Chat Completions wire. */
const GLM: WireModelSpec = { api: "openai-completions", provider: "devin", id: "glm-wire-text" };
const VISION: WireModelSpec = {
	api: "openai-completions",
	provider: "openai",
	id: "gpt-wire-vision",
	input: ["text", "image"],
};

describe("paseo#1930: an image sent to a text-only model, saved and replayed", () => {
	it("paseo#1930: the text-only model never gets the image (not on later requests, not after reopening, not after a vision model saw it); each answer arrives", async () => {
		const project = await wireProject([GLM, VISION]);
		const session = await project.open(GLM);
		const text = (reply: string, model: string) => chatReply([{ type: "text", text: reply }], { model });
		project.server.reply(
			text("I cannot see images.", "glm-wire-text"),
			text("Text only, still fine.", "glm-wire-text"),
			text("Reopened fine.", "glm-wire-text"),
			text("A one-pixel PNG.", "gpt-wire-vision"),
			text("Back on text, still fine.", "glm-wire-text"),
		);
		const screenshot = { type: "image" as const, data: PNG_1X1, mimeType: "image/png" };
		await session.prompt("what is in this screenshot?", { images: [screenshot] });
		await session.prompt("and without the image?");
		const hint = "[Image 1 omitted: the model devin/glm-wire-text does not accept images.]";
		for (const request of project.server.requests) {
			expect(JSON.stringify(request.body)).not.toContain("image_url");
			expect(JSON.stringify(request.body)).toContain(hint);
		}
		// Settle drops the image when the prompt is made, so the file cannot replay it; the hint stays.
		const file = session.sessionManager.getSessionFile()!;
		expect(readFileSync(file, "utf8")).not.toContain(PNG_1X1);
		expect(readFileSync(file, "utf8")).toContain(hint);
		session.dispose();
		session.sessionManager.close();

		const reopened = await project.open(GLM, SessionManager.open(file, join(project.dir, "sessions")));
		await reopened.prompt("still there?");
		expect(JSON.stringify(project.server.requests[2]!.body)).not.toContain("image_url");
		expect(reopened.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Reopened fine." }],
		});

		await reopened.setModel(project.model(VISION));
		await reopened.prompt("now look at it", { images: [screenshot] });
		expect(JSON.stringify(project.server.requests[3]!.body)).toContain(`data:image/png;base64,${PNG_1X1}`);
		expect(readFileSync(file, "utf8")).toContain(PNG_1X1);

		await reopened.setModel(project.model(GLM));
		await reopened.prompt("summarize what you saw");
		expect(project.server.requests).toHaveLength(5);
		expect(JSON.stringify(project.server.requests[4]!.body)).not.toContain("image_url");
		expect(JSON.stringify(project.server.requests[4]!.body)).not.toContain(PNG_1X1);
		expect(reopened.messages.at(-1)).toMatchObject({
			provider: "devin",
			stopReason: "stop",
			content: [{ type: "text", text: "Back on text, still fine." }],
		});
	});
});

/** `reply`, held back until `release()` is called: the run stays streaming until then. */
function heldReply(reply: Reply): { reply: Reply; release: () => void } {
	let release!: () => void;
	const released = new Promise<void>((resolve) => {
		release = resolve;
	});
	return { reply: (request, res, req) => void released.then(() => reply(request, res, req)), release };
}

describe("paseo#1930: an image queued with a steer, then a model switch before it is sent", () => {
	const screenshot = { type: "image" as const, data: PNG_1X1, mimeType: "image/png" };
	const text = (reply: string, model: string) => chatReply([{ type: "text", text: reply }], { model });

	/** Opens on `from`, steers `screenshot` while the first answer streams, switches to `to`; returns what the steer's request held. */
	async function steerImageThenSwitch(from: WireModelSpec, to: WireModelSpec, images = [screenshot]) {
		const project = await wireProject([GLM, VISION]);
		const session = await project.open(from);
		const first = heldReply(text("Working on it.", from.id));
		project.server.reply(first.reply, text("Got your message.", to.id));
		const prompt = session.prompt("start");
		await project.server.waitForRequests(1);
		await session.steer("what is in this screenshot?", images);
		await session.setModel(project.model(to));
		first.release();
		await prompt;
		expect(project.server.requests).toHaveLength(2);
		expect(session.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Got your message." }],
		});
		return {
			request: JSON.stringify(project.server.requests[1]!.body),
			file: readFileSync(session.sessionManager.getSessionFile()!, "utf8"),
		};
	}

	it("paseo#1930: steered on a vision model, sent after a switch to a text-only one: the text-only model gets the hint, never the image, and the file holds none", async () => {
		const { request, file } = await steerImageThenSwitch(VISION, GLM);
		const hint = "[Image 1 omitted: the model devin/glm-wire-text does not accept images.]";
		expect(request).not.toContain("image_url");
		expect(request).toContain(hint);
		expect(file).not.toContain(PNG_1X1);
		expect(file).toContain(hint);
	});

	it("paseo#1930: steered on a text-only model, sent after a switch to a vision one: the vision model gets the images, a 300×2400 one resized", async () => {
		const tall = {
			type: "image" as const,
			data: encodeImage("png", 300, 2400).toString("base64"),
			mimeType: "image/png",
		};
		const { request, file } = await steerImageThenSwitch(GLM, VISION, [screenshot, tall]);
		expect(request).toContain(`data:image/png;base64,${PNG_1X1}`);
		// Resized when it was queued, though the model then took no images: the vision model gets the fitted copy.
		expect(request).toContain("[Image: original 300x2400, displayed at 250x2000.");
		expect(request).not.toContain(tall.data);
		expect(request).not.toContain("omitted");
		expect(file).toContain(PNG_1X1);
	});
});

describe("paseo#1930: settle --rpc: an image steered on a text-only model, then set_model to a vision model", () => {
	const cli = useCliProject("settle-switch-history-rpc-");

	it("paseo#1930: settle --rpc: the steer's image reaches the vision model it is sent to after set_model", async () => {
		const server = await startWireServer();
		cleanups.push(() => server.close());
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "text-only" }, { id: "vision", input: ["text", "image"] }],
		});
		const first = heldReply(chatReply([{ type: "text", text: "Working on it." }], { model: "text-only" }));
		server.reply(first.reply, chatReply([{ type: "text", text: "A one-pixel PNG." }], { model: "vision" }));
		const client = new RpcClient(["--model", "local/text-only", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p1", type: "prompt", message: "start" })).toMatchObject({ success: true });
		await server.waitForRequests(1);
		const image = { type: "image", data: PNG_1X1, mimeType: "image/png" };
		const steer = { id: "s1", type: "steer", message: "what is in this screenshot?", images: [image] };
		expect(await client.request(steer)).toMatchObject({ success: true });
		const switched = await client.request({ id: "m1", type: "set_model", provider: "local", modelId: "vision" });
		expect(switched).toMatchObject({ success: true });
		first.release();
		await settled;
		expect(server.requests).toHaveLength(2);
		expect(server.requests[1]!.body.model).toBe("vision");
		const sent = JSON.stringify(server.requests[1]!.body.messages);
		expect(sent).toContain(`data:image/png;base64,${PNG_1X1}`);
		expect(sent).not.toContain("omitted");
		client.child.stdin.end();
		expect(await client.exited).toBe(0);
	});
});

describe("settle -c --model <other>, interrupted before the first answer", () => {
	const cli = useCliProject("settle-switch-history-continue-");

	it("settle -c --model local/new, Ctrl+C while the first answer streams: the file records the model chosen before the question, and the next settle -c asks local/new", async () => {
		const server = await startWireServer();
		cleanups.push(() => server.close());
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "old" }, { id: "new" }] });
		const sessionDir = join(cli.dir, "sessions");
		const run = (args: string[]) =>
			runSettleAsync(["--session-dir", sessionDir, ...args], { cwd: cli.project, agentDir: cli.agentDir });
		server.reply(
			chatReply([{ type: "text", text: "first answer" }], { model: "old" }),
			sse(chatEvents([{ type: "text", text: "never finished" }], { model: "new" }).slice(0, 2), "hang"),
			chatReply([{ type: "text", text: "third answer" }], { model: "new" }),
		);
		expect((await run(["--model", "local/old", "-p", "first"])).stdout).toBe("first answer\n");

		const child = spawn(
			process.execPath,
			[...cliCommand(), "--session-dir", sessionDir, "-c", "--model", "local/new", "-p", "second"],
			{
				cwd: cli.project,
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				stdio: ["ignore", "pipe", "pipe"],
			},
		);
		const closed = trackChild(child);
		await server.waitForRequests(2);
		expect(server.requests[1]!.body.model).toBe("new");
		child.kill("SIGINT");
		await closed;
		const [file] = readdirSync(sessionDir, { recursive: true }).filter((name) => String(name).endsWith(".jsonl"));
		const entries = readFileSync(join(sessionDir, String(file)), "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; modelId?: string; message?: { role: string } });
		const second = entries.findIndex((entry) => entry.type === "message" && JSON.stringify(entry).includes('"second"'));
		expect(second).toBeGreaterThan(0);
		const modelsBefore = entries.slice(0, second).filter((entry) => entry.type === "model_change");
		expect(modelsBefore.map((entry) => entry.modelId)).toEqual(["old", "new"]);

		expect((await run(["-c", "-p", "third"])).stdout).toBe("third answer\n");
		expect(server.requests[2]!.body.model).toBe("new");
	});
});

describe("createAgentSession's model on a resumed session recording another model", () => {
	it("SDK model: a session resumed with model devin/glm over a file recording aliyun/qwen runs on glm; the file records glm before the turn (not at opening, not again when unchanged), and a later resume without a model asks glm", async () => {
		const project = await wireProject([QWEN, GLM]);
		project.server.reply(
			chatReply([{ type: "text", text: "from qwen" }]),
			chatReply([{ type: "text", text: "from glm" }]),
			chatReply([{ type: "text", text: "glm again" }]),
			chatReply([{ type: "text", text: "glm resumed" }]),
		);
		const first = await project.open(QWEN);
		await first.prompt("one");
		const file = first.sessionFile!;
		first.dispose();
		first.sessionManager.close();
		const resume = (spec: WireModelSpec | undefined) =>
			project.open(spec, SessionManager.open(file, join(project.dir, "sessions")));
		const modelChanges = () =>
			readFileSync(file, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as { type: string; provider?: string; modelId?: string })
				.filter((entry) => entry.type === "model_change")
				.map((entry) => `${entry.provider}/${entry.modelId}`);

		const before = readFileSync(file, "utf8");
		const onGlm = await resume(GLM);
		expect(onGlm.model?.id).toBe(GLM.id);
		// Opening alone does not rewrite the file (oh-my-pi#528).
		expect(readFileSync(file, "utf8")).toBe(before);
		await onGlm.prompt("two");
		onGlm.dispose();
		onGlm.sessionManager.close();
		expect(modelChanges()).toEqual(["aliyun/qwen-wire-max", "devin/glm-wire-text"]);

		// The same model again: nothing to record.
		const sameAgain = await resume(GLM);
		await sameAgain.prompt("three");
		sameAgain.dispose();
		sameAgain.sessionManager.close();
		expect(modelChanges()).toEqual(["aliyun/qwen-wire-max", "devin/glm-wire-text"]);

		const later = await resume(undefined);
		expect(later.model?.id).toBe(GLM.id);
		await later.prompt("four");
		later.dispose();
		later.sessionManager.close();
		expect(project.server.requests.map((request) => request.body.model)).toEqual([QWEN.id, GLM.id, GLM.id, GLM.id]);
	});

	it("SDK model: compact() on a compacted session resumed with another model says it is already compacted and asks the model nothing (the host's model is no new activity)", async () => {
		const project = await wireProject([QWEN, GLM]);
		project.server.reply(chatReply([{ type: "text", text: "from qwen" }]));
		const first = await project.open(QWEN);
		await first.prompt("one");
		const file = first.sessionFile!;
		first.sessionManager.appendCompaction("We said one.", first.sessionManager.getLeafId()!, 100, {
			readFiles: [],
			modifiedFiles: [],
		});
		first.dispose();
		first.sessionManager.close();
		const before = readFileSync(file, "utf8");

		const onGlm = await project.open(GLM, SessionManager.open(file, join(project.dir, "sessions")));
		await expect(onGlm.compact()).rejects.toThrow("Already compacted");
		expect(project.server.requests).toHaveLength(1);
		onGlm.dispose();
		onGlm.sessionManager.close();
		expect(readFileSync(file, "utf8")).toBe(before);
	});
});

/** An Anthropic answer opening with a `redacted_thinking` block (opaque `data`), then `text`. */
function redactedReply(data: string, text: string) {
	const events = anthropicEvents([{ type: "text", text }]).map((event) => {
		const payload = event.data as { index?: number };
		return typeof payload.index === "number" ? { ...event, data: { ...payload, index: payload.index + 1 } } : event;
	});
	const redacted: SseEvent[] = [
		{
			event: "content_block_start",
			data: { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data } },
		},
		{ event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
	];
	// After message_start and ping.
	return sse([...events.slice(0, 2), ...redacted, ...events.slice(2)]);
}

describe("openclaw#19450: Claude's redacted_thinking blocks in the history", () => {
	it("openclaw#19450: replayed to Claude unchanged (live and after reopening the file); left out for another model; each answer arrives", async () => {
		const OPUS: WireModelSpec = { api: "anthropic-messages", provider: "anthropic", id: "claude-wire-opus" };
		const project = await wireProject([CLAUDE, OPUS]);
		const session = await project.open(CLAUDE);
		const data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj+hEw==";
		project.server.reply(
			redactedReply(data, "Done thinking."),
			anthropicReply([{ type: "text", text: "Second answer." }]),
			anthropicReply([{ type: "text", text: "Reopened answer." }]),
			anthropicReply([{ type: "text", text: "Opus answer." }], { model: "claude-wire-opus" }),
		);
		await session.prompt("think hard, then answer");
		expect(session.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "thinking", redacted: true, thinkingSignature: data }, { type: "text" }],
		});
		const redactedBlock = { type: "redacted_thinking", data };

		await session.prompt("and then?");
		expect(anthropicBlocks(project.server, 1)).toContainEqual(redactedBlock);
		const file = session.sessionManager.getSessionFile()!;
		session.dispose();
		session.sessionManager.close();

		const reopened = await project.open(CLAUDE, SessionManager.open(file, join(project.dir, "sessions")));
		await reopened.prompt("after reopening?");
		const resumed = anthropicBlocks(project.server, 2);
		expect(resumed).toContainEqual(redactedBlock);
		expect(JSON.stringify(resumed)).not.toContain("[Reasoning redacted]");
		expect(reopened.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Reopened answer." }],
		});

		await reopened.setModel(project.model(OPUS));
		await reopened.prompt("on the other model?");
		const switched = JSON.stringify(project.server.requests[3]!.body);
		expect(switched).not.toContain(data);
		expect(switched).not.toContain("redacted_thinking");
		expect(switched).not.toContain("[Reasoning redacted]");
		expect(switched).toContain("Done thinking.");
		expect(reopened.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			model: "claude-wire-opus",
			stopReason: "stop",
		});
	});
});

describe("openclaw#84430: a saved session with a thinking block that has no signature, continued by `settle -c` (and on a newer model)", () => {
	const cli = useCliProject("settle-switch-history-cli-");
	let server: WireServer;
	beforeEach(async () => {
		server = await startWireServer();
	});
	afterEach(async () => {
		await server.close();
	});

	/** A session file as pi writes it, on `local/claude-old`: an unsigned thinking block, then a signed one. */
	function writeOldSession(sessionDir: string) {
		mkdirSync(sessionDir, { recursive: true });
		const at = "2026-06-01T10:00:00.000Z";
		const usage = {
			input: 10,
			output: 5,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 15,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		const assistant = (thinking: string, signature: string, text: string) => ({
			role: "assistant",
			content: [
				{ type: "thinking", thinking, thinkingSignature: signature },
				{ type: "text", text },
			],
			api: "anthropic-messages",
			provider: "local",
			model: "claude-old",
			usage,
			stopReason: "stop",
			timestamp: 1_780_000_000_000,
		});
		const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1_780_000_000_000 });
		const entries = [
			{
				type: "session",
				version: 3,
				id: "0199f000-0000-7000-8000-000000084430",
				timestamp: at,
				cwd: realpathSync(cli.project),
			},
			{ type: "model_change", id: "e1", parentId: null, timestamp: at, provider: "local", modelId: "claude-old" },
			{ type: "thinking_level_change", id: "e2", parentId: "e1", timestamp: at, thinkingLevel: "high" },
			{ type: "message", id: "e3", parentId: "e2", timestamp: at, message: user("which is larger, 9.11 or 9.9?") },
			{
				type: "message",
				id: "e4",
				parentId: "e3",
				timestamp: at,
				message: assistant("UNSIGNED-THOUGHT: compare digit by digit.", "", "9.9 is larger."),
			},
			{ type: "message", id: "e5", parentId: "e4", timestamp: at, message: user("are you sure?") },
			{
				type: "message",
				id: "e6",
				parentId: "e5",
				timestamp: at,
				message: assistant("SIGNED-THOUGHT: yes.", "old_model_sig", "Yes."),
			},
		];
		const file = join(sessionDir, "2026-06-01T10-00-00-000Z_0199f000-0000-7000-8000-000000084430.jsonl");
		writeFileSync(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
		return file;
	}

	const models = {
		api: "anthropic-messages",
		models: [
			{ id: "claude-old", reasoning: true },
			{ id: "claude-new", reasoning: true },
		],
	};
	const sentAssistantContent = (index: number) =>
		(server.requests[index]!.body.messages as SentMessage[])
			.filter((message) => message.role === "assistant")
			.map((message) => message.content);

	it("openclaw#84430: `settle -c` sends the unsigned thinking as text, the signed one to its own model with its signature; the answer is printed", async () => {
		writeLocalProvider(cli.agentDir, server.url, models);
		const sessionDir = join(cli.dir, "sessions");
		writeOldSession(sessionDir);
		server.reply(anthropicReply([{ type: "text", text: "Still 9.9." }], { model: "claude-old" }));

		const run = await runSettleAsync(["--session-dir", sessionDir, "-c", "-p", "once more"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Still 9.9.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]!.body.model).toBe("claude-old");
		expect(sentAssistantContent(0)).toEqual([
			[
				{ type: "text", text: "UNSIGNED-THOUGHT: compare digit by digit." },
				{ type: "text", text: "9.9 is larger." },
			],
			[
				{ type: "thinking", thinking: "SIGNED-THOUGHT: yes.", signature: "old_model_sig" },
				{ type: "text", text: "Yes." },
			],
		]);
	});

	it("openclaw#84430: `settle -c --model <newer>` sends no thinking block and no old signature, both thoughts as text; the answer is printed and the next `-c` stays on the newer model", async () => {
		writeLocalProvider(cli.agentDir, server.url, models);
		const sessionDir = join(cli.dir, "sessions");
		const file = writeOldSession(sessionDir);
		server.reply(anthropicReply([{ type: "text", text: "New model: 9.9." }], { model: "claude-new" }));

		const run = await runSettleAsync(
			["--session-dir", sessionDir, "-c", "--model", "local/claude-new", "-p", "once more"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.stdout).toBe("New model: 9.9.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]!.body.model).toBe("claude-new");
		expect(JSON.stringify(server.requests[0]!.body)).not.toContain("old_model_sig");
		expect(sentAssistantContent(0)).toEqual([
			[
				{ type: "text", text: "UNSIGNED-THOUGHT: compare digit by digit." },
				{ type: "text", text: "9.9 is larger." },
			],
			[
				{ type: "text", text: "SIGNED-THOUGHT: yes." },
				{ type: "text", text: "Yes." },
			],
		]);
		const saved = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		// Unlike pi 0.73.1, which writes none for a resumed session, `-c --model` is recorded as a
		// model_change before the turn (README, "Coming from pi"); the answer records the model too,
		// and the next `-c` continues on it.
		expect(saved.filter((entry) => entry.type === "model_change").map((entry) => entry.modelId)).toEqual([
			"claude-old",
			"claude-new",
		]);
		expect(saved.at(-1)).toMatchObject({ type: "message", message: { role: "assistant", model: "claude-new" } });
		server.reply(anthropicReply([{ type: "text", text: "Still the new model." }], { model: "claude-new" }));
		const again = await runSettleAsync(["--session-dir", sessionDir, "-c", "-p", "and again"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(again.stdout).toBe("Still the new model.\n");
		expect(server.requests[1]!.body.model).toBe("claude-new");
	});
});
