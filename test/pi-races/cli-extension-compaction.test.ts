/**
 * pi-extensions#31 (ogulcancelik/pi-extensions, pi-codex-compaction 0.1.3): to compact mid-run, the
 * extension calls `ctx.abort()` and `ctx.compact()` from `turn_end`, then
 * `pi.sendUserMessage("Compaction completed. Continue.")` from the compaction's `onComplete`. In an
 * interactive host that works; in `-p` / `--mode json` the aborted prompt returns, the process shuts
 * down and exits, and the compaction and the continuation never run — a subagent's work silently
 * stops. What the user should see: the one-shot process waits for the work its extensions started
 * (the compaction, then the continued run) and prints the continued answer.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { ABORT_COMPACT_CONTINUE } from "./helpers.js";

const cli = useCliProject("settle-pi-races-cli-compaction-");

/** A guard against a hang only (the run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

describe("pi-extensions#31: abort + compact + continue from an extension ends a -p / --mode json run early", () => {
	for (const mode of ["text", "json"] as const) {
		it(`pi-extensions#31: settle --mode ${mode} -p waits for the compaction the extension started mid-run and the continued run, then exits 0`, () => {
			mkdirSync(cli.agentDir, { recursive: true });
			// Small enough to compact the one exchange the run has.
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
			const log = join(cli.dir, "extension.log");
			writeFileSync(log, "");
			const extension = join(cli.dir, "compact-mid-run.mjs");
			writeFileSync(extension, ABORT_COMPACT_CONTINUE(log));
			// A tool call, then the faux model echoes: the summaries, and the continuation's answer.
			const script = join(cli.dir, "script.json");
			writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "ls", arguments: {} }] }]));
			const sessionFile = join(cli.dir, "subagent.jsonl");
			const run = runSettle(
				["--faux-script", script, "-e", extension, "--session", sessionFile, "--mode", mode, "-p", "list the files"],
				{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS },
			);
			expect(run.code).toBe(0);
			expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["compacted", "shutdown"]);
			if (mode === "text") {
				expect(run.stdout).toBe("Compaction completed. Continue.\n");
			} else {
				const types = run.stdout
					.trim()
					.split("\n")
					.map((line) => (JSON.parse(line) as { type: string }).type);
				// The stream shows the compaction and the continued run, and ends with its settlement.
				expect(types.filter((type) => type === "compaction_end")).toHaveLength(1);
				expect(types.indexOf("compaction_end")).toBeLessThan(types.lastIndexOf("agent_start"));
				expect(types.at(-1)).toBe("agent_settled");
			}
			// Saved in order: the aborted turn, the compaction, the continuation and its answer.
			expect(existsSync(sessionFile)).toBe(true);
			const saved = readFileSync(sessionFile, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as { type: string; message?: { role: string; stopReason?: string } })
				.flatMap((entry) =>
					entry.type === "compaction"
						? ["compaction"]
						: entry.type === "message" && entry.message!.role !== "system"
							? [`${entry.message!.role}${entry.message!.stopReason ? ` ${entry.message!.stopReason}` : ""}`]
							: [],
				);
			expect(saved).toEqual([
				"user",
				"assistant toolUse",
				"toolResult",
				"assistant aborted",
				"compaction",
				"user",
				"assistant stop",
			]);
		});
	}
});
