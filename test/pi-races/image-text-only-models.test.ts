/**
 * `@file` images given to a model that does not take images (a models.json model without `input` is
 * text-only), through a real `settle -p` process and a local OpenAI-style server. Factory-AI/factory#24:
 * images sent to a custom model were stripped from the request with nothing but a log line; the user
 * got answers about no image and did not know what to change.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { encodeImage } from "../tools/image-resize-helpers.js";

/** `settle --model local/coder <args>` (a real child process) in `cwd`: its exit code, stdout and stderr. */
function settle(cwd: string, agentDir: string, args: string[]) {
	return runSettleAsync(["--model", "local/coder", ...args], { cwd, agentDir });
}

describe("Factory-AI/factory#24: images attached for a custom model were stripped with no word to the user", () => {
	const cli = useCliProject("settle-pi-races-text-only-");
	const server = useWireServer();

	/** The user message of the first request, as the server got it. */
	const firstUser = () => {
		const body = server.requests[0]?.body as { messages?: { role: string; content: unknown }[] } | undefined;
		return JSON.stringify(body?.messages?.find((message) => message.role === "user")?.content);
	};

	it("Factory-AI/factory#24: settle -p @shot.png with a text-only models.json model warns on stderr that the image was not sent, naming the model and the input to set; the model gets the note", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.project, "shot.png"), encodeImage("png", 64, 48));
		server.reply(chatReply([{ type: "text", text: "I see no image." }]));
		const run = await settle(cli.project, cli.agentDir, ["--no-session", "-p", "@shot.png", "describe it"]);
		expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "I see no image.\n" });
		expect(run.stderr).toContain(
			'Warning: 1 @file image was not sent: the model local/coder does not accept images (its input has no "image")',
		);
		expect(run.stderr).toContain('add "input": ["text", "image"] to it in models.json');
		expect(firstUser()).toContain("[Image 1 omitted: the model local/coder does not accept images.]");
		expect(firstUser()).not.toContain("image_url");
	});

	it("Factory-AI/factory#24: the same run with the model's input set to text and image sends the image, no warning", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", input: ["text", "image"] }] });
		writeFileSync(join(cli.project, "shot.png"), encodeImage("png", 64, 48));
		server.reply(chatReply([{ type: "text", text: "A small image." }]));
		const run = await settle(cli.project, cli.agentDir, ["--no-session", "-p", "@shot.png", "describe it"]);
		expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "A small image.\n" });
		expect(run.stderr).not.toContain("not sent");
		expect(firstUser()).toContain("data:image/png;base64,");
	});
});
