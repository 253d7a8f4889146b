/**
 * chatbox#1980: a DeepSeek-R1 model's reasoning was shown in the chat, but the exported history held
 * only the system, user and assistant texts: the thinking the user had read was not in the export.
 *
 * Replayed against Settle: a real `settle -p` whose model, a local server speaking OpenAI's chat
 * completions, streams `reasoning_content` (as DeepSeek, llama.cpp and vLLM do) before its answer;
 * `settle --export` writes the page, opened in real headless Chromium. What the user should see: the
 * answer, and under it a closed "Thinking" that opens on the reasoning, word for word.
 */
import { describe, expect, it } from "vitest";
import { onExportedPage } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { useExportReplay } from "./exported-page.js";

const { serve, printAndExport } = useExportReplay("settle-export-thinking-");

describe("chatbox#1980: a reasoning model's thinking on the exported page", () => {
	it("chatbox#1980: the streamed reasoning_content is on the page under a closed Thinking, which opens on it; the answer is shown", async () => {
		const server = await serve({ models: [{ id: "coder", reasoning: true }] });
		const reasoning = "R1-THOUGHT: 17 is prime because no number from 2 to 4 divides it.";
		server.reply(
			chatReply([
				{ type: "reasoning", text: reasoning },
				{ type: "text", text: "Yes, 17 is prime." },
			]),
		);
		const page = await printAndExport("is 17 prime?");
		const shown = await onExportedPage(page, async (tab) => {
			const answer = tab.locator("#entries .assistant");
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const closed = await answer.innerText();
			await answer.locator(".thinking summary").click();
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const opened = await answer.locator(".thinking").innerText();
			return { closed, opened };
		});
		expect(shown.closed).toContain("Yes, 17 is prime.");
		expect(shown.closed).toContain("Thinking");
		expect(shown.closed).not.toContain("R1-THOUGHT");
		expect(shown.opened).toContain(reasoning);
	}, 60_000);
});
