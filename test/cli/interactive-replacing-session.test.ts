/**
 * `settle -i`: a line typed while an extension is replacing the session (its
 * `session_before_switch` handler still runs) is not refused with the session's "being replaced"
 * BUSY error: the chat holds it and sends it to the session current once the replacement is over —
 * the new one, or the old one when the extension cancelled (src/cli/current-session.ts; the RPC
 * counterpart is rpc-replacing-session.test.ts). The extension's command starts the replacement
 * without awaiting it, so the chat takes lines again while its handler waits for a gate file.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { bannerSessionFile, fileAppears, PROMPT, Repl, transcript } from "./interactive.helpers.js";

const cli = useCliProject("settle-interactive-replacing-");

/** `/renew` starts a new session; the switch waits until the test creates `gate`, then goes through or is cancelled. */
function renewExtension(cancel: boolean): string {
	const extension = join(cli.dir, "renew.ts");
	writeFileSync(
		extension,
		`import { existsSync, writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_before_switch", async (_event, ctx) => {
		writeFileSync("switching", "");
		while (!existsSync("gate")) await new Promise((resolve) => setTimeout(resolve, 5));
		return { cancel: ${cancel} };
	});
	pi.registerCommand("renew", { handler: async (_args, ctx) => { void ctx.newSession(); } });
}
`,
	);
	return extension;
}

describe("settle -i: a line typed during an extension's session replacement", () => {
	for (const cancel of [false, true]) {
		it(`runs on the ${cancel ? "old (cancelled)" : "new"} session once the replacement is over`, async () => {
			const chat = new Repl(["--faux", "-e", renewExtension(cancel)], { cwd: cli.project, agentDir: cli.agentDir });
			await chat.idle(0);
			await chat.say("first", "first\n");
			const oldFile = bannerSessionFile(chat.stdout);

			await chat.say("/renew");
			await fileAppears(cli.project, "switching");
			// The old session is being replaced now: the line is read (echoed) and must wait, not fail.
			const from = chat.mark();
			chat.send("during the switch");
			await chat.until("during the switch\n", from);
			writeFileSync(join(cli.project, "gate"), "");
			// The echo, then (once the switch is over) the faux model's answer: no error, no prompt between.
			expect(await chat.idle(from)).toBe(`during the switch\nduring the switch\n${PROMPT}`);
			expect(chat.stdout).not.toContain("being replaced");
			expect(await chat.end()).toBe(0);

			const files = readdirSync(join(oldFile, "..")).filter((name) => name.endsWith(".jsonl"));
			if (cancel) {
				expect(files).toHaveLength(1);
				expect(transcript(oldFile)).toEqual([
					"user: first",
					"assistant: first",
					"user: during the switch",
					"assistant: during the switch",
				]);
			} else {
				expect(files).toHaveLength(2);
				expect(transcript(oldFile)).toEqual(["user: first", "assistant: first"]);
				const newFile = join(oldFile, "..", files.find((name) => join(oldFile, "..", name) !== oldFile)!);
				expect(transcript(newFile)).toEqual(["user: during the switch", "assistant: during the switch"]);
			}
		});
	}
});
