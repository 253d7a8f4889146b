/**
 * `deliverAs: "nextTurn"` custom messages live in memory only (as in pi 0.73.1; oh-my-pi#10311):
 * a session disposed — by its host, or by a runtime replacing it — before a prompt took them does
 * not deliver them. They used to vanish without a trace; now `dispose()` returns them and
 * `getNextTurnMessages()` still lists them, so a host can send them again on the next session.
 * The session file is unchanged: pi opens it and builds the same context.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { createWorkspace, loggingFactory, startRuntime, type Workspace } from "../runtime/helpers.js";

let h: Harness | undefined;
let ws: Workspace | undefined;
let runtime: AgentSessionRuntime | undefined;
afterEach(async () => {
	h?.cleanup();
	h = undefined;
	await runtime?.dispose();
	runtime = undefined;
	ws?.cleanup();
	ws = undefined;
});

const note = (text: string) => ({ customType: "note", content: text, display: true });

describe("nextTurn custom messages at dispose", () => {
	it("regression: dispose() dropped them without a word; now it returns them and getNextTurnMessages() lists them", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		await h.session.prompt("one");
		await h.session.sendCustomMessage(note("taken by the next prompt"), { deliverAs: "nextTurn" });
		expect(h.session.getNextTurnMessages()).toMatchObject([{ role: "custom", content: "taken by the next prompt" }]);
		await h.session.prompt("two");
		// Taken: delivered with "two", and no longer listed.
		expect(h.session.getNextTurnMessages()).toEqual([]);
		expect(h.session.messages.some((m) => m.role === "custom" && m.content === "taken by the next prompt")).toBe(true);

		await h.session.sendCustomMessage(note("left behind 1"), { deliverAs: "nextTurn" });
		await h.session.sendCustomMessage(note("left behind 2"), { deliverAs: "nextTurn" });
		const file = h.session.sessionFile!;
		const before = readFileSync(file, "utf8");
		const undelivered = h.session.dispose();
		expect(undelivered).toMatchObject([
			{ role: "custom", customType: "note", content: "left behind 1", display: true },
			{ role: "custom", customType: "note", content: "left behind 2", display: true },
		]);
		// Still listed after dispose (a second dispose() says the same); nothing was written for them.
		expect(h.session.getNextTurnMessages()).toEqual(undelivered);
		expect(h.session.dispose()).toEqual(undelivered);
		expect(readFileSync(file, "utf8")).toBe(before);
		expect(before).not.toContain("left behind");
	});

	it("a runtime's newSession() disposes the old session: the old one still lists what it did not deliver", async () => {
		ws = createWorkspace();
		const faux: FauxProvider = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("answer")]);
		runtime = await startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha);
		const old = runtime.session;
		await old.prompt("hello");
		await old.sendCustomMessage(note("for the next turn"), { deliverAs: "nextTurn" });
		await runtime.newSession();
		expect(runtime.session).not.toBe(old);
		expect(old.getNextTurnMessages()).toMatchObject([{ role: "custom", content: "for the next turn" }]);
		expect(runtime.session.getNextTurnMessages()).toEqual([]);
	});
});
