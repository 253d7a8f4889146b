/**
 * Reports about file tools opening what is not a regular file, replayed with a model's calls in a
 * real session on a real FIFO, and (`pi-peer`) the same call to pi 0.73.1's tool.
 * hermes-agent#82792 (and #82075): `read_file` of a workspace FIFO (`logs/live.pipe`) blocked until
 * the exec timeout, 10 minutes in the worst run; a guard by name (`/dev/*`) cannot see a FIFO at any
 * path. openai-agents-python#4891: `read` and `write` of a FIFO the agent made with `mkfifo` blocked
 * in `open()`, stalling the whole process. In Node the open waits in a thread-pool thread, where no
 * abort reaches it: each such call holds one of the pool's four threads for good.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
let fifos: string[] = [];
afterEach(() => {
	// A tool stuck opening a FIFO (the bug) gets a writer and reader here, so no pool thread stays blocked.
	for (const fifo of fifos) closeSync(openSync(fifo, constants.O_RDWR));
	fifos = [];
	h?.cleanup();
	h = undefined;
});

/** A real FIFO at `path` (made by mkfifo), with no reader or writer; released after the test unless `release` is false. */
function makeFifo(path: string, release = true): string {
	const made = spawnSync("mkfifo", [path]);
	expect(made.status).toBe(0);
	if (release) fifos.push(path);
	return path;
}

/** Runs the model's tool calls, all in one answer, in a real disk session; `prepare` lays out its cwd. */
async function modelCalls(
	prepare: (cwd: string) => void,
	calls: { name: string; args: Record<string, unknown> }[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "write", "edit"] });
	h = harness;
	prepare(harness.tempDir);
	script(harness, [
		fauxAssistantMessage(
			calls.map((call) => fauxToolCall(call.name, call.args)),
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("look at the logs");
	return harness;
}

describe("hermes-agent#82792, openai-agents-python#4891: read and write of a FIFO block forever", () => {
	it("hermes-agent#82792: read of logs/live.pipe (a FIFO, no writer) is refused at once, naming a FIFO; the read of the log beside it in the same answer works and the session goes on", async () => {
		const harness = await modelCalls(
			(cwd) => {
				mkdirSync(join(cwd, "logs"));
				makeFifo(join(cwd, "logs", "live.pipe"));
				writeFileSync(join(cwd, "logs", "app.log"), "started\n");
			},
			[
				{ name: "read", args: { path: "logs/live.pipe" } },
				{ name: "read", args: { path: "logs/app.log" } },
			],
		);
		const [pipe, log] = toolResultTexts(harness);
		expect(pipe?.isError).toBe(true);
		expect(pipe?.text).toContain("live.pipe: it is a FIFO (named pipe), not a regular file");
		expect(pipe?.text).toContain("Nothing was read");
		expect(log).toEqual({ isError: false, text: "started\n" });
		expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("openai-agents-python#4891: write and edit of a FIFO the agent made are refused, nothing changed; it stays a FIFO", async () => {
		const harness = await modelCalls(
			(cwd) => {
				makeFifo(join(cwd, "pipe"));
			},
			[
				{ name: "write", args: { path: "pipe", content: "hello\n" } },
				{ name: "edit", args: { path: "pipe", edits: [{ oldText: "a", newText: "b" }] } },
			],
		);
		const [write, edit] = toolResultTexts(harness);
		expect(write?.isError).toBe(true);
		expect(write?.text).toContain("Cannot write");
		expect(write?.text).toContain("it is a FIFO (named pipe)");
		expect(edit?.isError).toBe(true);
		expect(edit?.text).toContain("Cannot edit");
		expect(lstatSync(join(harness.tempDir, "pipe")).isFIFO()).toBe(true);
		expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("hermes-agent#82792: read of /dev/zero (a device that never ends) is refused as a character device", async () => {
		const harness = await modelCalls(() => {}, [{ name: "read", args: { path: "/dev/zero" } }]);
		const [zero] = toolResultTexts(harness);
		expect(zero?.isError).toBe(true);
		expect(zero?.text).toContain("/dev/zero: it is a character device, not a regular file");
	});

	it("openai-agents-python#4891 (pi-peer): pi 0.73.1's write opens the FIFO and waits for a reader; the content goes to whoever reads it", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-fifo-"));
		try {
			const fifo = makeFifo(join(cwd, "pipe"), false);
			const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
			let read = "";
			reader.stdout.on("data", (chunk: Buffer) => {
				read += chunk.toString();
			});
			const exited = new Promise<number | null>((resolve) => reader.on("close", resolve));
			const tool = pi.createWriteToolDefinition(cwd);
			const result = await tool.execute(
				"c",
				{ path: "pipe", content: "hello\n" },
				undefined,
				undefined,
				undefined as never,
			);
			expect(result.content[0]).toMatchObject({ text: expect.stringContaining("Successfully wrote") });
			expect(await exited).toBe(0);
			expect(read).toBe("hello\n");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
