/**
 * pi#4546, replayed: a process killed while it held the lock of a shared settings file left the
 * lock behind, and the next pi instances waited on a lock nobody would release. Here the holder is a
 * real process saving `settings.json` through Settle's own path, SIGKILLed in the middle of the save;
 * then a real `settle -i` saves a setting: its save waits until the lock is stale (10 s without a
 * refresh, proper-lockfile's rule, which pi's own locks follow too) and takes it over. The crash is
 * dated 7 s back, so that the test waits the last seconds of the stale time, not all ten.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT, trackChild, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-crashed-lock-holders-");

/** A real process that takes `file`'s lock through Settle's save path, says `locked`, and never lets go. */
async function holderKilledMidSave(file: string): Promise<void> {
	const script = join(cli.dir, "holder.ts");
	const jsonFile = pathToFileURL(join(ROOT, "src/settings/json-file.ts")).href;
	writeFileSync(
		script,
		`import { updateJsonObjectFile } from ${JSON.stringify(jsonFile)};
updateJsonObjectFile(${JSON.stringify(file)}, () => {
	process.stdout.write("locked\\n");
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}, { what: "a setting" });
`,
	);
	const holder = spawn(
		process.execPath,
		["--import", pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href, script],
		{ stdio: ["ignore", "pipe", "inherit"] },
	);
	const exited = trackChild(holder);
	await new Promise<void>((locked) =>
		createInterface({ input: holder.stdout }).on("line", (line) => {
			if (line === "locked") locked();
		}),
	);
	holder.kill("SIGKILL");
	await exited;
}

describe("pi#4546: a lock left by a crashed process keeps every later instance waiting", () => {
	it("pi#4546: a process SIGKILLed while saving settings.json left its lock; settle -i's /thinking high takes it over once stale and saves, keeping the file's other keys, and leaves no lock", async () => {
		// A model that can think; /thinking sends no request.
		writeLocalProvider(cli.agentDir, "http://127.0.0.1:9/v1", { models: [{ id: "coder", reasoning: true }] });
		const settings = join(cli.agentDir, "settings.json");
		writeFileSync(settings, `${JSON.stringify({ hideThinkingBlock: true })}\n`);
		await holderKilledMidSave(settings);
		const lock = `${settings}.lock`;
		expect(existsSync(lock)).toBe(true);
		const crashedAt = new Date(Date.now() - 7_000);
		utimesSync(lock, crashedAt, crashedAt);

		const chat = new Repl(["--model", "local/coder", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const answer = await chat.say("/thinking high");
		expect(answer).toContain("Thinking: high");
		expect(answer).not.toContain("Error");
		expect(JSON.parse(readFileSync(settings, "utf8"))).toMatchObject({
			hideThinkingBlock: true,
			defaultThinkingLevel: "high",
		});
		expect(await chat.end()).toBe(0);
		expect(existsSync(lock)).toBe(false);
	});
});
