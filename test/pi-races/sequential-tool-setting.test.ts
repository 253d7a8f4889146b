/**
 * little-coder#99, pi#3274: pi runs the tool calls of one answer in parallel, and a CLI user has no
 * way to change that (only the SDK's `toolExecution`): a local model that answers "mkdir build",
 * "write build/out.txt", "cat build/out.txt" at once, assuming each call sees the one before, got
 * commands running out of order and failing. What the user should see: `"toolExecution":
 * "sequential"` in `settings.json` runs them one after another, in the calls' order. Replayed
 * against a real `settle -p --mode json` child process on a scripted faux model.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { script } from "./helpers.js";

const cli = useCliProject("settle-pi-races-sequential-");

/** A guard against a hang only (the run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

/** One answer with three bash calls, each needing the one before, then "done". */
const DEPENDENT_CALLS = [
	{
		toolCalls: [
			{ name: "bash", arguments: { command: "mkdir build" } },
			{ name: "bash", arguments: { command: "echo built > build/out.txt" } },
			{ name: "bash", arguments: { command: "cat build/out.txt" } },
		],
	},
	"done",
];

/** Runs the script in `settle -p --mode json` with `settings` as the global settings.json. */
function run(settings: Record<string, unknown>): {
	code: number | null;
	events: Record<string, unknown>[];
	stderr: string;
} {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify(settings));
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify(DEPENDENT_CALLS));
	const result = runSettle(
		["--faux-script", script, "--tools", "bash", "--no-session", "--mode", "json", "-p", "build it"],
		{
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		},
	);
	const events = result.stdout
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
	return { code: result.code, events, stderr: result.stderr };
}

/** The tool events in the order they came: `start:<command>` / `end:<command>`. */
function toolTimeline(events: Record<string, unknown>[]): string[] {
	const commands = new Map<string, string>();
	return events.flatMap((event) => {
		if (event.type === "tool_execution_start") {
			commands.set(event.toolCallId as string, (event.args as { command: string }).command);
			return [`start:${commands.get(event.toolCallId as string)}`];
		}
		if (event.type === "tool_execution_end") return [`end:${commands.get(event.toolCallId as string)}`];
		return [];
	});
}

describe("little-coder#99, pi#3274: no way for a CLI user to run an answer's tool calls one after another", () => {
	it('little-coder#99: with "toolExecution": "sequential" in settings.json, mkdir, write and cat run one after another and cat prints the file', () => {
		const { code, events, stderr } = run({ toolExecution: "sequential" });
		expect(stderr).toBe("");
		expect(code).toBe(0);
		expect(toolTimeline(events)).toEqual([
			"start:mkdir build",
			"end:mkdir build",
			"start:echo built > build/out.txt",
			"end:echo built > build/out.txt",
			"start:cat build/out.txt",
			"end:cat build/out.txt",
		]);
		const ends = events.filter((event) => event.type === "tool_execution_end") as {
			isError: boolean;
			result: { content: { text: string }[] };
		}[];
		expect(ends.map((end) => end.isError)).toEqual([false, false, false]);
		expect(ends[2]!.result.content[0]!.text).toBe("built\n");
		expect(readFileSync(join(cli.project, "build", "out.txt"), "utf8")).toBe("built\n");
	});

	it("little-coder#99: without the setting the three calls start together, as in pi (parallel stays the default)", () => {
		const { code, events } = run({});
		expect(code).toBe(0);
		expect(toolTimeline(events).slice(0, 3)).toEqual([
			"start:mkdir build",
			"start:echo built > build/out.txt",
			"start:cat build/out.txt",
		]);
	});

	it('little-coder#99: "toolExecution": "serial" stops settle before any tool runs, naming the file, the key and its two values', () => {
		const { code, events, stderr } = run({ toolExecution: "serial" });
		const refusal = `Invalid setting "toolExecution" in ${join(cli.agentDir, "settings.json")}: expected one of "parallel", "sequential", got "serial". Fix or remove it; settle does not start until then.`;
		expect(code).toBe(1);
		// No tool event: the --json stream is only the refusal (opencode#27559).
		expect(events).toEqual([{ type: "error", message: refusal }]);
		expect(stderr).toContain(refusal);
		expect(() => readFileSync(join(cli.project, "build", "out.txt"))).toThrow(/ENOENT/);
	});

	it("little-coder#99: the setting changed while settle runs applies from the next answer on after a reload", async () => {
		const h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		try {
			const timeline: string[] = [];
			h.session.subscribe((event) => {
				if (event.type === "tool_execution_start") timeline.push(`start:${event.toolCallId}`);
				if (event.type === "tool_execution_end") timeline.push(`end:${event.toolCallId}`);
			});
			const calls = fauxAssistantMessage(
				[
					fauxToolCall("bash", { command: "mkdir build" }, { id: "mkdir" }),
					fauxToolCall("bash", { command: "echo built > build/out.txt" }, { id: "write" }),
				],
				{ stopReason: "toolUse" },
			);
			script(h, [calls, fauxAssistantMessage("done")]);
			h.settingsManager.applyOverrides({ toolExecution: "sequential" });
			await h.session.reload();
			await h.session.prompt("build it");
			expect(timeline).toEqual(["start:mkdir", "end:mkdir", "start:write", "end:write"]);
			expect(readFileSync(join(h.tempDir, "build", "out.txt"), "utf8")).toBe("built\n");
		} finally {
			h.cleanup();
		}
	});
});
