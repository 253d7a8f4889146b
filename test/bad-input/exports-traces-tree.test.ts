/**
 * Bad input on the session export (`settle --export`, RPC `export_html`, `/export`, `/import`),
 * `/tree` and `/label`, and `settle trace`: real child processes (the CLI from its sources, the faux
 * model), real files; each case checks the typed error a user sees and that nothing on disk changed.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { exportSessionToHtml } from "../../src/export/index.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, Repl, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-bad-exports-");

/** Runs one faux prompt with sessions in `<dir>/sessions`; returns the session file written. */
function sessionFile(prompt = "hello"): string {
	const sessions = join(cli.dir, "sessions");
	const run = cli.settle(["--faux", "--session-dir", sessions, "-p", prompt]);
	expect(run.code).toBe(0);
	const files = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
	return join(sessions, files[0]!);
}

function repl(): Repl {
	return new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
}

/** A saved trace (`settle --trace`) of one faux prompt. */
function savedTrace(): string {
	const file = join(cli.dir, "run.trace.json");
	expect(cli.settle(["--faux", "--no-session", "--trace", file, "-p", "hi"]).code).toBe(0);
	return file;
}

describe("session export: the output path is the session file itself", () => {
	it("regression: settle --export s.jsonl s.jsonl overwrote the session with its page; now refused, the session untouched", () => {
		const file = sessionFile();
		const before = readFileSync(file);
		for (const output of [file, join("..", "sessions", basename(file))]) {
			const run = cli.settle(["--export", file, output]);
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toMatch(
				/^Error: Not writing the HTML export over the session file .+ itself: .*Give another output path/,
			);
			expect(readFileSync(file)).toEqual(before);
		}
		// Nothing else appeared next to it (no temp file).
		expect(readdirSync(dirname(file))).toEqual([basename(file)]);
	});

	it("regression: RPC export_html over the live session file replaced it (later messages went to a deleted file); now refused", async () => {
		const server = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		let settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "p", type: "prompt", message: "first" });
		await settled;
		const state = (await server.request({ id: "s", type: "get_state" })).data as { sessionFile: string };
		const refused = await server.request({ id: "1", type: "export_html", outputPath: state.sessionFile });
		expect(refused).toMatchObject({ command: "export_html", success: false });
		expect(refused.error).toMatch(/^Not writing the HTML export over the session file .+ itself/);
		// A missing folder is created (documented); an empty path is the cwd, a folder: a typed error.
		const folder = await server.request({ id: "2", type: "export_html", outputPath: "" });
		expect(folder).toMatchObject({ success: false });
		expect(folder.error).toMatch(/Cannot write the HTML export to .+: it is a folder\. Choose a writable path/);
		settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "p2", type: "prompt", message: "second" });
		await settled;
		expect(await server.end()).toBe(0);
		expect(transcript(state.sessionFile)).toEqual([
			"user: first",
			"assistant: first",
			"user: second",
			"assistant: second",
		]);
		expect(readdirSync(cli.project)).toEqual([]);
	});

	it("regression: /export <the session file> (a .jsonl path: the branch export) rewrote the live session; now one error line, the chat goes on", async () => {
		const chat = repl();
		await chat.idle(0);
		await chat.say("first", "first\n>");
		const file = bannerSessionFile(chat.stdout);
		const before = readFileSync(file, "utf8");
		expect(await chat.say(`/export ${file}`)).toMatch(
			/Error: Not writing the JSONL export over the session file .+ itself: it would replace the session\./,
		);
		expect(readFileSync(file, "utf8")).toBe(before);
		await chat.say("second", "second\n>");
		expect(await chat.end()).toBe(0);
		expect(transcript(file)).toEqual(["user: first", "assistant: first", "user: second", "assistant: second"]);
		expect(readdirSync(dirname(file))).toEqual([basename(file)]);
	});

	it("regression: /export into a folder named *.jsonl printed Node's bare EISDIR; now a typed error, no temp file", async () => {
		mkdirSync(join(cli.project, "out.jsonl"));
		const chat = repl();
		await chat.idle(0);
		await chat.say("hi", "hi\n>");
		expect(await chat.say("/export out.jsonl")).toMatch(
			/Error: Cannot write the JSONL export to .+out\.jsonl: it is a folder\. Choose a writable path/,
		);
		expect(await chat.end()).toBe(0);
		expect(readdirSync(cli.project)).toEqual(["out.jsonl"]);
		expect(readdirSync(join(cli.project, "out.jsonl"))).toEqual([]);
	});
});

describe("session export of damaged or unusual files", () => {
	it("regression: lines left out of the page (malformed middle line, torn last line) were not mentioned; now a warning each, exit 0, the file untouched", () => {
		const file = sessionFile("first");
		const lines = readFileSync(file, "utf8").split("\n");
		const torn = '{"type":"message","id":"cut';
		// A malformed line in the middle, and the start of a line cut off at the end (a crash mid-write).
		const damaged = [...lines.slice(0, 2), "{not json", ...lines.slice(2)].join("\n") + torn;
		writeFileSync(file, damaged);
		const run = cli.settle(["--export", file, "page.html"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("Exported to: page.html\n");
		expect(run.stderr).toBe(
			`Warning: Line 3 skipped: not valid JSON (Expected property name or '}' in JSON at position 1).\n` +
				`Warning: Line ${lines.length + 1} (the last, ${torn.length} bytes) was cut off mid-write and not loaded.\n`,
		);
		expect(readFileSync(join(cli.project, "page.html"), "utf8")).toContain("first");
		// Read-only: nothing set aside, nothing rewritten.
		expect(readFileSync(file, "utf8")).toBe(damaged);
		expect(readdirSync(dirname(file))).toEqual([basename(file)]);
	});

	it("not a session (JSON of something else, binary), a folder, an empty file: one error line or an empty page; nothing written over", () => {
		const other = join(cli.dir, "other.json");
		writeFileSync(other, '{"foo":1}\n');
		const binary = join(cli.dir, "binary.jsonl");
		writeFileSync(binary, Buffer.from([0, 1, 2, 255, 254, 10, 0]));
		for (const [path, error] of [
			// An export cannot start a session at that path: the way out is another file.
			[
				other,
				/^Error: Session file is not a valid pi session: .+other\.json\. .*nothing was changed\. Pass the path of a session \.jsonl file\.\n$/,
			],
			[binary, /^Error: Session file is not a valid pi session: .+binary\.jsonl/],
			[
				cli.dir,
				/^Error: Could not read session file .+: it is a directory, not a session file\. Pass the path of a session \.jsonl file\.\n$/,
			],
		] as const) {
			const run = cli.settle(["--export", path, "page.html"]);
			expect(run.code).toBe(1);
			expect(run.stderr).toMatch(error);
		}
		expect(readdirSync(cli.project)).toEqual([]);
		expect(readFileSync(other, "utf8")).toBe('{"foo":1}\n');
		// An empty file is a session not started yet (pi): an empty page, the file stays empty.
		const empty = join(cli.dir, "empty.jsonl");
		writeFileSync(empty, "");
		expect(cli.settle(["--export", empty, "page.html"])).toEqual({
			code: 0,
			stdout: "Exported to: page.html\n",
			stderr: "",
		});
		expect(readFileSync(empty, "utf8")).toBe("");
	});
});

describe("exportSessionToHtml (the API) over the session it exports", () => {
	it("regression: a live SessionManager's own file as outputPath: SettleError INVALID_ARGUMENT, the manager goes on writing its file", async () => {
		const manager = SessionManager.create(cli.project, join(cli.dir, "sessions"));
		manager.appendMessage({ role: "user", content: "kept", timestamp: 0 });
		const file = manager.getSessionFile()!;
		const error = await exportSessionToHtml(manager, { outputPath: file }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "INVALID_ARGUMENT", details: { path: file } });
		manager.appendMessage({ role: "user", content: "after", timestamp: 0 });
		manager.close();
		expect(transcript(file)).toEqual(["user: kept", "user: after"]);
		const diagnostics: string[] = [];
		await exportSessionToHtml(file, {
			outputPath: join(cli.dir, "page.html"),
			onDiagnostic: (d) => diagnostics.push(d.kind),
		});
		expect(diagnostics).toEqual([]);
		expect(readdirSync(dirname(file))).toEqual([basename(file)]);
	});
});

describe("/import and /resume of damaged session files, /export with a broken quote", () => {
	it("regression: /import and /resume of a file with a malformed line and a torn last line said nothing of the lines left out; now a warning each", async () => {
		const file = sessionFile("first");
		const lines = readFileSync(file, "utf8").split("\n");
		const damagedText = `${[...lines.slice(0, 2), "{bad", ...lines.slice(2)].join("\n")}{"type":"mess`;
		const damaged = join(cli.dir, "damaged.jsonl");
		writeFileSync(damaged, damagedText);
		const chat = repl();
		await chat.idle(0);
		const from = chat.mark();
		chat.send(`/import ${damaged}`);
		await chat.until("[y/N] ", from);
		const imported = await chat.say("y");
		expect(imported).toMatch(/Imported into a new session \((.+damaged\.jsonl)\)\.\n/);
		expect(imported).toContain("Warning: Line 3 skipped: not valid JSON");
		expect(imported).toMatch(
			/Warning: Line \d+ \(the last, 13 bytes\) was cut off mid-write and not loaded\. Its bytes were moved to .+\.torn\./,
		);
		const copy = /Imported into a new session \((.+)\)\./.exec(imported)![1]!;
		expect(await chat.say("/tree")).toContain("user: first");
		// The file given is untouched (the copy is the one cleaned up).
		expect(readFileSync(damaged, "utf8")).toBe(damagedText);
		await chat.say("/new");
		const resumed = await chat.say(`/resume ${copy}`);
		// The copy's torn line was set aside already; the malformed line stays (nothing is deleted).
		expect(resumed).toContain("Warning: Line 3 skipped: not valid JSON");
		expect(resumed).not.toContain("cut off");
		expect(await chat.end()).toBe(0);
	});

	it('regression: /export "name.html without its closing quote wrote the default page instead; now an error, nothing written', async () => {
		const chat = repl();
		await chat.idle(0);
		await chat.say("hi", "hi\n>");
		expect(await chat.say('/export "my page.html')).toContain(
			'Error: The path "my page.html has no closing ": close the quote.',
		);
		expect(await chat.end()).toBe(0);
		expect(readdirSync(cli.project)).toEqual([]);
	});
});

describe("/import of files that are not sessions", () => {
	it("a JSON file of something else, a folder, the current session itself: one error line each, nothing changed", async () => {
		const other = join(cli.dir, "other.jsonl");
		writeFileSync(other, '{"foo":1}\n');
		const folder = join(cli.dir, "folder.jsonl");
		mkdirSync(folder);
		const chat = repl();
		await chat.idle(0);
		await chat.say("current", "current\n>");
		const current = bannerSessionFile(chat.stdout);
		const before = readFileSync(current, "utf8");
		const importing = async (path: string) => {
			const from = chat.mark();
			chat.send(`/import ${path}`);
			await chat.until("[y/N] ", from);
			return chat.say("y");
		};
		expect(await importing(other)).toMatch(/Error: Session file is not a valid pi session: .*other\.jsonl/);
		expect(await importing(folder)).toMatch(/Error: .*folder\.jsonl.*(directory|folder)/);
		// The current session file: resumed as it is (nothing copied, nothing lost).
		const self = await importing(current);
		expect(self).not.toMatch(/Error/);
		expect(readFileSync(current, "utf8")).toBe(before);
		expect(await chat.say("/session")).toContain(`  file: ${current}\n`);
		await chat.say("after", "after\n>");
		expect(await chat.end()).toBe(0);
		expect(transcript(current)).toEqual(["user: current", "assistant: current", "user: after", "assistant: after"]);
		expect(readFileSync(other, "utf8")).toBe('{"foo":1}\n');
		expect(readdirSync(dirname(current))).toEqual([basename(current)]);
	});
});

describe("/tree and /label: text from the session reaches the terminal without control sequences", () => {
	/** The output after the echo of the typed line (a pipe's transcript repeats the input as it came). */
	const printed = (output: string) => output.slice(output.indexOf("\n") + 1);
	/** C0 controls but newline and tab, DEL, C1 controls. */
	// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
	const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

	it("regression: a message or label holding an OSC 52 clipboard write (\\x1b]52;c;…\\x07) was printed raw by /tree and /label", async () => {
		const osc52 = "\x1b]52;c;aGk=\x07";
		const chat = repl();
		await chat.idle(0);
		await chat.say(`grab ${osc52} this`, "\n>");
		const tree = printed(await chat.say("/tree"));
		expect(tree).toContain("user: grab ␛]52;c;aGk=␇ this");
		expect(tree).not.toMatch(CONTROL);
		const id = /• (\w{8}) user: grab/.exec(tree)![1]!;
		const labelled = printed(await chat.say(`/label ${id} red\x1b[31m label\x07 ${"x".repeat(300)}`));
		expect(labelled).toContain(`Label of ${id}: red␛[31m label␇ x`);
		expect(labelled).not.toMatch(CONTROL);
		// Long labels are kept whole but printed clipped.
		expect(labelled.split("\n")[0]!.length).toBeLessThan(120);
		const list = printed(await chat.say("/label"));
		expect(list).toContain(`${id} [red␛[31m label␇ x`);
		for (const output of [list, printed(await chat.say("/tree all")), printed(await chat.say(`/label ${osc52}`))]) {
			expect(output).not.toMatch(CONTROL);
		}
		expect(printed(await chat.say(`/label zzzz${osc52}`))).toContain(
			"Error: No entry of this session has an id starting with zzzz␛]52;c;aGk=␇",
		);
		expect(await chat.end()).toBe(0);
	});
});

describe("settle trace: bad traces and outputs", () => {
	it("regression: settle trace t.json -o t.json overwrote the trace with the page; now refused (exit 2), the trace untouched", () => {
		const file = savedTrace();
		const before = readFileSync(file, "utf8");
		const run = cli.settle(["trace", file, "-o", file]);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			`Error: Not writing the trace viewer over the trace ${file} itself: give another -o path (default: ${file.replace(/\.json$/, "")}.html).\n`,
		);
		expect(readFileSync(file, "utf8")).toBe(before);
	});

	it('regression: a state event without "to"/"details" crashed the viewer and was reported as a machine that is not Settle\'s; now named', () => {
		const file = savedTrace();
		const trace = JSON.parse(readFileSync(file, "utf8")) as { events: Record<string, unknown>[] };
		const damaged = join(cli.dir, "damaged.json");
		trace.events[2] = { ...trace.events.find((event) => event.kind === "state"), to: undefined };
		writeFileSync(damaged, JSON.stringify(trace));
		const index = 2;
		const run = cli.settle(["trace", damaged]);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			`Error: ${damaged}: Not a Settle lifecycle trace: state event ${index} needs a "to" state name and a "details" object. Record one with settle --trace <file>.\n`,
		);
		expect(run.stderr).not.toContain("not one of Settle's");
		expect(readdirSync(cli.dir).filter((name) => name.endsWith(".html"))).toEqual([]);
	});

	it("regression: an event whose machine is not a string passed parseTrace (the viewer then failed); a truncated trace, a folder as output: one line each, exit 2", () => {
		const file = savedTrace();
		const text = readFileSync(file, "utf8");
		const truncated = join(cli.dir, "truncated.json");
		writeFileSync(truncated, text.slice(0, text.length / 2));
		expect(cli.settle(["trace", truncated])).toMatchObject({
			code: 2,
			stderr: expect.stringMatching(/^Error: The trace .+truncated\.json is not valid JSON: /),
		});
		const odd = join(cli.dir, "odd.json");
		const trace = JSON.parse(text) as { events: Record<string, unknown>[] };
		trace.events[0]!.machine = 5;
		writeFileSync(odd, JSON.stringify(trace));
		expect(cli.settle(["trace", odd]).stderr).toContain('event 0 has a "machine" that is not an id');
		const folder = join(cli.dir, "folder.html");
		mkdirSync(folder);
		expect(cli.settle(["trace", file, "-o", folder])).toMatchObject({
			code: 2,
			stderr: expect.stringMatching(/^Error: Could not write the trace viewer to .+folder\.html: EISDIR/),
		});
	});
});
