/**
 * pi#6621: the system prompt carries the current date (and cwd); a prompt rebuilt with a new date
 * changes the cached prefix, and on a slow local model the whole context is prefilled again.
 * Settle records the prompt in the transcript and sends the recorded one until the loadout
 * changes, so a live session that crosses midnight keeps its prompt byte for byte. The wall clock
 * cannot cross midnight in a test: only `Date` is faked, everything else runs for real.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { type LiveProject, openProject } from "../session/env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	vi.useRealTimers();
	p?.cleanup();
	p = undefined;
});

const dateOf = (prompt: string | undefined) => prompt?.match(/Current date: (\S+)/)?.[1];

describe("pi#6621: a session crossing midnight keeps its system prompt", () => {
	it("the request after midnight carries the same prompt; a resumed session records the new date once", async () => {
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(new Date(2026, 11, 4, 23, 59, 30));
		p = await openProject({ files: { "AGENTS.md": "Project rules." } });
		p.faux.setResponses([fauxAssistantMessage("before"), fauxAssistantMessage("after")]);
		await p.session.prompt("before midnight");
		vi.setSystemTime(new Date(2026, 11, 5, 0, 0, 30));
		await p.session.prompt("after midnight");
		const [first, second] = p.faux.requests.map((request) => request.systemPrompt);
		expect(dateOf(first)).toBe("2026-12-04");
		expect(second).toBe(first);
		const file = p.session.sessionFile!;
		expect(readFileSync(file, "utf8").match(/"role":"system"/g)).toHaveLength(1);

		// Resumed (the next day): the new date is recorded once, as a patch, and then stays.
		p = await p.reopen();
		p.faux.setResponses([fauxAssistantMessage("resumed"), fauxAssistantMessage("again")]);
		await p.session.prompt("resumed");
		await p.session.prompt("again");
		const [, , third, fourth] = p.faux.requests.map((request) => request.systemPrompt);
		expect(dateOf(third)).toBe("2026-12-05");
		expect(fourth).toBe(third);
		expect(third!.replace("2026-12-05", "2026-12-04")).toBe(first);
		expect(readFileSync(file, "utf8").match(/"role":"system"/g)).toHaveLength(2);
	});
});
