/**
 * claude-code#3003, kimi-code#269: a session interrupted while a tool ran was left with a tool call
 * and no result, and every later request was refused (400 "tool_use ids were found without
 * tool_result blocks"). copilot-cli#3183, kimi-code#660: the same after the process was killed
 * outright (OOM, kill -9), when nothing can be written. Here an SDK host disposes the session
 * mid-tool, or a real `settle` is SIGKILLed mid-tool; the file is then resumed by a real
 * `settle --session <file> -p` against a local Anthropic server that refuses an unanswered tool_use.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliCommand, runSettleAsync, trackChild, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest, Reply } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";
import { diskSessionsPerTest, fileMessages, orphanToolMessages } from "./disk-harness.js";
import { killMarked, markedSleepCommand, processMarker } from "./processes.js";

const cli = useCliProject("settle-pi-races-dispose-mid-tool-");
const disk = diskSessionsPerTest();
const wireSession = useWireSession();
let marker: string;
beforeEach(() => {
	marker = processMarker();
});
afterEach(() => {
	killMarked(marker);
});

type SentBlock = { type: string; id?: string; tool_use_id?: string; is_error?: boolean; content?: unknown };
type SentMessage = { role: string; content: SentBlock[] | string };

/** Anthropic's check: every tool_use must be answered by a tool_result in the very next message. */
function refuseUnansweredToolUse(request: RecordedRequest, next: () => Reply): Reply {
	const messages = (request.body?.messages ?? []) as SentMessage[];
	for (const [index, message] of messages.entries()) {
		if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
		const following = messages[index + 1]?.content;
		const answered = new Set(
			(Array.isArray(following) ? following : []).flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])),
		);
		const open = message.content.filter((b) => b.type === "tool_use" && !answered.has(b.id)).map((b) => b.id);
		if (open.length > 0) {
			return anthropicError(
				400,
				"invalid_request_error",
				`messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.join(", ")}`,
			);
		}
	}
	return next();
}

/** The tool_result a request sends right after the tool_use `id`, or undefined. */
function resultSentFor(request: RecordedRequest | undefined, id: string): SentBlock | undefined {
	const sent = (request?.body.messages ?? []) as SentMessage[];
	const useAt = sent.findIndex(
		(m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use" && b.id === id),
	);
	const next = sent[useAt + 1]?.content;
	return useAt < 0 || !Array.isArray(next) ? undefined : next.find((b) => b.type === "tool_result");
}

/** `settle --session <file> --model local/coder -p <prompt>` as a real process against the wire server. */
function resume(file: string, prompt: string) {
	return runSettleAsync(["--session", file, "--model", "local/coder", "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

describe("claude-code#3003: dispose() while a bash call runs, then resume the file with settle", () => {
	it("claude-code#3003: the disposed session's file answers the unfinished call with its aborted result; settle --session -p resumes it and prints the answer", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: refuseUnansweredToolUse });
		writeLocalProvider(cli.agentDir, w.server.url, { api: "anthropic-messages" });
		w.server.reply(
			anthropicReply(
				[{ type: "tool_use", id: "toolu_01Sleep", name: "bash", input: { command: markedSleepCommand(marker, 30) } }],
				{
					stopReason: "tool_use",
				},
			),
		);
		const started = new Promise<void>((resolve) => {
			w.session.subscribe((event) => {
				if (event.type === "tool_execution_start") resolve();
			});
		});
		const prompt = w.session.prompt("Wait for it").catch(() => undefined);
		await started;
		const file = w.session.sessionFile!;
		await w.session.dispose();
		await prompt;
		w.session.sessionManager.close();

		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(fileMessages(file).at(-1)).toMatchObject({
			role: "toolResult",
			toolCallId: "toolu_01Sleep",
			isError: true,
			content: [{ type: "text", text: "Operation aborted" }],
		});
		expect(w.session.messages.at(-1)).toMatchObject({ role: "toolResult", toolCallId: "toolu_01Sleep" });

		w.server.reply(anthropicReply([{ type: "text", text: "Picking up again." }]));
		const resumed = await resume(file, "Go on");
		expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: "Picking up again.\n" });
		expect(resultSentFor(w.server.requests[1], "toolu_01Sleep")).toMatchObject({
			tool_use_id: "toolu_01Sleep",
			is_error: true,
			content: "Operation aborted",
		});
	});
});

describe("claude-code#3003: dispose() while a finished tool's result is being delivered", () => {
	it("claude-code#3003: a result whose message_end handler still runs at dispose is written once, as the tool returned it, not answered as aborted too", async () => {
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		let holding!: () => void;
		const holdingResult = new Promise<void>((resolve) => {
			holding = resolve;
		});
		const d = await disk.session({
			extensionFactories: [
				(pi) => {
					pi.on("message_end", async (event) => {
						if (event.message.role !== "toolResult") return;
						holding();
						await held;
					});
				},
			],
		});
		d.provider.answer(
			d.provider.toolCallReply({
				type: "toolCall",
				id: "call_echo",
				name: "bash",
				arguments: { command: "echo done" },
			}),
		);
		const prompt = d.session.prompt("Echo it").catch(() => undefined);
		await holdingResult;
		const file = d.session.sessionFile!;
		d.session.dispose();
		release();
		await prompt;
		await d.session.agent.waitForIdle();

		const results = fileMessages(file).filter((message) => message.role === "toolResult");
		expect(results).toHaveLength(1);
		expect(results[0]).toMatchObject({
			toolCallId: "call_echo",
			isError: false,
			content: [{ type: "text", text: "done\n" }],
		});
		expect(d.session.messages.filter((message) => message.role === "toolResult")).toHaveLength(1);
	});
});

describe("copilot-cli#3183, kimi-code#660: settle SIGKILLed while a bash call runs, then resumed", () => {
	it("copilot-cli#3183: the killed run's file ends on the unanswered call; settle --session -p resumes it: the request answers the call with an error result and the answer is printed", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: refuseUnansweredToolUse });
		writeLocalProvider(cli.agentDir, w.server.url, { api: "anthropic-messages" });
		const file = join(cli.project, "killed.jsonl");
		w.server.reply(
			anthropicReply(
				[{ type: "tool_use", id: "toolu_01Kill", name: "bash", input: { command: markedSleepCommand(marker, 30) } }],
				{
					stopReason: "tool_use",
				},
			),
		);
		const child = spawn(
			process.execPath,
			[...cliCommand(), "--session", file, "--model", "local/coder", "--mode", "json", "-p", "Wait for it"],
			{ cwd: cli.project, env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir }, stdio: ["ignore", "pipe", "pipe"] },
		);
		const closed = trackChild(child);
		child.stderr.resume();
		await new Promise<void>((resolve) => {
			createInterface({ input: child.stdout }).on("line", (line) => {
				if (line.includes('"type":"tool_execution_start"')) resolve();
			});
		});
		child.kill("SIGKILL");
		expect(await closed).toBe(null);
		killMarked(marker);
		expect(orphanToolMessages(file).callsWithoutResult).toEqual(["toolu_01Kill"]);

		w.server.reply(anthropicReply([{ type: "text", text: "Back after the crash." }]));
		const resumed = await resume(file, "Go on");
		expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: "Back after the crash.\n" });
		expect(resultSentFor(w.server.requests[1], "toolu_01Kill")).toMatchObject({
			tool_use_id: "toolu_01Kill",
			is_error: true,
		});
	});
});
