/**
 * A `/skill:name` or a prompt template sent while the model is answering, queued as a follow-up
 * behind a plain message. Replayed through the public runtime on real files (a project skill and
 * template), the faux model answering.
 *
 * jazz#569, qwen-code#3523: a slash command queued while the agent was busy was drained with the
 * queue as plain text, so the model got `/review b.ts` to answer instead of what it stands for.
 * oh-my-pi#11037: a queued `/skill:*` did not wait in the follow-up queue like other prompts; it
 * went ahead of the follow-up queued before it. What the user should see: each queued message
 * reaches the model in the order it was sent, the skill and template expanded as if typed when
 * idle, never their slash text. Settle expands them when they are queued (as pi does) and keeps
 * one queue order.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";
import { userTexts } from "./helpers.js";

const perTest = runtimePerTest();

describe("jazz#569: slash commands queued while the model answers", () => {
	it("jazz#569, qwen-code#3523, oh-my-pi#11037: a note, `/skill:lint src/a.ts` and `/review b.ts` queued as follow-ups mid-answer reach the model in that order, expanded", async () => {
		const ws = perTest.workspace();
		const skillFile = join(ws.alpha, ".settle", "skills", "lint", "SKILL.md");
		mkdirSync(join(skillFile, ".."), { recursive: true });
		writeFileSync(skillFile, "---\nname: lint\ndescription: Lints a file\n---\nLINT BODY\n");
		mkdirSync(join(ws.alpha, ".settle", "prompts"), { recursive: true });
		writeFileSync(join(ws.alpha, ".settle", "prompts", "review.md"), "Review $1 for bugs.\n");
		const faux = createFauxProvider();
		const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
		const session = runtime.session;
		faux.setResponses([
			async () => {
				// Sent while this answer streams: queued, not run.
				await session.followUp("a plain note");
				await session.followUp("/skill:lint src/a.ts");
				await session.followUp("/review b.ts");
				return fauxAssistantMessage("first answer");
			},
			fauxAssistantMessage("second"),
			fauxAssistantMessage("third"),
			fauxAssistantMessage("fourth"),
		]);

		await session.prompt("start");
		await session.waitForIdle();

		const sent = userTexts(faux.requests.at(-1)!);
		expect(sent).toEqual([
			"start",
			"a plain note",
			`<skill name="lint" location="${skillFile}">\nReferences are relative to ${join(skillFile, "..")}.\n\nLINT BODY\n</skill>\n\nsrc/a.ts`,
			"Review b.ts for bugs.\n",
		]);
		expect(faux.requests.flatMap((request) => userTexts(request)).some((text) => text.startsWith("/"))).toBe(false);
	});
});
