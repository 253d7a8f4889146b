/**
 * Reports about hooks that rewrite a tool call's arguments before it runs, replayed against Settle
 * over HTTP (pi-ai's OpenAI client to a local server, `test/llm/wire`), through a whole session
 * from `createAgentSession` with inline extensions and the real built-in tools.
 *
 * claude-code#16117, claude-code#15897: a hook rewrote a tool's input (a Bash command), and a second
 * hook on the same tool (a security check that found nothing) returned nothing: the rewrite was
 * lost and the original command ran. What the user should see: each extension's `tool_call`
 * handler sees the arguments as the earlier ones left them, a handler that returns nothing (or
 * `{ block: false }`) keeps them, and the tool runs the rewritten command.
 *
 * claude-code#30770: a hook's rewrite replaced the whole input, dropping the `command` field, and
 * the tool then crashed on the input it got (a Zod error). In Settle, as in pi 0.73.1 (no check
 * after the handlers; pi#9175 asked for one), a handler that leaves arguments the tool cannot take
 * sent the model "Cannot read properties of undefined (reading 'includes')" and blamed no one. What
 * the user should see: the call is not run, its result names the extension whose handler broke the
 * arguments and what the tool's schema wanted, and a later handler may still mend them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { chatReply } from "../llm/wire/openai.js";
import { lastAssistant, startWireSession, type WireSession } from "../llm/wire/session.js";

let w: WireSession | undefined;
afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

/** The tool result the second request carried back to the model for `id`. */
function resultSent(session: WireSession, id: string): unknown {
	const messages = session.server.requests[1]!.body.messages as { role: string; tool_call_id?: string }[];
	return messages.find((message) => message.role === "tool" && message.tool_call_id === id);
}

describe("claude-code#16117, claude-code#15897: a rewrite, then other extensions' handlers that allow the call", () => {
	it("claude-code#16117: the rewritten command runs (a real bash) whatever the later handlers return", async () => {
		const seenByChecks: string[] = [];
		const check = (answer: undefined | { block: false } | Record<string, never>) => (pi: ExtensionAPI) => {
			pi.on("tool_call", (event) => {
				if (event.toolName === "bash") seenByChecks.push((event.input as { command: string }).command);
				return answer;
			});
		};
		w = await startWireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				// The rewriter (an rtk-style wrapper): writes to rewritten.txt instead.
				(pi: ExtensionAPI) => {
					pi.on("tool_call", (event) => {
						if (event.toolName !== "bash") return;
						const input = event.input as { command: string };
						input.command = input.command.replaceAll("original.txt", "rewritten.txt");
						return { block: false };
					});
				},
				// Security checks that find nothing: no answer, an explicit allow, an empty object.
				check(undefined),
				check({ block: false }),
				check({}),
			],
		});
		w.server.reply(
			chatReply([
				{
					type: "tool_call",
					id: "call_1",
					name: "bash",
					arguments: { command: "echo ran > original.txt && echo wrote original.txt" },
				},
			]),
			chatReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("write the file");

		const rewritten = "echo ran > rewritten.txt && echo wrote rewritten.txt";
		expect(seenByChecks).toEqual([rewritten, rewritten, rewritten]);
		expect(readFileSync(join(w.dir, "rewritten.txt"), "utf8")).toBe("ran\n");
		expect(existsSync(join(w.dir, "original.txt"))).toBe(false);
		expect(resultSent(w, "call_1")).toEqual({ role: "tool", content: "wrote rewritten.txt\n", tool_call_id: "call_1" });
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "done" }]);
	});
});

describe("claude-code#30770: a handler that leaves arguments the tool cannot take", () => {
	/** A sandbox-style hook that replaces the input with its own fields, dropping the tool's. */
	const replacesInput = (pi: ExtensionAPI) => {
		pi.on("tool_call", (event) => {
			const input = event.input as Record<string, unknown>;
			for (const key of Object.keys(input)) delete input[key];
			input.dangerouslyDisableSandbox = true;
		});
	};

	it("claude-code#30770: the call is not run; the model is told which extension broke which field", async () => {
		w = await startWireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", () => undefined);
				},
				replacesInput,
			],
		});
		w.server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "bash", arguments: { command: "echo ran > out.txt" } }]),
			chatReply([{ type: "text", text: "the hook broke it" }]),
		);
		await w.session.prompt("run it");

		expect(existsSync(join(w.dir, "out.txt"))).toBe(false);
		const sent = resultSent(w, "call_1") as { content: string };
		expect(sent.content).toContain(
			"The tool_call handler of <inline:2> changed the arguments of bash into ones it cannot take, so the call was not run.",
		);
		expect(sent.content).toContain("command: must have required properties command");
		expect(sent.content).not.toContain("Cannot read properties");
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.find((message) => message.role === "toolResult")).toMatchObject({ isError: true });
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "the hook broke it" }]);
	});

	it("claude-code#30770: a later handler that mends the arguments lets the call run, coerced as the model's are", async () => {
		w = await startWireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				replacesInput,
				(pi: ExtensionAPI) => {
					pi.on("tool_call", (event) => {
						const input = event.input as Record<string, unknown>;
						delete input.dangerouslyDisableSandbox;
						input.command = "echo mended > out.txt";
						// A string where the schema wants a number: coerced before bash sees it.
						input.timeout = "30";
					});
				},
			],
		});
		w.server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "bash", arguments: { command: "echo ran > out.txt" } }]),
			chatReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("run it");

		expect(readFileSync(join(w.dir, "out.txt"), "utf8")).toBe("mended\n");
		expect(resultSent(w, "call_1")).toEqual({ role: "tool", content: "(no output)", tool_call_id: "call_1" });
	});
});
