/**
 * pi#5678: display-only extension output (a status card, a nudge record) kept as a custom entry
 * with `pi.appendEntry()`; pi's maintainers settled on custom entries for it and fixed, on the
 * way, an entry appended while the assistant streams: live it showed after the answer, on reload
 * before it. Replayed with a real `.ts` extension in the real `settle` CLI, three processes on one
 * session file: `-p`, then `-c -p`, then `--fork <file> -p`; the extension appends one entry at the
 * first `message_update` of each run and records what `ctx.sessionManager.getEntries()` holds at
 * `agent_end` (live) and at the next `session_start` (read back), and whether the data ever
 * reaches the model (`context`). What the author should see: the entry where it was appended,
 * before the answer that was streaming, in the same place live, after the reload, and in the
 * fork; never in what the model is sent.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-custom-entries-");

const NOTES = `import { appendFileSync } from "node:fs";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const log = (what: string, value: unknown) =>
		appendFileSync(process.env.NOTES_LOG as string, \`\${JSON.stringify([what, value])}\\n\`);
	const shape = (ctx: ExtensionContext) =>
		ctx.sessionManager
			.getEntries()
			.filter((entry) => entry.type === "message" || entry.type === "custom")
			.map((entry) => (entry.type === "message" ? entry.message.role : \`custom:\${entry.customType}\`));
	let noted = false;
	pi.on("message_update", () => {
		if (noted) return;
		noted = true;
		pi.appendEntry("status-card", { note: "indexed 17 files" });
	});
	pi.on("context", (event) => log("context sends the card", JSON.stringify(event.messages).includes("indexed 17 files")));
	pi.on("agent_end", (_event, ctx) => log("agent_end", shape(ctx)));
	pi.on("session_start", (_event, ctx) => log("session_start", shape(ctx)));
}
`;

describe("pi#5678: custom entries appended while the answer streams", () => {
	it("pi#5678: an entry appended at message_update sits before the streaming answer live, after -c, and in a --fork; the model never gets it", () => {
		const extension = join(cli.dir, "notes.ts");
		writeFileSync(extension, NOTES);
		const log = join(cli.dir, "notes.log");
		const settle = (args: string[]) => {
			const run = runSettle(["--faux", "-e", extension, ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
				env: { NOTES_LOG: log },
			});
			expect(run.code).toBe(0);
			return run;
		};
		settle(["-p", "index the repo"]);
		settle(["-c", "-p", "and again"]);
		const files = readdirSync(cli.agentDir, { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		expect(files).toHaveLength(1);
		const file = join(cli.agentDir, files[0] as string);
		settle(["--fork", file, "-p", "in the fork"]);

		const turn = ["user", "custom:status-card", "assistant"];
		// Settle records the system prompt the first request went out with (a "system" message entry).
		const first = ["system", ...turn];
		expect(
			readFileSync(log, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line)),
		).toEqual([
			["session_start", []],
			["context sends the card", false],
			["agent_end", first],
			["session_start", first],
			["context sends the card", false],
			["agent_end", [...first, ...turn]],
			["session_start", [...first, ...turn]],
			["context sends the card", false],
			["agent_end", [...first, ...turn, ...turn]],
		]);
	});
});
