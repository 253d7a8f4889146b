/**
 * The setters that write a session entry or change a session setting, given values of the wrong
 * type from plain JavaScript: `session.setSessionName(42)`, `pi.setLabel(id, 42)`,
 * `sessionManager.appendCustomEntry(42)`, `session.setSteeringMode("bogus")`. Each is refused with
 * `INVALID_ARGUMENT` saying what to pass; nothing is written, nothing changes, the session answers.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { closeSession, expectSettleError, lastAssistant, openSession, thrown, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/** A session that answered once, with its extension API; `check` runs on it, then it must answer again. */
async function withAnsweredSession(check: (session: AgentSession, pi: ExtensionAPI) => Promise<void> | void) {
	let api: ExtensionAPI | undefined;
	const session = await openSession(ws, {
		extensions: [
			(pi) => {
				api = pi;
			},
		],
	});
	try {
		ws.reply("first");
		await session.prompt("first");
		await check(session, api!);
		ws.reply("still answering");
		await session.prompt("again");
		expect(lastAssistant(session).text).toBe("still answering");
	} finally {
		closeSession(session);
	}
}

/** Asserts `call` throws INVALID_ARGUMENT with `mentions` and leaves the session file as it was. */
function refusedWithoutWriting(session: AgentSession, call: () => unknown, ...mentions: string[]): void {
	const file = session.sessionFile!;
	const bytes = readFileSync(file);
	expectSettleError(thrown(call), "INVALID_ARGUMENT", ...mentions);
	expect(readFileSync(file).equals(bytes)).toBe(true);
}

describe("session names and labels", () => {
	it.each([
		[42, '"42"'],
		[null, '"null"'],
		[{}, '"[object Object]"'],
	])(
		"regression: session.setSessionName(%j) stored %s as the name — now INVALID_ARGUMENT, nothing written, the name unchanged",
		async (bad, _stored) => {
			await withAnsweredSession((session) => {
				session.setSessionName("kept");
				refusedWithoutWriting(
					session,
					() => session.setSessionName(bad as never),
					"session.setSessionName: the name must be a string",
					'Pass the display name as text ("" clears it). Nothing was written.',
				);
				expect(session.sessionName).toBe("kept");
			});
		},
	);

	it("regression: an extension's pi.setSessionName(42) and pi.setLabel(id, 42) were stored (the label then broke the tree view on reopen) — now INVALID_ARGUMENT naming the pi call", async () => {
		await withAnsweredSession((session, pi) => {
			const leaf = session.sessionManager.getLeafId()!;
			refusedWithoutWriting(
				session,
				() => pi.setSessionName(42 as never),
				"pi.setSessionName: the name must be a string",
			);
			refusedWithoutWriting(
				session,
				() => pi.setLabel(leaf, 42 as never),
				"pi.setLabel: the label must be a string (got number 42)",
				'or undefined (or "") to clear it',
			);
			refusedWithoutWriting(session, () => pi.setLabel(42 as never, "x"), "pi.setLabel: the entry id must be a string");
			expect(session.sessionManager.getLabel(leaf)).toBeUndefined();
			pi.setLabel(leaf, "fine");
			pi.setLabel(leaf, undefined);
			expect(session.sessionManager.getLabel(leaf)).toBeUndefined();
		});
	});
});

describe("SessionManager appends", () => {
	it("regression: appendSessionInfo(42), appendLabelChange(id, 42), appendCustomEntry(42), appendCustomMessageEntry with a number for customType or content, appendModelChange(undefined, id) were written as given — now INVALID_ARGUMENT, nothing written", async () => {
		await withAnsweredSession((session) => {
			const manager = session.sessionManager;
			const leaf = manager.getLeafId()!;
			const refusals: [() => unknown, string][] = [
				[() => manager.appendSessionInfo(42 as never), "sessionManager.appendSessionInfo: the name must be a string"],
				[
					() => manager.appendLabelChange(leaf, 42 as never),
					"sessionManager.appendLabelChange: the label must be a string",
				],
				[
					() => manager.appendLabelChange(7 as never, "x"),
					"sessionManager.appendLabelChange: the entry id must be a string",
				],
				[
					() => manager.appendCustomEntry(42 as never, {}),
					"sessionManager.appendCustomEntry: customType must be a string",
				],
				[
					() => manager.appendCustomMessageEntry(42 as never, "hi", true),
					"sessionManager.appendCustomMessageEntry: customType must be a string",
				],
				[
					() => manager.appendCustomMessageEntry("note", 42 as never, true),
					"sessionManager.appendCustomMessageEntry: the content must be a string or an array",
				],
				[
					() => manager.appendModelChange(undefined as never, "faux-1"),
					"sessionManager.appendModelChange: provider must be a string",
				],
				[
					() => manager.appendModelChange("faux", 1 as never),
					"sessionManager.appendModelChange: modelId must be a string",
				],
			];
			const entries = manager.getEntries().length;
			for (const [call, mention] of refusals) refusedWithoutWriting(session, call, mention, "Nothing was written.");
			expect(manager.getEntries()).toHaveLength(entries);
		});
	});

	it("branch, navigateTree and appendLabelChange to an id that is not there: NOT_FOUND, nothing written", async () => {
		await withAnsweredSession(async (session) => {
			const file = session.sessionFile!;
			const bytes = readFileSync(file);
			const leaf = session.sessionManager.getLeafId();
			expectSettleError(
				thrown(() => session.sessionManager.branch("nope")),
				"NOT_FOUND",
				"Entry nope not found",
			);
			expectSettleError(
				await session.navigateTree("nope").catch((error: unknown) => error),
				"NOT_FOUND",
				"Entry nope not found",
			);
			expectSettleError(
				thrown(() => session.sessionManager.appendLabelChange("nope", "x")),
				"NOT_FOUND",
			);
			expect(session.sessionManager.getLeafId()).toBe(leaf);
			expect(readFileSync(file).equals(bytes)).toBe(true);
		});
	});
});

describe("session settings", () => {
	it.each([
		["setSteeringMode", "steeringMode"],
		["setFollowUpMode", "followUpMode"],
	] as const)(
		"regression: %s('bogus') threw INVALID_ARGUMENT but the queue had already taken 'bogus' — now nothing changes",
		async (setter, getter) => {
			await withAnsweredSession((session) => {
				const before = session[getter];
				expectSettleError(
					thrown(() => session[setter]("bogus" as never)),
					"INVALID_ARGUMENT",
					'expected one of "all", "one-at-a-time"',
				);
				expect(session[getter]).toBe(before);
			});
		},
	);

	it.each([
		["42", 42, "the scoped models must be an array"],
		['"faux/faux-1" (a string: spread letter by letter)', "faux/faux-1", "the scoped models must be an array"],
		["[{ model: 42 }]", [{ model: 42 }], "scopedModels[0].model: the model must be a model"],
	])(
		"regression: setScopedModels(%s) threw a raw TypeError or stored nonsense — now INVALID_ARGUMENT, the list unchanged",
		async (_label, bad, mention) => {
			await withAnsweredSession((session) => {
				const before = session.scopedModels;
				expectSettleError(
					thrown(() => session.setScopedModels(bad as never)),
					"INVALID_ARGUMENT",
					"session.setScopedModels",
					mention,
				);
				expect(session.scopedModels).toEqual(before);
			});
		},
	);
});
