/**
 * Shared by the chunked-summary tests (summary-chunks, summary-chunks-dense): a disk session built on
 * a large-window model and moved to a small one, and what a test reads of its requests and file.
 */
import { readFileSync } from "node:fs";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { Context, Message } from "../../src/llm/types.js";
import type { CompactionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { gate } from "../session/recovery-helpers.js";

/** Characters of a message's text, thinking and tool calls (what a provider counts). */
export function messageChars(message: Message): number {
	if (typeof message.content === "string") return message.content.length;
	let chars = 0;
	for (const block of message.content) {
		if (block.type === "text") chars += block.text.length;
		else if (block.type === "thinking") chars += block.thinking.length;
		else if (block.type === "toolCall") chars += block.name.length + JSON.stringify(block.arguments).length;
	}
	return chars;
}

/** The text of a request's first message (a summarization request's whole prompt). */
export const promptOf = (context: Context) => {
	const content = context.messages[0]!.content;
	return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

/**
 * A provider that under-reports usage (100 tokens per answer): the threshold check before a send
 * sees a small context, so the oversized request reaches the provider and overflow recovery runs.
 */
export const underReportedUsage = (pi: ExtensionAPI) =>
	void pi.on("message_end", (event) => {
		if (event.message.role !== "assistant" || event.message.stopReason === "error") return undefined;
		const usage = { ...event.message.usage, input: 100, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 100 };
		return { message: { ...event.message, usage } };
	});

/** A disk harness with a 200k `large` model and a `small` one of `window` tokens. */
export function smallModelHarness(options: {
	window: number;
	reserveTokens: number;
	keepRecentTokens: number;
	underReported: boolean;
}): Promise<Harness> {
	return createHarness({
		persistence: "disk",
		faux: {
			models: [
				{ id: "large", contextWindow: 200_000 },
				{ id: "small", contextWindow: options.window },
			],
		},
		settings: { compaction: { reserveTokens: options.reserveTokens, keepRecentTokens: options.keepRecentTokens } },
		...(options.underReported ? { extensionFactories: [underReportedUsage] } : {}),
	});
}

/** Five prompts on the large model (each answered by the harness's responses), then the small model. */
export async function fiveTurnsThenSmallModel(h: Harness): Promise<void> {
	for (let turn = 1; turn <= 5; turn++) await h.session.prompt(`task ${turn} ${"x".repeat(400)}`);
	await h.session.setModel(h.getModel("small")!, { persist: false });
}

/** The compaction entries of the harness's session file, read from disk. */
export function compactionEntriesOnDisk(h: Harness): CompactionEntry[] {
	const lines = readFileSync(h.sessionManager.getSessionFile()!, "utf8").trim().split("\n");
	return lines.map((line) => JSON.parse(line)).filter((entry) => entry.type === "compaction");
}

/**
 * Holds summary request number `held` (1-based) until `release()`: `summary` goes to the provider's
 * options, `reached` resolves when that request arrives — the moment to abort mid-chunk.
 */
export function heldSummaryRequest(held: number) {
	const hold = gate();
	let arrived!: () => void;
	const reached = new Promise<void>((resolve) => {
		arrived = resolve;
	});
	const summary = (n: number) => {
		if (n !== held) return undefined;
		arrived();
		return hold.promise;
	};
	return { summary, reached, release: hold.release };
}
