/**
 * A host listener that fails while an entry is written, replayed against Settle through its public
 * API on a real session file. pi's `appendEntry()` threw when an `entry_appended` listener threw,
 * after the entry was already on disk: the extension could not tell whether its state was saved,
 * and a later process restored an entry it had treated as rejected (pi#6679). What the extension
 * should see: `appendEntry()` returns; the entry is saved once; the listener's failure is reported
 * to the host, not thrown into the extension; the session goes on.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { setListenerErrorHandler } from "../../src/listener-errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, fileEntries, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
let restoreRouting: (() => void) | undefined;
afterEach(() => {
	restoreRouting?.();
	restoreRouting = undefined;
	h?.cleanup();
	h = undefined;
});

describe("pi#6679: appendEntry threw after the entry was durable when an entry_appended listener failed", () => {
	it("pi#6679: with a subscriber that throws on entry_appended, pi.appendEntry() returns, the entry is saved once and restored on reopen, the failure reaches the host's handler, and the session answers on", async () => {
		const reported: SettleError[] = [];
		restoreRouting = setListenerErrorHandler((warning) => reported.push(warning));
		let api!: ExtensionAPI;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		script(h, [fauxAssistantMessage("answered")]);
		h.session.subscribe((event) => {
			if (event.type === "entry_appended") throw new Error("the mirror is down");
		});

		expect(() => api.appendEntry("goal-state", { version: 1 })).not.toThrow();
		const saved = () => fileEntries(h!.session.sessionFile!).filter((entry) => entry.customType === "goal-state");
		await h.session.prompt("next step");
		expect(saved()).toHaveLength(1);
		expect(reported).toHaveLength(1);
		expect(reported[0]).toMatchObject({
			code: "LISTENER",
			cause: new Error("the mirror is down"),
			details: { source: "session.subscribe" },
		});
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answered" }] });

		const reopened = SessionManager.open(h.session.sessionFile!, { readOnly: true });
		expect(reopened.getEntries().filter((entry) => entry.type === "custom")).toEqual([
			expect.objectContaining({ customType: "goal-state", data: { version: 1 } }),
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
