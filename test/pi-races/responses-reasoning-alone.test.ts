/**
 * continue#8933, continue#10428: a GPT-5 answer on the OpenAI Responses API that stopped while it
 * reasoned (`max_output_tokens` reached: the response is `incomplete`, its output one reasoning
 * item) left a reasoning item with nothing after it. Sent back on the next request, OpenAI refuses
 * it: "400 Item 'rs_…' of type 'reasoning' was provided without its required following item.", and
 * every later turn of the session fails the same way. Replayed with real `settle -p` / `settle -c`
 * processes and pi-ai's real OpenAI client against a local server streaming as OpenAI does and
 * refusing such an item as it does.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { openAiError } from "../llm/wire/openai.js";
import { ENCRYPTED, type ResponsesInputItem, responsesIncomplete, responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";

/** OpenAI's rule: a reasoning item is followed by the item it produced (a call or a message). */
function unfollowed(input: ResponsesInputItem[]): ResponsesInputItem | undefined {
	return input.find((item, at) => {
		if (item.type !== "reasoning") return false;
		const next = input[at + 1] as { type?: string; role?: string } | undefined;
		return !(next?.type === "function_call" || (next?.type === "message" && next.role === "assistant"));
	});
}

describe("continue#8933: a Responses answer that stopped while reasoning, then the next prompt", () => {
	const cli = useCliProject("settle-responses-reasoning-alone-");
	const server = useWireServer((request, next) => {
		const lone = unfollowed((request.body?.input ?? []) as ResponsesInputItem[]);
		return lone
			? openAiError(
					400,
					`Item '${lone.id}' of type 'reasoning' was provided without its required following item.`,
					"invalid_request_error",
				)
			: next();
	});

	it("continue#8933: after an answer cut while reasoning, `settle -c` is answered; its request holds no reasoning item without the item that followed it", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			api: "openai-responses",
			models: [{ id: "coder", reasoning: true }],
		});
		server.reply(
			responsesIncomplete([{ type: "reasoning", summary: "Thinking about a long plan.", encrypted: ENCRYPTED }]),
			responsesReply([
				{ type: "reasoning", summary: "Short this time.", encrypted: ENCRYPTED },
				{ type: "message", text: "Here is the short plan." },
			]),
		);
		const run = (args: string[]) =>
			runSettleAsync(["--session-dir", "sessions", "--model", "local/coder", "--thinking", "high", ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});

		await run(["-p", "plan everything"]);
		const next = await run(["-c", "-p", "shorter, please"]);

		expect(server.requests).toHaveLength(2);
		const input = server.requests[1]!.body.input as ResponsesInputItem[];
		expect(unfollowed(input)).toBeUndefined();
		expect(next.stderr).not.toContain("required following item");
		expect(next).toMatchObject({ code: 0, stdout: "Here is the short plan.\n" });
	});
});
