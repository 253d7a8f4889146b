/**
 * Found by seedhunt7 in the RPC differential (seed -1740213 path 39, on a loaded machine): after an
 * abort, Settle's bash makes sure the command's processes are gone by reading /proc/<pid>/stat of
 * every process on the machine. Read one after another, each read waited for turns of a busy event
 * loop, so the check outlasted the agent loop's 1000 ms abort grace, and Settle's own bash, which
 * had killed its command at once, was reported as a tool that ignored the abort ("did not stop
 * within 1000 ms … its result was discarded") instead of "Command aborted". Here the event loop is
 * kept busy in slices of 5 ms (an embedding app rendering, other sessions of the process) and a
 * hundred extra processes stand in for a machine running other programs; all are real.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import type { AgentSessionEvent } from "../../src/index.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/testing/index.js";
import { diskSessionsPerTest, eventWhere, type ManualProvider } from "./disk-harness.js";
import { markedSleepCommand, markersPerTest } from "./processes.js";

const sessions = diskSessionsPerTest();
const marker = markersPerTest();

/** A hundred sleeping processes (they carry `mark`, so afterEach ends them); resolves once all are forked. */
async function otherProcesses(mark: string): Promise<ChildProcess> {
	const shell = spawn("sh", ["-c", "for i in $(seq 100); do sleep 300 & done; echo forked; wait"], {
		env: { ...process.env, [mark]: "1" },
		stdio: ["ignore", "pipe", "ignore"],
	});
	await once(shell.stdout, "data");
	return shell;
}

/** Keeps the event loop busy, 5 ms at a time, until the returned function is called. */
function busyEventLoop(): () => void {
	let running = true;
	const slice = (): void => {
		if (!running) return;
		const until = performance.now() + 5;
		while (performance.now() < until) {
			// busy, as a renderer or another session would be
		}
		setImmediate(slice);
	};
	setImmediate(slice);
	return () => {
		running = false;
	};
}

function bashCall(provider: ManualProvider, command: string) {
	return {
		...fauxAssistantMessage([fauxToolCall("bash", { command }, { id: "call-b" })], { stopReason: "toolUse" }),
		api: provider.model.api,
		provider: provider.model.provider,
		model: provider.model.id,
	};
}

describe("abort while the event loop is busy", () => {
	it("seedhunt7 (RPC differential seed -1740213): an aborted bash command ends as 'Command aborted', not as a tool that ignored the abort", async () => {
		const mark = marker();
		await otherProcesses(mark);
		// Real timers: the abort grace must run on the same busy event loop as the check.
		const s = await sessions.session({ clock: undefined });
		s.provider.answer(bashCall(s.provider, markedSleepCommand(mark)));
		const ready = eventWhere(
			s.session,
			(event: AgentSessionEvent) =>
				event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("ready"),
		);
		const done = s.session.prompt("run it");
		await ready;
		const stopBusy = busyEventLoop();
		try {
			await s.session.abort();
			await done;
		} finally {
			stopBusy();
		}
		const end = s.events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "call-b", isError: true });
		expect(JSON.stringify(end)).toContain("Command aborted");
		expect(JSON.stringify(end)).not.toContain("did not stop within");
	});
});
