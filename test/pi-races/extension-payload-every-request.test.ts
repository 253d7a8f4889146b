/**
 * pi#6089: an extension overriding a provider must change every request it sends (a header-like
 * field added, the prompt sanitized) or the provider refuses it; pi's payload hook reached only some
 * call paths, so the extension had to re-implement the transport. Compaction and branch summaries are
 * pi#8999's rows (`extension-request-hooks`); here the paths a single turn takes: the request a
 * retry sends again after a 503, and the run's next request after a tool ran. What the user should
 * see: each of them carries the handler's edits, once — a handler that edits the payload in place
 * (appends a message) finds a fresh payload on the retry, not the one it already changed.
 *
 * A whole session from `createAgentSession` on pi-ai's OpenAI client against a local server.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

interface ChatBody {
	messages: { role: string; content: unknown }[];
	user?: string;
}

describe("pi#6089: a payload hook on every request a turn sends", () => {
	it("pi#6089: the retry after a 503 and the request after a tool carry the handler's edits, each once", async () => {
		const seen: number[] = [];
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off", retry: { maxRetries: 2, baseDelayMs: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("before_provider_request", (event) => {
						const payload = event.payload as ChatBody;
						seen.push(payload.messages.length);
						for (const message of payload.messages) {
							if (typeof message.content === "string")
								message.content = message.content.replaceAll("SECRET", "[removed]");
							else if (Array.isArray(message.content)) {
								for (const part of message.content as { type: string; text?: string }[]) {
									if (part.type === "text" && part.text) part.text = part.text.replaceAll("SECRET", "[removed]");
								}
							}
						}
						payload.messages.push({ role: "user", content: "appended by the extension" });
						payload.user = "tenant-7";
						return undefined;
					});
				},
			],
		});
		writeFileSync(join(w.dir, "notes.txt"), "SECRET notes\n");
		w.server.reply(
			openAiError(503, "The server is overloaded", "server_error"),
			chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "notes.txt" } }]),
			chatReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("read notes.txt, the SECRET one");

		const bodies = w.server.requests.map((request) => request.body as ChatBody);
		expect(bodies).toHaveLength(3);
		// The retry sends what the first attempt sent: the same edits, the appended message once.
		expect(bodies[1]!.messages).toEqual(bodies[0]!.messages);
		for (const body of bodies) {
			expect(body.user).toBe("tenant-7");
			expect(JSON.stringify(body.messages)).not.toContain("SECRET");
			expect(body.messages.filter((message) => message.content === "appended by the extension")).toHaveLength(1);
			expect(body.messages.at(-1)).toEqual({ role: "user", content: "appended by the extension" });
		}
		// The tool's result went to the model sanitized too.
		expect(JSON.stringify(bodies[2]!.messages)).toContain("[removed] notes");
		// Each call saw a payload the session built, not the previous call's edited one.
		expect(seen[1]).toBe(seen[0]);
		expect(w.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "done" }] });
	});
});
