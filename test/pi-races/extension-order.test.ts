/**
 * Reports about what one extension sees while another acts from the same event, replayed against
 * Settle: a compaction started with `ctx.compact()` from an `agent_settled` handler
 * (pi-powerline-footer#174, whose compaction-model extension does this after `compact_context`).
 * What the user should see: the compaction asked for runs, whatever the host does next; a prompt
 * sent meanwhile is told (a typed BUSY, as during any manual compaction) and answered once sent again.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { fileEntries, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/**
 * The compaction-model extension: once armed, compacts from the next `agent_settled` (once),
 * recording the outcome; `then` runs in the same dispatch right after asking.
 */
function compactOnSettle(outcome: string[], then?: () => void) {
	const state = { armed: false };
	const extension = (pi: ExtensionAPI) => {
		pi.on("agent_settled", (_event, ctx) => {
			if (!state.armed) return;
			state.armed = false;
			ctx.compact({
				onComplete: () => void outcome.push("compacted"),
				onError: (error) => void outcome.push(`failed: ${error.message}`),
			});
			then?.();
		});
	};
	const arm = () => {
		state.armed = true;
	};
	return { extension, arm };
}

describe("pi-powerline-footer#174: a compaction started from agent_settled, seen by another extension", () => {
	it("pi-powerline-footer#174: ctx.compact() from agent_settled runs even when the host's next prompt comes as soon as prompt() resolves; that prompt is refused with a typed BUSY and answered after the compaction once sent again", async () => {
		const outcome: string[] = [];
		const seenByOther: { idle: boolean; compacting: boolean }[] = [];
		const compaction = compactOnSettle(outcome);
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				compaction.extension,
				// Powerline: reads the session's state from its own agent_settled handler.
				(pi: ExtensionAPI) => {
					pi.on("agent_settled", (_event, ctx) => {
						seenByOther.push({ idle: ctx.isIdle(), compacting: harness().session.isCompacting });
					});
				},
			],
		});
		const harness = () => h!;
		const { answerRequests, summaryRequests } = script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("answered after the compaction"),
		]);
		await h.session.prompt("a");
		compaction.arm();
		await h.session.prompt("b");
		// A chat or RPC host sends the next line the moment prompt() resolves: the compaction has
		// begun, so the line is refused with a typed BUSY (as during any manual compaction), not lost.
		const refused = await h.session
			.prompt("typed right after", { streamingBehavior: "followUp" })
			.catch((error: unknown) => error);
		expect(refused).toMatchObject({ code: "BUSY" });
		await h.session.waitForIdle();
		await h.session.prompt("typed right after");
		expect(outcome).toEqual(["compacted"]);
		expect(summaryRequests.length).toBeGreaterThan(0);
		const types = fileEntries(h.session.sessionFile!).map((entry) =>
			entry.type === "message" ? `${entry.message?.role}` : entry.type,
		);
		const compactionAt = types.indexOf("compaction");
		expect(compactionAt).toBeGreaterThan(0);
		// The line, sent again: answered once, after the compaction.
		expect(userTexts(answerRequests.at(-1)!).at(-1)).toBe("typed right after");
		expect(timesPersisted(h.session.sessionFile!, "typed right after")).toBe(1);
		expect(types.lastIndexOf("user")).toBeGreaterThan(compactionAt);
		expect(h.extensionErrors).toEqual([]);
		// Powerline's handler ran before the compaction began: idle, nothing compacting yet.
		expect(seenByOther.at(-1)).toEqual({ idle: true, compacting: false });
		expect(h.session.isIdle).toBe(true);
	});

	it("pi-powerline-footer#174: abortCompaction() while that compaction waits for the agent_settled handlers cancels it: onError hears it, nothing is written", async () => {
		const outcome: string[] = [];
		// Esc in the same dispatch (another extension's handler, or the host's listener).
		const compaction = compactOnSettle(outcome, () => h!.session.abortCompaction());
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [compaction.extension],
		});
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		compaction.arm();
		await h.session.prompt("b");
		await h.session.waitForIdle();
		expect(outcome).toEqual(["failed: Compaction cancelled"]);
		expect(summaryRequests).toHaveLength(0);
		expect(fileEntries(h.session.sessionFile!).some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);
	});
});
