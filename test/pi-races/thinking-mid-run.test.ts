/**
 * markusylisiurunen/tau#249: changing the reasoning effort while a turn ran was refused ("cannot
 * change reasoning while a session turn is running"). What the user should see: the change taken
 * at once, saved in the session, and the requests after it asking for the new level.
 *
 * A whole session on pi-ai's Anthropic client against a local server, its JSONL on disk.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { encodeSse } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("markusylisiurunen/tau#249: the reasoning level could not be changed while a turn ran", () => {
	it("tau#249: setThinkingLevel while a tool call streams: accepted, saved; the run's next request and the next prompt's ask for the new level", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "high" } });
		writeFileSync(join(w.dir, "notes.txt"), "42\n");
		const events = anthropicEvents([{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "notes.txt" } }], {
			stopReason: "tool_use",
		});
		let finish: () => void = () => {};
		w.server.reply((_request, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.write(encodeSse(events.slice(0, 4)));
			finish = () => res.end(encodeSse(events.slice(4)));
		});
		w.server.reply(anthropicReply([{ type: "text", text: "It is 42." }]));
		w.server.reply(anthropicReply([{ type: "text", text: "ok" }]));
		const streaming = new Promise<void>((resolve) => {
			const off = w.session.subscribe((event) => {
				if (event.type === "message_update") {
					off();
					resolve();
				}
			});
		});
		const run = w.session.prompt("what is in notes.txt?");
		await streaming;
		w.session.setThinkingLevel("low");
		expect(w.session.thinkingLevel).toBe("low");
		finish();
		await run;
		await w.session.prompt("thanks");

		// high, then low for the tool result's request and for the next prompt's.
		const budgets = w.server.requests.map((request) => request.body.thinking?.budget_tokens as number);
		expect(budgets).toHaveLength(3);
		expect(budgets[1]).toBeLessThan(budgets[0]!);
		expect(budgets[2]).toBe(budgets[1]);
		const levels = w
			.entries()
			.flatMap((entry) => (entry.type === "thinking_level_change" ? [entry.thinkingLevel] : []));
		expect(levels).toEqual(["high", "low"]);
		expect(w.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "ok" }] });
	});
});
