/**
 * Several processes saving `auth.json` at once, replayed with real child processes sharing one file.
 *
 * opencode#46128, opencode#46020, openscience#54: `auth.json` was saved as an unlocked
 * read-modify-write of the whole file, so two processes storing keys of *different* providers at
 * the same moment (a token refresh in one, a login in another) lost one of them, and a reader that
 * caught the file mid-write took it as empty ("not logged in", hivemind#283's torn read); one
 * `set` on a file that could not be parsed then rewrote it with its own entry alone, every other
 * provider's key gone. What the user should see: every provider's last key on disk, a reader never
 * finding a stored key missing, and a broken file left as it is with an error saying to fix it.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { AuthStorage, SettleError } from "../../src/index.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { ROOT, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-auth-json-writers-");
/**
 * The children import the bundled package (test/cli/cli-bundle.ts) under plain `node`: through tsx
 * each spent ~1.2 s of CPU loading Settle's sources. `SETTLE_TEST_CLI=sources` keeps the sources.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
const LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const SETTLE = () =>
	pathToFileURL(FROM_SOURCES ? join(ROOT, "src/index.ts") : join(dirname(cliBundle()), "index.js")).href;
const WRITERS = 5;
const SAVES = 15;

/** A child running `body` (JavaScript, `AuthStorage` and `file` in scope) once its stdin says "go"; resolves with its stdout. */
function startChild(name: string, file: string, body: string) {
	const script = join(cli.dir, `${name}.mjs`);
	writeFileSync(
		script,
		`import { AuthStorage } from ${JSON.stringify(SETTLE())};
import { createInterface } from "node:readline";
const file = ${JSON.stringify(file)};
process.stdout.write("ready\\n");
createInterface({ input: process.stdin }).once("line", async () => {
${body}
});
`,
	);
	const child = spawn(process.execPath, FROM_SOURCES ? ["--import", LOADER, script] : [script], {
		stdio: ["pipe", "pipe", "inherit"],
	});
	const exited = trackChild(child);
	let out = "";
	const ready = new Promise<void>((resolve) =>
		createInterface({ input: child.stdout }).on("line", (line) => {
			if (line === "ready") resolve();
			else out += `${line}\n`;
		}),
	);
	return {
		ready,
		go: () => child.stdin.write("go\n"),
		stop: () => child.stdin.end("stop\n"),
		done: exited.then((code) => ({ code, out })),
	};
}

describe("opencode#46128, opencode#46020, openscience#54: concurrent auth.json writers lose credentials", () => {
	it("opencode#46128: five processes storing keys of five providers at once, 15 times each, while a sixth reads: every provider's last key is on disk and the reader never misses a stored key", async () => {
		const file = join(cli.agentDir, "auth.json");
		AuthStorage.create(file).set("anthropic", "sk-ant-kept-throughout");
		const writers = Array.from({ length: WRITERS }, (_, w) =>
			startChild(
				`writer-${w}`,
				file,
				`	for (let i = 1; i <= ${SAVES}; i++) AuthStorage.create(file).set("provider-${w}", "key-${w}-" + i);
	process.exit(0);`,
			),
		);
		// A new AuthStorage per read, as a fresh process starting would read it.
		const reader = startChild(
			"reader",
			file,
			`	let reads = 0, misses = 0, stop = false;
	process.stdin.once("data", () => { stop = true; });
	while (!stop) {
		reads++;
		if (AuthStorage.create(file).getApiKey("anthropic") !== "sk-ant-kept-throughout") misses++;
		await new Promise((next) => setImmediate(next));
	}
	process.stdout.write(JSON.stringify({ reads, misses }) + "\\n");
	process.exit(0);`,
		);
		await Promise.all([...writers, reader].map((child) => child.ready));
		reader.go();
		for (const writer of writers) writer.go();
		const written = await Promise.all(writers.map((writer) => writer.done));
		reader.stop();
		const read = await reader.done;

		expect(written.map((run) => run.code)).toEqual(Array(WRITERS).fill(0));
		const stored = JSON.parse(readFileSync(file, "utf8"));
		const expected: Record<string, unknown> = { anthropic: { type: "api_key", key: "sk-ant-kept-throughout" } };
		for (let w = 0; w < WRITERS; w++) expected[`provider-${w}`] = { type: "api_key", key: `key-${w}-${SAVES}` };
		expect(stored).toEqual(expected);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(readdirSync(cli.agentDir).sort()).toEqual(["auth.json"]);
		expect(read.code).toBe(0);
		const { reads, misses } = JSON.parse(read.out);
		expect(reads).toBeGreaterThan(0);
		expect(misses).toBe(0);
	});

	it("openscience#54: a set on an auth.json cut mid-write fails with INVALID_SETTINGS saying to fix it, and the file keeps every byte", () => {
		const file = join(cli.agentDir, "auth.json");
		AuthStorage.create(file).set("anthropic", "sk-ant-other-provider");
		const cut = readFileSync(file, "utf8").slice(0, 30);
		writeFileSync(file, cut, { mode: 0o600 });

		const auth = AuthStorage.create(file);
		expect(auth.getError()?.code).toBe("INVALID_SETTINGS");
		let thrown: unknown;
		try {
			auth.set("openai-codex", "rotated-token");
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(SettleError);
		expect((thrown as SettleError).code).toBe("INVALID_SETTINGS");
		expect((thrown as SettleError).message).toContain(`Cannot read credentials from ${file}`);
		expect((thrown as SettleError).message).toContain("fix or delete it");
		expect(readFileSync(file, "utf8")).toBe(cut);
		expect(existsSync(`${file}.lock`)).toBe(false);
	});
});
