/**
 * A session with every kind of entry the export page shows, built through the public API on the
 * faux provider with a real JSONL file: a text reply, a tool turn (a real bash run), an image, a
 * compaction, a branch left by tree navigation (with a branch summary), labels, a model and a
 * thinking-level change, an error reply, an extension message — and hostile text in messages and
 * tool output.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Context } from "../../src/llm/types.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";

/**
 * A harness and a temp folder for the tests of one file: after each test the harness made last is
 * cleaned up, then the folder made last is removed.
 */
export function useHarnessAndDir(): {
	harness(options?: HarnessOptions): Promise<Harness>;
	tempDir(prefix: string): string;
} {
	let h: Harness | undefined;
	let dir: string | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
		if (dir) rmSync(dir, { recursive: true, force: true });
		dir = undefined;
	});
	return {
		harness: async (options) => {
			h = await createHarness(options);
			return h;
		},
		tempDir: (prefix) => {
			dir = mkdtempSync(join(tmpdir(), prefix));
			return dir;
		},
	};
}

/** Text that would run script if the page ever parsed session content as HTML. */
export const HOSTILE_SCRIPT = "</script><script>window.pwned=1</script>";
export const HOSTILE_IMG = '<img src=x onerror="window.pwned=2">';
export const HOSTILE_OUTPUT = `<img src=y onerror=window.pwned=3><!-- ${"</script"}`;

/** A 1×1 PNG. */
export const PNG_1X1 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export interface RichSession {
	h: Harness;
	file: string;
	/** The user entry of the branch left by navigation ("abandoned question"). */
	abandonedUser: SessionEntry;
	/** The user entry on the current branch ("current question"). */
	currentUser: SessionEntry;
}

/** Builds the session; call `h.cleanup()` when done. */
export async function richSession(): Promise<RichSession> {
	const h = await createHarness({
		persistence: "disk",
		faux: { models: [{ id: "faux-1" }, { id: "faux-2", reasoning: true }] },
		settings: { compaction: { keepRecentTokens: 1 } },
	});
	const replies: AssistantMessage[] = [
		fauxAssistantMessage([
			fauxThinking("Greeting the user."),
			fauxText("Hello! Here is code:\n```ts\nconst x = 1;\n```\nDone."),
		]),
		fauxAssistantMessage([fauxToolCall("bash", { command: `printf '%s' '${HOSTILE_OUTPUT}'` }, { id: "call-bash" })], {
			stopReason: "toolUse",
		}),
		fauxAssistantMessage(`It printed ${HOSTILE_IMG}`),
		fauxAssistantMessage("A red pixel."),
		fauxAssistantMessage("abandoned answer"),
		fauxAssistantMessage("", { stopReason: "error", errorMessage: "permission_error: FAILED-REPLY" }),
	];
	// Summarization requests (compaction may make two, with a turn prefix) get the summary of the moment.
	let summary = "";
	const step = (context: Context) =>
		/summar/i.test(context.systemPrompt ?? "") ? fauxAssistantMessage(summary) : replies.shift()!;
	h.setResponses(Array.from({ length: 12 }, () => step));
	await h.session.prompt(`hi ${HOSTILE_SCRIPT}`);
	await h.session.prompt("run the tool");
	await h.session.prompt("what is this image?", { images: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] });
	summary = "## Goal\nCOMPACTED-SUMMARY-TEXT";
	await h.session.compact();
	await h.session.prompt("abandoned question");
	const abandonedUser = userEntry(h, "abandoned question");
	// Back to before the abandoned question, with a summary of what is left behind.
	summary = "BRANCH-SUMMARY-TEXT";
	await h.session.navigateTree(abandonedUser.parentId!, { summarize: true });
	await h.session.setModel(h.getModel("faux-2")!);
	h.session.setThinkingLevel("high");
	await h.session.sendCustomMessage({ customType: "note", content: "EXTENSION-NOTE", display: true });
	await h.session.prompt("current question");
	const currentUser = userEntry(h, "current question");
	h.sessionManager.appendLabelChange(currentUser.id, "LABEL-CURRENT");
	h.sessionManager.appendLabelChange(abandonedUser.id, "LABEL-ABANDONED");
	if (replies.length > 0) throw new Error(`${replies.length} scripted replies left: the session went another way`);
	return { h, file: h.session.sessionFile!, abandonedUser, currentUser };
}

export function userEntry(h: Harness, text: string): SessionEntry {
	const found = h.sessionManager
		.getEntries()
		.find(
			(entry) =>
				entry.type === "message" &&
				entry.message.role === "user" &&
				JSON.stringify(entry.message.content).includes(text),
		);
	if (!found) throw new Error(`no user entry with ${text}`);
	return found;
}

/** The session data a page embeds (parsed back from its JSON script). */
export function embeddedData(htmlFile: string): {
	title: string;
	leafId: string | null;
	entries: SessionEntry[];
	stats: { models: string[]; input: number; output: number; cost: number; entries: number; branches: number };
} {
	const html = readFileSync(htmlFile, "utf8");
	const match = /<script type="application\/json" id="session-data">([\s\S]*?)<\/script>/.exec(html);
	if (!match) throw new Error("no session data in the page");
	return JSON.parse(match[1]!);
}
