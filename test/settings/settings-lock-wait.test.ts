/**
 * A save while another process holds `settings.json`'s lock waits for it. The wait used to end after
 * half a second (20 tries, 25 ms apart): with several processes saving at once on a busy machine,
 * the last in line failed with `IO` "another process keeps it locked" and its setting was lost (seen
 * as a rare failure of the pi#7384 six-writer test in `test/pi-races/startup.test.ts`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { workspace } from "./helpers.js";

const ROOT = join(import.meta.dirname, "../..");

describe("a save waits for another process's lock on settings.json", () => {
	it("another process holds the lock for 1.5 s while saving: this process's save waits, and both settings are kept", async () => {
		const { cwd, agentDir } = workspace();
		const file = join(agentDir, "settings.json");
		writeFileSync(file, "{}\n");
		const ready = join(agentDir, "holder.ready");
		const script = join(agentDir, "holder.ts");
		const jsonFile = pathToFileURL(join(ROOT, "src/settings/json-file.ts")).href;
		writeFileSync(
			script,
			`import { writeFileSync } from "node:fs";
import { updateJsonObjectFile } from ${JSON.stringify(jsonFile)};
updateJsonObjectFile(${JSON.stringify(file)}, (settings) => {
	settings.theme = "light";
	writeFileSync(${JSON.stringify(ready)}, "");
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
}, { what: "the theme" });
`,
		);
		const holder = spawn(
			process.execPath,
			["--import", pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href, script],
			{ stdio: ["ignore", "ignore", "pipe"] },
		);
		let stderr = "";
		holder.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const exited = new Promise<number | null>((done) => holder.on("exit", done));
		while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));

		SettingsManager.create(cwd, agentDir).setQuietStartup(true);

		expect(await exited).toBe(0);
		expect(stderr).toBe("");
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ theme: "light", quietStartup: true });
	});

	it("a crashed process's lock dated a second ahead (proper-lockfile's first lock in a process rounds its mtime up) is still taken over once stale, and the save lands", () => {
		const { cwd, agentDir } = workspace();
		const file = join(agentDir, "settings.json");
		writeFileSync(file, `${JSON.stringify({ theme: "light" })}\n`);
		// What a holder killed within its first second leaves: the lock directory, its mtime up to 1 s ahead.
		const lock = `${file}.lock`;
		mkdirSync(lock);
		const ahead = new Date(Date.now() + 1000);
		utimesSync(lock, ahead, ahead);

		SettingsManager.create(cwd, agentDir).setQuietStartup(true);

		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ theme: "light", quietStartup: true });
		expect(existsSync(lock)).toBe(false);
	}, 20_000);
});
