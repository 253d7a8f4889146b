/**
 * `settle --json` stopped (SIGINT) while a retried request streams: the retry ends as cancelled,
 * `auto_retry_end{success: false, finalError: "Retry cancelled"}`, as an abort in its backoff does
 * (pi 0.73.1 reports `success: true` there: DELIBERATE_ABORTED_RETRY_CANCELLED). A real `settle`
 * process; the model is an extension's provider whose first answer is a 503 and whose retried
 * answer streams until it is aborted (the faux model answers at once, so it cannot be stopped half-way).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";
import { slowProvider } from "./slow-provider.js";

const cli = useCliProject("settle-retry-abort-");

const FLAKY_PROVIDER = slowProvider({ name: "flaky", failFirstWith: "503 service unavailable", holdsConnection: true });

type JsonEvent = { type: string; [key: string]: unknown };

describe("settle --json: SIGINT while the retried request streams", () => {
	it("regression: the stream said auto_retry_end{success:true} after the user stopped the retry; now success:false, Retry cancelled", async () => {
		const extension = join(cli.dir, "flaky.ts");
		writeFileSync(extension, FLAKY_PROVIDER);
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const child: ChildProcessWithoutNullStreams = spawn(
			process.execPath,
			[...cliCommand(), "-e", extension, "--model", "flaky/flaky-1", "--no-session", "--json", "go"],
			{ cwd: cli.project, env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir } },
		);
		child.stdin.end();
		let stderr = "";
		child.stderr.on("data", (chunk) => {
			stderr += String(chunk);
		});
		const exited = trackChild(child);
		const events: JsonEvent[] = [];
		const lines = createInterface({ input: child.stdout });
		let interrupted = false;
		lines.on("line", (text) => {
			const event = JSON.parse(text) as JsonEvent;
			events.push(event);
			// The retried request is streaming: the user presses Ctrl+C.
			if (!interrupted && event.type === "message_update" && events.some((e) => e.type === "auto_retry_start")) {
				interrupted = true;
				child.kill("SIGINT");
			}
		});
		const closed = new Promise<void>((resolve) => lines.on("close", resolve));
		const code = await exited;
		await closed;
		expect([code, stderr]).toEqual([130, ""]);
		expect(events.filter((event) => event.type.startsWith("auto_retry"))).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 1, errorMessage: "503 service unavailable" },
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
		]);
		const end = events.findIndex((event) => event.type === "auto_retry_end");
		expect(events[end - 1]).toMatchObject({ type: "message_end", message: { stopReason: "aborted" } });
		expect(events.at(-1)).toEqual({ type: "agent_settled" });
	});
});
