/**
 * pi-continue#34 (Tiziano-AI/pi-continue, on pi 0.85.1) and openclaw#127436: an extension that
 * writes its own compaction summary from `session_before_compact` returns the same text twice; pi
 * finds "the entry just saved" by its summary text, so the second `session_compact` hands the
 * extension the first compaction entry (its id, its details), and the extension's resume handshake
 * never matches. What the user should see: every `session_compact` names the entry that compaction
 * just wrote — manual, threshold or overflow.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { CompactionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { BIG_ANSWER, fileEntries, overflowReply, SMALL_WINDOW, script, THRESHOLD_SETTINGS } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The summary an extension writes when nothing changed since its last checkpoint: the same text each time. */
const SAME_SUMMARY = "## Checkpoint\nNothing new since the last checkpoint.";

/** Writes every compaction itself (same text, a numbered continuation id) and records what `session_compact` hands back. */
function checkpointExtension(heard: { id: string; continuation: unknown; reason: string }[]) {
	let written = 0;
	return (pi: import("../../src/extensions/types.js").ExtensionAPI) => {
		pi.on("session_before_compact", (event) => ({
			compaction: {
				summary: SAME_SUMMARY,
				firstKeptEntryId: event.preparation.firstKeptEntryId,
				tokensBefore: event.preparation.tokensBefore,
				details: { continuationEventId: `continue-${++written}` },
			},
		}));
		pi.on("session_compact", (event) => {
			heard.push({
				id: event.compactionEntry.id,
				continuation: (event.compactionEntry.details as { continuationEventId?: string }).continuationEventId,
				reason: event.reason,
			});
		});
	};
}

/** The compaction entries of the session file, in file order. */
function savedCompactions(file: string): CompactionEntry[] {
	return fileEntries(file).filter((entry) => entry.type === "compaction") as unknown as CompactionEntry[];
}

describe("pi-continue#34, openclaw#127436: the same summary twice makes session_compact name the older entry", () => {
	it("pi-continue#34: two manual compactions with the same summary text: each session_compact names the entry it wrote, with its own details", async () => {
		const heard: { id: string; continuation: unknown; reason: string }[] = [];
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [checkpointExtension(heard)],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		await h.session.compact();
		await h.session.prompt("c");
		await h.session.compact();
		const saved = savedCompactions(h.session.sessionFile!);
		expect(saved.map((entry) => entry.summary)).toEqual([SAME_SUMMARY, SAME_SUMMARY]);
		expect(saved[0]!.id).not.toBe(saved[1]!.id);
		expect(heard).toEqual([
			{ id: saved[0]!.id, continuation: "continue-1", reason: "manual" },
			{ id: saved[1]!.id, continuation: "continue-2", reason: "manual" },
		]);
		expect(h.extensionErrors).toEqual([]);
	});

	it("pi-continue#34: after a manual compaction, a threshold and an overflow compaction with the same text each name their own entry", async () => {
		const heard: { id: string; continuation: unknown; reason: string }[] = [];
		h = await createHarness({
			persistence: "disk",
			...SMALL_WINDOW,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [checkpointExtension(heard)],
		});
		script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage(BIG_ANSWER),
			overflowReply(),
			fauxAssistantMessage("answered after the overflow"),
		]);
		await h.session.prompt("a");
		await h.session.compact();
		// Crosses the threshold: compacted after the answer.
		await h.session.prompt("b");
		// Overflows: compacted, then retried.
		await h.session.prompt("c");
		const saved = savedCompactions(h.session.sessionFile!);
		expect(saved.map((entry) => entry.summary)).toEqual([SAME_SUMMARY, SAME_SUMMARY, SAME_SUMMARY]);
		expect(new Set(saved.map((entry) => entry.id)).size).toBe(3);
		expect(heard).toEqual([
			{ id: saved[0]!.id, continuation: "continue-1", reason: "manual" },
			{ id: saved[1]!.id, continuation: "continue-2", reason: "threshold" },
			{ id: saved[2]!.id, continuation: "continue-3", reason: "overflow" },
		]);
		expect(h.extensionErrors).toEqual([]);
	});
});
