/**
 * pi's report about its RPC client swallowing refusals, replayed with `settle/rpc`'s RpcClient (and,
 * as the control, pi 0.73.1's own client) driving a real `settle --rpc` child process that writes a
 * real session file. pi#9314: `await client.setSessionName("")` resolved although the server answered
 * `success: false` ("Session name cannot be empty"): the client's shared send resolved failed
 * responses and only methods that read data checked them, so every void method lost its refusal. What
 * the caller should see: a refused command rejects with the server's text; nothing was changed, and
 * the name that was accepted is the one in the file.
 */
import { readFileSync } from "node:fs";
import { RpcClient as PiRpcClient } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/rpc/index.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { cliCommand, useCliProject } from "../cli/helpers.js";
import { rejection } from "../rejection.js";

const cli = useCliProject("settle-pi-races-rpc-client-refusals-");

const clients: { stop(): Promise<void> }[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map((client) => client.stop()));
});

/** The `session_info` names written to a session file, in order. */
function namesInFile(file: string): unknown[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as { type: string; name?: unknown })
		.filter((entry) => entry.type === "session_info")
		.map((entry) => entry.name);
}

describe("pi#9314: RpcClient silently accepts failed commands", () => {
	it("pi#9314: settle/rpc's RpcClient: setSessionName('') and a bad setSteeringMode reject with COMMAND_FAILED and the server's text; nothing changes; the accepted name is the file's only one", async () => {
		const client = new RpcClient({
			command: [process.execPath, ...cliCommand(), "--rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux"],
		});
		clients.push(client);
		await client.start();
		await client.promptAndWait("hi");

		const empty = await rejection(client.setSessionName(""));
		expect(empty.code).toBe("COMMAND_FAILED");
		expect(empty.message).toBe("Session name cannot be empty");
		expect((await rejection(client.setSessionName("   "))).message).toBe("Session name cannot be empty");
		const mode = await rejection(client.setSteeringMode("sometimes" as never));
		expect(mode.code).toBe("COMMAND_FAILED");
		expect(mode.message).toMatch(/^set_steering_mode: "mode" must be "all" or "one-at-a-time"/);
		expect(await client.getState()).toMatchObject({ steeringMode: "one-at-a-time" });
		expect((await client.getState()).sessionName).toBeUndefined();

		await client.setSessionName("release notes");
		const state = await client.getState();
		expect(state.sessionName).toBe("release notes");
		await client.stop();
		expect(namesInFile(state.sessionFile!)).toEqual(["release notes"]);
	});

	it("pi#9314 (control): pi 0.73.1's own RpcClient resolves setSessionName('') although settle --rpc refused it; the name stays unset", async () => {
		const pi = new PiRpcClient({
			cliPath: cliBundle(),
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux", "--no-session"],
		});
		clients.push(pi);
		await pi.start();
		await expect(pi.setSessionName("")).resolves.toBeUndefined();
		expect((await pi.getState()).sessionName).toBeUndefined();
	});
});
