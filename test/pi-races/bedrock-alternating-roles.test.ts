/**
 * Portkey-AI/gateway#748, dify#9294, cline#431: Bedrock's Converse API refuses a request holding
 * two user (or two assistant) messages in a row, "A conversation must alternate between user and
 * assistant roles", and once the history holds such a pair, every later request of the session.
 * pi-ai 0.73.1 builds such requests from ordinary sessions: an answer stopped (Esc) or failed
 * before any text is left out, so the prompts around it meet; an answer with no content is left
 * out too; tool results go as a user message and a steer delivered after them as another; a
 * compaction summary and an extension's message go as user messages before the next prompt.
 *
 * OpenHands#5339, OpenHands#5722: Bedrock refuses a blank text block, "The text field in the
 * ContentBlock object at messages.28.content.1 is blank"; pi-ai sends an extension's message with
 * empty text and a tool's empty output as they are.
 *
 * pydantic-ai#6115, strands-agents/harness-sdk#2122: some Bedrock models (Nemotron) refuse a tool
 * result with no content at all, `toolResult.content: []`, which is how pi-ai sends a tool that
 * returned no content (Settle saves it as `content: []`).
 *
 * Switchyard#502, Cyber-AutoAgent-ng#27: a model that numbers its calls anew in every answer (Grok:
 * `call_0` each time), then Claude on Bedrock: "`tool_use` ids must be unique" on every request
 * (one message's: "The toolUse blocks at messages.2.content contain duplicate Ids"); pi-ai 0.73.1
 * fits Bedrock's ids to its pattern and length, never makes them unique.
 *
 * Each session file is continued with a real `settle --session <file> -p` on a local Bedrock
 * runtime endpoint (the AWS SDK pi-ai uses, over HTTP/2) that refuses as Bedrock does. What the
 * user should see: the answer; the request holds every message, roles alternating; the file keeps
 * its messages as they were.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import {
	type BedrockReply,
	type BedrockServer,
	bedrockAnswer,
	bedrockError,
	startBedrockServer,
} from "../llm/wire/bedrock.js";

const cli = useCliProject("settle-bedrock-alternating-");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

type SentMessage = { role: string; content: Record<string, unknown>[] };

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
/** A Bedrock model that refuses a tool result with no content (strands-agents/harness-sdk#2122). */
const NEMOTRON = "nvidia.nemotron-nano-3-30b";
const CALL_ID = "toolu_01A09q90qw90lq917835lq9";

/** Bedrock's own checks on the messages: the first is the user's, roles alternate. */
function strictly(bedrock: BedrockServer, answer: BedrockReply): BedrockReply {
	return (res) => {
		const messages = bedrock.requests.at(-1)!.body.messages as SentMessage[];
		const alternates = messages.every((message, i) => message.role === (i % 2 === 0 ? "user" : "assistant"));
		const blank = blankTextAt(messages);
		const empty = emptyToolResultAt(messages);
		const contentless = messages.findIndex((message) => message.content.every((block) => "cachePoint" in block));
		const repeated = repeatedToolUseId(messages);
		if (repeated) return bedrockError(400, "ValidationException", repeated)(res);
		if (contentless >= 0) {
			return bedrockError(
				400,
				"ValidationException",
				`The content field in the Message object at messages.${contentless} is empty. Add a ContentBlock object to the content field and try again.`,
			)(res);
		}
		if (empty) {
			return bedrockError(
				400,
				"ValidationException",
				`1 validation error detected: Value at '${empty}' failed to satisfy constraint: Member must have length greater than or equal to 1`,
			)(res);
		}
		if (blank) {
			return bedrockError(
				400,
				"ValidationException",
				`The text field in the ContentBlock object at ${blank} is blank. Add text to the text field, and try again.`,
			)(res);
		}
		if (!alternates) {
			return bedrockError(
				400,
				"ValidationException",
				"A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
			)(res);
		}
		answer(res);
	};
}

/**
 * Bedrock's refusal of a `toolUseId` used twice: within one message its own ("contain duplicate
 * Ids"), across the request Claude's (the Anthropic models' rule, passed through).
 */
function repeatedToolUseId(messages: SentMessage[]): string | undefined {
	const seen = new Set<string>();
	for (const [m, message] of messages.entries()) {
		const ids = message.content.flatMap((block) => {
			const use = block.toolUse as { toolUseId: string } | undefined;
			return use ? [use.toolUseId] : [];
		});
		const twice = ids.find((id, i) => ids.indexOf(id) !== i);
		if (twice) return `The toolUse blocks at messages.${m}.content contain duplicate Ids: ${twice}`;
		const earlier = ids.find((id) => seen.has(id));
		if (earlier) return `messages.${m}.content: \`tool_use\` ids must be unique`;
		for (const id of ids) seen.add(id);
	}
	return undefined;
}

/** Where a text block holds only blanks, at the top of a message or in a tool result. */
function blankTextAt(messages: SentMessage[]): string | undefined {
	const blank = (block: Record<string, unknown>) => typeof block.text === "string" && block.text.trim() === "";
	for (const [m, message] of messages.entries()) {
		for (const [c, block] of message.content.entries()) {
			if (blank(block)) return `messages.${m}.content.${c}`;
			const result = block.toolResult as { content?: Record<string, unknown>[] } | undefined;
			const inner = result?.content?.findIndex(blank) ?? -1;
			if (inner >= 0) return `messages.${m}.content.${c}.toolResult.content.${inner}`;
		}
	}
	return undefined;
}

/** Where a tool result holds no content block at all. */
function emptyToolResultAt(messages: SentMessage[]): string | undefined {
	for (const [m, message] of messages.entries()) {
		for (const [c, block] of message.content.entries()) {
			const result = block.toolResult as { content?: unknown[] } | undefined;
			if (result && result.content?.length === 0) return `messages.${m}.member.content.${c}.member.toolResult.content`;
		}
	}
	return undefined;
}

function assistant(
	content: AssistantMessage["content"],
	stopReason: AssistantMessage["stopReason"],
	model: string = MODEL,
) {
	const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	return {
		role: "assistant" as const,
		api: "bedrock-converse-stream" as const,
		provider: "amazon-bedrock",
		model,
		usage: { ...usage, cost },
		timestamp: 2,
		content,
		stopReason,
	};
}

async function continueOnBedrock(
	file: string,
	prompt: string,
	answer: string,
	model: string = MODEL,
	{ refusals = 0, extension, answers = 1 }: { refusals?: number; extension?: string; answers?: number } = {},
) {
	const bedrock = await startBedrockServer();
	cleanups.push(() => bedrock.close());
	const busy = bedrockError(503, "ServiceUnavailableException", "Bedrock is unable to process your request.");
	const answered = Array.from({ length: answers }, () => strictly(bedrock, bedrockAnswer(answer)));
	bedrock.reply(...Array.from({ length: refusals }, () => busy), ...answered);
	const awsCleared = Object.fromEntries(
		Object.keys(process.env)
			.filter((name) => name.startsWith("AWS_"))
			.map((name) => [name, undefined]),
	);
	const args = ["--session", file, "--model", `amazon-bedrock/${model}`, ...(extension ? ["-e", extension] : [])];
	const run = await runSettleAsync([...args, "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: {
			...awsCleared,
			HOME: cli.dir,
			AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
			AWS_ACCESS_KEY_ID: "AKIAOK",
			AWS_SECRET_ACCESS_KEY: "fake",
			AWS_REGION: "us-west-2",
		},
	});
	const sent = bedrock.requests.at(-1)?.body.messages as SentMessage[] | undefined;
	return { run, sent: sent ?? [], requests: bedrock.requests };
}

function sessionManager(): SessionManager {
	return SessionManager.create(cli.project, join(cli.dir, "sessions"));
}

function roles(sent: SentMessage[]): string[] {
	return sent.map((message) => message.role);
}

describe("Portkey-AI/gateway#748: two user messages in a row on Bedrock", () => {
	it("Portkey-AI/gateway#748: an answer stopped (Esc) before any text, then `settle --session <file> -p` on Bedrock: the answer arrives; both prompts go, in order, in one user message", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "write a long text about rivers", timestamp: 1 });
		sm.appendMessage(assistant([], "aborted"));
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");

		const { run, sent } = await continueOnBedrock(file, "what did I ask for?", "You asked for a long text.");
		expect(run.stderr).not.toContain("must alternate");
		expect(run.stdout).toContain("You asked for a long text.");
		expect(run.code).toBe(0);
		expect(roles(sent)).toEqual(["user"]);
		const prompt = JSON.stringify(sent[0]!.content);
		expect(prompt.indexOf("write a long text about rivers")).toBeGreaterThanOrEqual(0);
		expect(prompt.indexOf("write a long text about rivers")).toBeLessThan(prompt.indexOf("what did I ask for?"));
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});

	it("Portkey-AI/gateway#748: an earlier answer of blank text only (nothing pi-ai sends): the next prompt is answered on Bedrock, roles alternating", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "hello", timestamp: 1 });
		sm.appendMessage(assistant([{ type: "text", text: "  " }], "stop"));
		const file = sm.getSessionFile()!;
		sm.close();

		const { run, sent } = await continueOnBedrock(file, "are you there?", "Yes, here.");
		expect(run.stdout).toContain("Yes, here.");
		expect(run.code).toBe(0);
		expect(roles(sent)).toEqual(["user"]);
		expect(JSON.stringify(sent)).toContain("hello");
		expect(JSON.stringify(sent)).toContain("are you there?");
	});
});

describe("dify#9294, cline#431: tool results, summaries and extension messages before the next words on Bedrock", () => {
	it("cline#431: a steer delivered after a `bash` result, answered; then `settle --session <file> -p` on Bedrock: the answer arrives; the result and the steer go in one user message, the result first", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "which node version is installed?", timestamp: 1 });
		sm.appendMessage(
			assistant([{ type: "toolCall", id: CALL_ID, name: "bash", arguments: { command: "node --version" } }], "toolUse"),
		);
		sm.appendMessage({
			role: "toolResult",
			toolCallId: CALL_ID,
			toolName: "bash",
			content: [{ type: "text", text: "v22.11.0" }],
			isError: false,
			timestamp: 3,
		});
		sm.appendMessage({ role: "user", content: "also check npm", timestamp: 4 });
		sm.appendMessage(assistant([{ type: "text", text: "Node v22.11.0; npm next." }], "stop"));
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");

		const { run, sent } = await continueOnBedrock(file, "thanks, summarize", "Node v22.11.0.");
		expect(run.stderr).not.toContain("must alternate");
		expect(run.stdout).toContain("Node v22.11.0.");
		expect(run.code).toBe(0);
		expect(roles(sent)).toEqual(["user", "assistant", "user", "assistant", "user"]);
		expect(sent[2]!.content.map((block) => Object.keys(block)[0])).toEqual(["toolResult", "text"]);
		expect(JSON.stringify(sent[2]!.content)).toContain("also check npm");
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});

	it("dify#9294: a compaction summary, its kept prompt and an extension's message before the next prompt: the answer arrives on Bedrock, all of them on the user's side in order", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "old question", timestamp: 1 });
		sm.appendMessage(assistant([{ type: "text", text: "old answer" }], "stop"));
		const kept = sm.appendMessage({ role: "user", content: "kept question", timestamp: 3 });
		sm.appendMessage(assistant([{ type: "text", text: "kept answer" }], "stop"));
		sm.appendCompaction("We talked about rivers.", kept, 1000);
		sm.appendCustomMessageEntry("reminder", "Run the tests before answering.", false);
		const file = sm.getSessionFile()!;
		sm.close();

		const { run, sent } = await continueOnBedrock(file, "next step?", "Run the tests.");
		expect(run.stdout).toContain("Run the tests.");
		expect(run.code).toBe(0);
		expect(roles(sent)).toEqual(["user", "assistant", "user"]);
		const first = JSON.stringify(sent[0]!.content);
		expect(first.indexOf("We talked about rivers.")).toBeLessThan(first.indexOf("kept question"));
		const last = JSON.stringify(sent[2]!.content);
		expect(last.indexOf("Run the tests before answering.")).toBeLessThan(last.indexOf("next step?"));
	});
});

describe("OpenHands#5339, OpenHands#5722, pydantic-ai#6115: a blank text block or an empty tool result on Bedrock", () => {
	it("OpenHands#5339: an extension's message with empty text before the prompt: the answer arrives on Bedrock; no blank text block goes, the prompt does", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "hello", timestamp: 1 });
		sm.appendMessage(assistant([{ type: "text", text: "Hi." }], "stop"));
		sm.appendCustomMessageEntry("status", "", true);
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");

		const { run, sent } = await continueOnBedrock(file, "what next?", "Tests next.");
		expect(run.stderr).not.toContain("is blank");
		expect(run.stdout).toContain("Tests next.");
		expect(run.code).toBe(0);
		expect(roles(sent)).toEqual(["user", "assistant", "user"]);
		expect(JSON.stringify(sent[2]!.content)).toContain("what next?");
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});

	it("OpenHands#5722: a tool that returned empty text: the answer arrives on Bedrock; the result goes paired with its call, saying it was empty", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "clear the cache", timestamp: 1 });
		sm.appendMessage(assistant([{ type: "toolCall", id: CALL_ID, name: "clear_cache", arguments: {} }], "toolUse"));
		sm.appendMessage({
			role: "toolResult",
			toolCallId: CALL_ID,
			toolName: "clear_cache",
			content: [{ type: "text", text: "" }],
			isError: false,
			timestamp: 3,
		});
		sm.appendMessage(assistant([{ type: "text", text: "Cleared." }], "stop"));
		const file = sm.getSessionFile()!;
		sm.close();

		const { run, sent } = await continueOnBedrock(file, "did it print anything?", "It printed nothing.");
		expect(run.stderr).not.toContain("is blank");
		expect(run.stdout).toContain("It printed nothing.");
		expect(run.code).toBe(0);
		expect(sent[2]!.content).toEqual([
			{ toolResult: { toolUseId: CALL_ID, content: [{ text: "(no output)" }], status: "success" } },
		]);
	});
	it("pydantic-ai#6115: a tool that returned no content at all, on a Bedrock model that refuses an empty result (Nemotron): the answer arrives; the result goes paired with its call, saying it was empty", async () => {
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "list the tables", timestamp: 1 });
		sm.appendMessage(
			assistant([{ type: "toolCall", id: CALL_ID, name: "list_tables", arguments: {} }], "toolUse", NEMOTRON),
		);
		sm.appendMessage({
			role: "toolResult",
			toolCallId: CALL_ID,
			toolName: "list_tables",
			content: [],
			isError: false,
			timestamp: 3,
		});
		sm.appendMessage(assistant([{ type: "text", text: "No tables." }], "stop", NEMOTRON));
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");

		const { run, sent } = await continueOnBedrock(file, "are you sure?", "Yes, none.", NEMOTRON);
		expect(run.stderr).not.toContain("validation error");
		expect(run.stdout).toContain("Yes, none.");
		expect(run.code).toBe(0);
		expect(sent[2]!.content).toEqual([
			{ toolResult: { toolUseId: CALL_ID, content: [{ text: "(no output)" }], status: "success" } },
		]);
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});
});

/** Logs the roles each `before_provider_request` sees, and marks the payload (its edit must reach Bedrock). */
const ROLES_LOGGER = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("before_provider_request", (event) => {
		appendFileSync(${JSON.stringify(log)}, JSON.stringify(event.payload.messages.map((m) => m.role)) + "\\n");
		return { ...event.payload, requestMetadata: { trace: "extension" } };
	});
}
`;

describe("the joined request and an extension's before_provider_request on Bedrock", () => {
	it("an extension's handler sees the joined messages once per attempt, also on the session's retry after Bedrock was busy, and its edit reaches every attempt", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const log = join(cli.dir, "roles.log");
		const extension = join(cli.dir, "roles.mjs");
		writeFileSync(log, "");
		writeFileSync(extension, ROLES_LOGGER(log));
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "write a long text about rivers", timestamp: 1 });
		sm.appendMessage(assistant([], "aborted"));
		const file = sm.getSessionFile()!;
		sm.close();

		// Three refusals: the AWS SDK's own three attempts (one payload), then Settle's retry (a new one).
		const { run, sent, requests } = await continueOnBedrock(file, "what did I ask for?", "A long text.", MODEL, {
			refusals: 3,
			extension,
		});
		expect(run.stdout).toContain("A long text.");
		expect(run.code).toBe(0);
		expect(requests.map((request) => request.body.requestMetadata)).toEqual(
			Array.from({ length: 4 }, () => ({ trace: "extension" })),
		);
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(['["user"]', '["user"]']);
		expect(roles(sent)).toEqual(["user"]);
	});

	it("zed#59436: an extension's message of empty text that asks for a turn, last in the request to Claude on Bedrock: the answer arrives; no message goes holding only the cache point", async () => {
		const extension = join(cli.dir, "blank-status.mjs");
		writeFileSync(
			extension,
			`export default function (pi) {
	let sent = false;
	pi.on("agent_end", () => {
		if (sent) return;
		sent = true;
		pi.sendMessage({ customType: "status", content: "", display: false }, { triggerTurn: true });
	});
}
`,
		);
		const sm = sessionManager();
		sm.appendMessage({ role: "user", content: "hello", timestamp: 1 });
		sm.appendMessage(assistant([{ type: "text", text: "Hi." }], "stop"));
		const file = sm.getSessionFile()!;
		sm.close();

		const { run, requests } = await continueOnBedrock(file, "what next?", "Tests next.", MODEL, {
			extension,
			answers: 2,
		});
		expect(run.stderr).not.toContain("is empty");
		expect(run.code).toBe(0);
		expect(requests).toHaveLength(2);
		const last = requests.at(-1)!.body.messages as SentMessage[];
		expect(last.filter((message) => message.content.every((block) => "cachePoint" in block))).toEqual([]);
		expect(JSON.stringify(requests[0]!.body.messages)).toContain("cachePoint");
	});
});

describe("Switchyard#502, Cyber-AutoAgent-ng#27: one toolUseId for two calls on Bedrock", () => {
	it("Switchyard#502: Grok's two answers both under `call_0`, then `settle --session <file> -p` on Bedrock: the answer arrives; each call under a toolUseId of its own, each result under its call's", async () => {
		const sm = sessionManager();
		const grok = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]) => ({
			...assistant(content, stopReason, "grok-4"),
			api: "openai-completions" as const,
			provider: "xai",
		});
		for (const word of ["alpha", "beta"]) {
			sm.appendMessage({ role: "user", content: `run echo ${word}`, timestamp: 1 });
			const command = `echo ${word}`;
			sm.appendMessage(grok([{ type: "toolCall", id: "call_0", name: "bash", arguments: { command } }], "toolUse"));
			sm.appendMessage({
				role: "toolResult",
				toolCallId: "call_0",
				toolName: "bash",
				content: [{ type: "text", text: word }],
				isError: false,
				timestamp: 3,
			});
			sm.appendMessage(grok([{ type: "text", text: `Printed ${word}.` }], "stop"));
		}
		const file = sm.getSessionFile()!;
		sm.close();

		const { run, sent } = await continueOnBedrock(file, "what did the two commands print?", "Alpha, then beta.");
		expect(run.stderr).not.toContain("must be unique");
		expect(run.stdout).toContain("Alpha, then beta.");
		expect(run.code).toBe(0);
		const blocks = sent.flatMap((message) => message.content);
		const uses = blocks.flatMap((block) => (block.toolUse ? [block.toolUse as { toolUseId: string }] : []));
		const results = blocks.flatMap((block) =>
			block.toolResult ? [block.toolResult as { toolUseId: string; content: { text: string }[] }] : [],
		);
		expect(new Set(uses.map((use) => use.toolUseId)).size).toBe(2);
		for (const use of uses) expect(use.toolUseId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(results.map((result) => [result.toolUseId, result.content[0]!.text])).toEqual([
			[uses[0]!.toolUseId, "alpha"],
			[uses[1]!.toolUseId, "beta"],
		]);
	});
});
