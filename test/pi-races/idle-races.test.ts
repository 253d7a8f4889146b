/**
 * Reports about a session that says it is idle (or busy) when it is not, replayed against Settle:
 * a steer sent while only a user `!` command runs (gajae-code#4739), and a manual compaction whose
 * `session_compact` handler is still running (pi-powerline-footer#198). What the user should see:
 * `isIdle` and what `prompt()` accepts agree, and an accepted message is answered without a
 * later, unrelated interaction.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { gate, script, timesPersisted, userTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("gajae-code#4739: a steer accepted while a user bash command runs is never delivered", () => {
	it("gajae-code#4739: a line steered while only a `!` command runs is answered at once; an SDK steer() then is listed and reaches the next run once", async () => {
		h = await createHarness({ persistence: "disk" });
		const harness = h;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("hello"),
			fauxAssistantMessage("answered the steered line"),
			fauxAssistantMessage("answered the next prompt"),
		]);
		await harness.session.prompt("hi");
		const fifo = join(harness.session.sessionManager.getCwd(), "release.fifo");
		execFileSync("mkfifo", [fifo]);
		let started!: () => void;
		const running = new Promise<void>((resolve) => (started = resolve));
		const bash = harness.session.executeBash(`echo started; read line < ${fifo}; echo "got $line"`, (chunk) => {
			if (chunk.includes("started")) started();
		});
		await running;
		expect(harness.session.isBashRunning).toBe(true);
		expect(harness.session.isIdle).toBe(true);
		// What `settle -i` sends for a line typed now: it runs, the command still going.
		await harness.session.prompt("look at the failing test", { streamingBehavior: "steer" });
		expect(userTexts(answerRequests[1]!).at(-1)).toBe("look at the failing test");
		// The SDK's steer() on an idle session waits, listed, for the next run (never dropped).
		await harness.session.steer("also check the logs");
		expect(harness.session.getSteeringMessages()).toEqual(["also check the logs"]);
		// The command ends (a real process reading its FIFO); its output joins the log.
		execFileSync("sh", ["-c", `echo go > ${fifo}`]);
		expect(await bash).toMatchObject({ exitCode: 0, cancelled: false });
		expect(harness.session.messages.some((m) => m.role === "bashExecution")).toBe(true);
		await harness.session.prompt("next");
		expect(harness.session.getSteeringMessages()).toEqual([]);
		expect(answerRequests.filter((request) => userTexts(request).includes("also check the logs"))).toHaveLength(1);
		expect(timesPersisted(harness.session.sessionFile!, "also check the logs")).toBe(1);
		expect(timesPersisted(harness.session.sessionFile!, "look at the failing test")).toBe(1);
		expect(harness.session.isIdle).toBe(true);
	});
});

describe("pi-powerline-footer#198: pi reports idle during a held session_compact handler while rejecting prompts", () => {
	it("pi-powerline-footer#198: an extension that sends its queued prompt once ctx.isIdle() is true, checked from session_compact, gets it answered, never refused", async () => {
		const handlerRunning = gate();
		const releaseHandler = gate();
		const seen: { ctxIdle: boolean; sessionIdle: boolean }[] = [];
		let api!: ExtensionAPI;
		let context!: ExtensionContext;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
					pi.on("session_compact", async (_event, ctx) => {
						context = ctx;
						seen.push({ ctxIdle: ctx.isIdle(), sessionIdle: harness().session.isIdle });
						handlerRunning.release();
						await releaseHandler.promise;
					});
				},
			],
		});
		const harness = () => h!;
		const { answerRequests } = script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			fauxAssistantMessage("answer to the queued prompt"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacted = h.session.compact();
		await handlerRunning.promise;
		// The compaction is written, its handler still runs: the extension and the session say the same.
		expect(seen).toEqual([{ ctxIdle: false, sessionIdle: false }]);
		expect(await h.session.prompt("typed too early").catch((error: unknown) => error)).toMatchObject({ code: "BUSY" });
		releaseHandler.release();
		await compacted;
		// The extension's delivery check (powerline's), once the session says idle: accepted and answered.
		await h.session.waitForIdle();
		expect(context.isIdle()).toBe(true);
		api.sendUserMessage("queued during /compact");
		await h.session.waitForIdle();
		expect(h.extensionErrors).toEqual([]);
		expect(userTexts(answerRequests.at(-1)!).at(-1)).toBe("queued during /compact");
		expect(timesPersisted(h.session.sessionFile!, "queued during /compact")).toBe(1);
		expect(timesPersisted(h.session.sessionFile!, "typed too early")).toBe(0);
	});
});
