/**
 * Reports about NUL bytes around the bash tool, replayed against Settle with a real shell:
 * - oh-my-openagent#2220: a model emitted a command holding a NUL character (after a compaction or
 *   a model fallback); Node refuses such an argument, and the agent was left with a crash or an
 *   error about `args[1]` it never wrote.
 * - claude-code#94055: a bash result holding NUL bytes (a binary read as text) made every later
 *   request a body the API could not parse ("unexpected end of data"): the session was dead.
 *   Here over the Anthropic wire, through pi-ai's own client and a local server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";
import { script, toolResultTexts } from "./helpers.js";

const wireSession = useWireSession();
let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const NUL_REFUSAL =
	"The command holds a NUL character, which no shell command can carry; nothing was run. Send it again without the NUL (printf '\\0' writes a NUL byte).";

describe("oh-my-openagent#2220: a command holding a NUL character", () => {
	it("oh-my-openagent#2220: the model's call is refused with a result saying what is wrong and what to do, nothing runs, and its next call runs", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "touch ran.txt; echo a\u0000b" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxToolCall("bash", { command: "echo retried" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		expect(toolResultTexts(h)).toEqual([
			{ isError: true, text: NUL_REFUSAL },
			{ isError: false, text: "retried\n" },
		]);
		expect(existsSync(join(h.tempDir, "ran.txt"))).toBe(false);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("oh-my-openagent#2220: a user command (`executeBash`) holding one rejects with INVALID_ARGUMENT and records nothing", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const run = h.session.executeBash("touch ran.txt; echo a\u0000b");
		await expect(run).rejects.toBeInstanceOf(SettleError);
		await expect(run).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: NUL_REFUSAL });
		expect(h.session.messages).toEqual([]);
		expect(existsSync(join(h.tempDir, "ran.txt"))).toBe(false);
	});
});

describe("claude-code#94055: a bash result holding NUL bytes", () => {
	it("claude-code#94055: the next Anthropic request is valid JSON carrying the bytes, the session answers on, and its file reads back", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicReply(
				[
					{
						type: "tool_use",
						id: "toolu_nul",
						name: "bash",
						input: { command: "printf 'head\\0tail\\n\\0\\0\\001end\\n'" },
					},
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "Read the bytes." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("show the bytes");
		await w.session.prompt("are you still there?");

		expect(w.server.requests).toHaveLength(3);
		for (const request of w.server.requests.slice(1)) {
			// The server keeps a body it cannot parse as its raw text: an object means valid JSON.
			expect(typeof request.body).toBe("object");
			const blocks = (request.body.messages as { content: unknown }[]).flatMap((message) =>
				Array.isArray(message.content) ? message.content : [],
			);
			expect(blocks).toContainEqual(
				expect.objectContaining({
					type: "tool_result",
					tool_use_id: "toolu_nul",
					content: "head\u0000tail\n\u0000\u0000\u0001end\n",
				}),
			);
		}
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "Still here." }]);
		const saved = w
			.entries()
			.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
		expect(saved).toHaveLength(1);
		expect(saved[0]!.content).toEqual([{ type: "text", text: "head\u0000tail\n\u0000\u0000\u0001end\n" }]);
		expect(readFileSync(w.session.sessionFile!, "utf8")).toContain("head\\u0000tail");
	});
});
