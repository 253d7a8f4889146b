/**
 * Reports about the files a real `settle` process reads and appends to, replayed against the CLI on
 * the faux model. pi#1054: a trailing comma in `settings.json`, and pi overwrote the file with
 * `{ "lastChangelogVersion": … }`: every setting lost. pi#7829: a `settings.json` that does not
 * parse (a Windows path with single backslashes) silently ignored; the user chased a misleading
 * "bash not found" instead. prime-agent#928 (a pi fork): a crash cut the session file's last line
 * mid-write; resuming appended the next entry right after the fragment, the two became one line that
 * does not parse, and the new entry was lost on every later open. What those users should see: the
 * run refused with the file, the line and the fix, and the file's bytes kept; a torn line set aside
 * and reported, every entry written afterwards read back. oh-my-pi#9915: a session file whose first
 * line (the header) does not parse was read as empty, and `--resume` / `--session` started a fresh
 * session at the same path, overwriting the transcript with nothing said. pi#8400: `"skills"` (or
 * `"extensions"`) given as one path string instead of a list was read as a list of one-character
 * paths, `~` among them, and pi hung scanning the home folder. pi#5289 (for `@file`): a binary file
 * given as `@report.ods` was decoded as text, and its NUL bytes went to the model in the first
 * message, as the read tool sent them before it refused binary files. gemini-cli#5961: an `@file`
 * PowerShell wrote as UTF-16 was skipped as binary; Settle refused it as binary too, until `@file`
 * decoded it as the read tool does. claude-code#9019: `@src\Umlauts.java`, a Windows-1252 file, reached
 * the model with U+FFFD for each umlaut and no word of it; its edit then destroyed them. What the
 * model should get: the read tool's note that the file is not UTF-8 (edit refuses it) and the
 * command that reads it; the user a warning. gemini-cli#4028: `@mydir` (a folder) silently sent none of its
 * files; pi 0.73.1 and Settle refused it with a raw "EISDIR: illegal operation on a directory".
 * What the user should see: that the argument is a folder, and the two ways to get its files read.
 * pi#6002: `--session` given a file that is no session (a 3.2 MB NDJSON log) truncated it to a
 * new session's header.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { persistedUserTexts, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-files-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

/** `settle --faux <args>` in the test's project and agent folder. */
function settleFaux(...args: string[]): ReturnType<typeof runSettle> {
	return runSettle(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
}

const sessionFiles = () => sessionFilesUnder(cli.agentDir);

describe("pi#1054 / pi#7829: a settings.json that does not parse", () => {
	const broken = [
		["pi#1054", "a trailing comma", '{\n  "defaultThinkingLevel": "high",\n  "theme": "light",\n}\n', "line 4"],
		[
			"pi#7829",
			"a Windows path with single backslashes",
			'{\n  "defaultThinkingLevel": "high",\n  "shellPath": "C:\\Users\\office\\bash.exe"\n}\n',
			"line 3",
		],
	] as const;
	for (const [report, what, text, line] of broken) {
		it(`${report}: ${what}: settle -p refuses, naming the file and the line; the file keeps its bytes; no request, no session`, () => {
			mkdirSync(cli.agentDir, { recursive: true });
			const settings = join(cli.agentDir, "settings.json");
			writeFileSync(settings, text);
			const run = settleFaux("-p", "Say exactly: hi");
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain(settings);
			expect(run.stderr).toContain(line);
			expect(run.stderr).toMatch(/Fix the file \(or delete it\)/);
			expect(readFileSync(settings, "utf8")).toBe(text);
			expect(sessionFiles()).toEqual([]);
		});
	}
});

describe("a settings.json that Windows PowerShell 5.1's `>` wrote (UTF-16 LE with its mark)", () => {
	it("settle -p runs with it (read as its text, not refused as JSON that does not parse); the file keeps its bytes", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		const settings = join(cli.agentDir, "settings.json");
		const bytes = Buffer.from('\uFEFF{\r\n  "defaultThinkingLevel": "high"\r\n}\r\n', "utf16le");
		writeFileSync(settings, bytes);
		expect(settleFaux("--no-session", "-p", "Say exactly: hi")).toEqual({
			code: 0,
			stdout: "Say exactly: hi\n",
			stderr: "",
		});
		expect(readFileSync(settings).equals(bytes)).toBe(true);
	});
});

describe("prime-agent#928: a session file whose last line a crash cut off", () => {
	it("prime-agent#928: resumed with --session, the torn line is set aside and reported; the entries written afterwards are read back by the next run", () => {
		const first = settleFaux("-p", "Say exactly: first");
		expect(first.code).toBe(0);
		const [file] = sessionFiles();
		expect(file).toBeDefined();
		const torn =
			'{"type":"message","id":"0badc0de","parentId":null,"timestamp":"2026-12-04T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"cut off';
		writeFileSync(file!, readFileSync(file!, "utf8") + torn);

		const second = settleFaux("--session", file!, "-p", "Say exactly: second");
		expect(second.code).toBe(0);
		expect(second.stdout).toBe("Say exactly: second\n");
		expect(second.stderr).toMatch(/was cut off mid-write and not loaded/);
		const setAside = readdirSync(join(file!, "..")).filter((name) => name.endsWith(".torn"));
		expect(setAside).toHaveLength(1);
		expect(readFileSync(join(file!, "..", setAside[0]!), "utf8")).toBe(torn);

		const third = settleFaux("--session", file!, "-p", "Say exactly: third");
		expect(third.code).toBe(0);
		expect(third.stderr).toBe("");
		expect(persistedUserTexts(file!)).toEqual(["Say exactly: first", "Say exactly: second", "Say exactly: third"]);
	});
});

describe("oh-my-pi#9915: a session file whose header line does not parse", () => {
	it("oh-my-pi#9915: --session on it refuses with the file and what to do; -c passes over it saying so, naming the file; the transcript keeps its bytes", () => {
		const first = settleFaux("-p", "Say exactly: the transcript");
		expect(first.code).toBe(0);
		const [file] = sessionFiles();
		const lines = readFileSync(file!, "utf8").split("\n");
		// A crash left NUL bytes where the header was; every entry after it is intact.
		const corrupt = ['\u0000\u0000\u0000{"type":"sess', ...lines.slice(1)].join("\n");
		writeFileSync(file!, corrupt);

		const resumed = settleFaux("--session", file!, "-p", "Say exactly: again");
		expect(resumed.code).toBe(3);
		expect(resumed.stdout).toBe("");
		expect(resumed.stderr).toContain(file!);
		expect(resumed.stderr).toMatch(/first line is not a session header; nothing was changed/);
		expect(resumed.stderr).toMatch(/move this one away to start a new session at this path/);
		expect(readFileSync(file!, "utf8")).toBe(corrupt);

		// -c cannot resume it: it says so, naming the file, starts a new session and never writes into it.
		const continued = settleFaux("-c", "-p", "Say exactly: continued");
		expect(continued.code).toBe(0);
		expect(continued.stdout).toBe("Say exactly: continued\n");
		expect(continued.stderr).toBe(
			`Warning: --continue passed over ${file}, newer than any session it could resume: its first line is not a ` +
				"session header (a crash may have cut it), so it cannot be resumed; nothing was changed. Open it with " +
				"--session to see the error, or move it away.\n",
		);
		expect(readFileSync(file!, "utf8")).toBe(corrupt);
		const others = sessionFiles().filter((other) => other !== file);
		expect(others).toHaveLength(1);
		expect(persistedUserTexts(others[0]!)).toEqual(["Say exactly: continued"]);

		// The next -c resumes that new session, newer than the damaged file: nothing to say.
		const again = settleFaux("-c", "-p", "Say exactly: again");
		expect(again.code).toBe(0);
		expect(again.stderr).toBe("");
		expect(persistedUserTexts(others[0]!)).toEqual(["Say exactly: continued", "Say exactly: again"]);
		expect(statSync(file!).size).toBe(Buffer.byteLength(corrupt));
	});

	it("oh-my-pi#9915 (pi-peer): pi 0.73.1's SessionManager.open on the same file rewrites it as a new empty session: the transcript is gone", () => {
		const first = settleFaux("-p", "Say exactly: the transcript");
		expect(first.code).toBe(0);
		const [file] = sessionFiles();
		const lines = readFileSync(file!, "utf8").split("\n");
		writeFileSync(file!, ['\u0000\u0000\u0000{"type":"sess', ...lines.slice(1)].join("\n"));
		pi.SessionManager.open(file!);
		const after = readFileSync(file!, "utf8").split("\n").filter(Boolean);
		expect(after).toHaveLength(1);
		expect(JSON.parse(after[0]!)).toMatchObject({ type: "session" });
		expect(after.join()).not.toContain("the transcript");
	});
});

describe("pi#6002: --session given a file that is not a session at all", () => {
	it("pi#6002: settle -p --session <an NDJSON log> (and <a plain text file>) refuses, exit 3 naming the file and what to do, nothing printed; each file keeps every byte and nothing is written beside it", () => {
		// A 3 MB event log of JSON lines, none a session header (pi truncated such a file to its header).
		const log = join(cli.dir, "events.log");
		const events = Array.from({ length: 30_000 }, (_, k) =>
			JSON.stringify({ type: "event", n: k, data: "x".repeat(80) }),
		);
		writeFileSync(log, `${events.join("\n")}\n`);
		const notes = join(cli.dir, "notes.txt");
		writeFileSync(notes, "meeting notes\nsecond line\n");
		for (const file of [log, notes]) {
			const before = readFileSync(file);
			const run = settleFaux("-p", "--session", file, "Say exactly: hi");
			expect(run).toMatchObject({ code: 3, stdout: "" });
			expect(run.stderr).toBe(
				`Error: Session file is not a valid pi session: ${file}. Its first line is not a session header; nothing ` +
					"was changed. Open a different file, or move this one away to start a new session at this path.\n",
			);
			expect(readFileSync(file).equals(before)).toBe(true);
		}
		expect(readdirSync(cli.dir).sort()).toEqual(["events.log", "notes.txt", "project"]);
	});
});

describe("pi#8400: a resource setting given as one path string instead of a list", () => {
	for (const key of ["extensions", "skills"] as const) {
		it(`pi#8400: "${key}": "~/…" in the project's settings: settle -p refuses at once, naming the key, the file and the expected list; nothing is scanned, no session`, () => {
			const settings = join(cli.project, ".pi", "settings.json");
			mkdirSync(join(cli.project, ".pi"), { recursive: true });
			const text = JSON.stringify({ [key]: "~/path/to/a/folder" });
			writeFileSync(settings, text);
			const run = settleFaux("-p", "Say exactly: hi");
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain(`Invalid setting "${key}" in ${settings}: expected a list of strings`);
			expect(run.stderr).toMatch(/Fix or remove it; settle does not start until then/);
			expect(readFileSync(settings, "utf8")).toBe(text);
			expect(sessionFiles()).toEqual([]);
		});
	}
});

describe("claude-plugins-official#2286: an iPhone photo (HEIC) as an @file argument", () => {
	it("claude-plugins-official#2286: settle -p @IMG_0412.HEIC is refused before anything runs (exit 2, no session), naming the format and the command that makes a JPEG copy", () => {
		const heic = Buffer.concat([
			Buffer.from([0, 0, 0, 0x18]),
			Buffer.from("ftypheic\0\0\0\0mif1heic", "latin1"),
			Buffer.alloc(256, 7),
		]);
		const photo = join(cli.project, "IMG_0412.HEIC");
		writeFileSync(photo, heic);
		const run = settleFaux("-p", "@IMG_0412.HEIC", "what is in it?");
		const jpeg = join(cli.project, "IMG_0412.jpg");
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: @IMG_0412.HEIC: ${photo} is a HEIC image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and attach the copy: sips -s format jpeg ${photo} --out ${jpeg} (macOS), magick ${photo} ${jpeg} or heif-convert ${photo} ${jpeg}.\n`,
		});
		expect(sessionFiles()).toEqual([]);
	});
});

describe("pi#5289: a binary @file argument", () => {
	it("pi#5289: settle -p @file of a binary file is refused before anything runs (exit 2, no session, no request); a Latin-1 text file is still attached", () => {
		const zip = Buffer.concat([
			Buffer.from("PK\x03\x04\x14\x00\x00\x00", "latin1"),
			Buffer.alloc(64, 0),
			Buffer.from("content.xml"),
		]);
		writeFileSync(join(cli.project, "report.ods"), zip);
		const run = settleFaux("-p", "@report.ods", "sum the totals");
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: @report.ods: ${join(cli.project, "report.ods")} looks like a binary file (a NUL byte in its first 8000 bytes): @file attaches text files and jpg/png/gif/webp images. Convert it to text first (for example pdftotext, unzip -l or strings) and attach that, or leave it out.\n`,
		});
		expect(sessionFiles()).toEqual([]);

		writeFileSync(join(cli.project, "notes.txt"), Buffer.from("caf\xe9 au lait", "latin1"));
		const text = settleFaux("--no-session", "-p", "@notes.txt", "what?");
		expect(text.code).toBe(0);
		expect(text.stdout).toBe(
			`<file name="${join(cli.project, "notes.txt")}">\ncaf\ufffd au lait\n</file>\n${notUtf8Note(join(cli.project, "notes.txt"))}\nwhat?\n`,
		);
	});
});

/** The note after a non-UTF-8 `@file`'s text, as the read tool words it. */
function notUtf8Note(absolute: string): string {
	return `[${absolute} is not UTF-8 text (each sequence of its bytes that is not shows as \ufffd), and edit refuses it. To read it, convert it with bash: iconv -f <its encoding> -t UTF-8 ${absolute} (for example CP1252, GBK, SHIFT_JIS).]`;
}

describe("claude-code#9019: an @file in Windows-1252", () => {
	it("claude-code#9019: settle -p @Umlauts.java (CP1252 umlauts) sends its text with the note that it is not UTF-8 and the iconv command, and stderr warns the user; a UTF-8 @file gets neither", () => {
		const source = join(cli.project, "Umlauts.java");
		const bytes = Buffer.from("/** Sch\xe4tzung des j\xe4hrlichen Verbrauchs */\nclass Umlauts {}\n", "latin1");
		writeFileSync(source, bytes);
		const run = settleFaux("--no-session", "-p", "@Umlauts.java", "add a main method");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(
			`<file name="${source}">\n/** Sch\ufffdtzung des j\ufffdhrlichen Verbrauchs */\nclass Umlauts {}\n\n</file>\n${notUtf8Note(source)}\nadd a main method\n`,
		);
		expect(run.stderr).toBe(
			`Warning: @Umlauts.java: ${source} is not UTF-8 text; the model gets U+FFFD (\ufffd) in place of its bytes that are not, with a note saying so. Convert it first (iconv -f <its encoding> -t UTF-8) to send its text.\n`,
		);
		expect(readFileSync(source)).toEqual(bytes);

		writeFileSync(join(cli.project, "Umlaute.java"), "/** Sch\u00e4tzung */\n");
		const utf8 = settleFaux("--no-session", "-p", "@Umlaute.java", "ok?");
		expect(utf8).toEqual({
			code: 0,
			stdout: `<file name="${join(cli.project, "Umlaute.java")}">\n/** Sch\u00e4tzung */\n\n</file>\nok?\n`,
			stderr: "",
		});
	});
});

describe("gemini-cli#4028: a folder as an @file argument", () => {
	it("gemini-cli#4028: settle -p @folder (with a space in its name, a trailing slash) is refused before anything runs (exit 2, no session), saying it is a folder and how to attach or have its files read", () => {
		const folder = join(cli.project, "design notes");
		mkdirSync(folder);
		writeFileSync(join(folder, "api.md"), "# API\n");
		const run = settleFaux("-p", "@design notes/", "summarize these");
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: @design notes/: ${folder} is a folder: @file attaches files, one each (@design notes/<file> …). To have the model look through the folder, leave out the @ and name it in the prompt: the model lists and reads it with its ls, find and read tools.\n`,
		});
		expect(sessionFiles()).toEqual([]);

		const file = settleFaux("--no-session", "-p", "@design notes/api.md", "summarize");
		expect(file.code).toBe(0);
		expect(file.stdout).toBe(`<file name="${join(folder, "api.md")}">\n# API\n\n</file>\nsummarize\n`);
	});
});

describe("hermes-agent#43059: a PDF @file", () => {
	it("hermes-agent#43059: settle -p @file of a PDF with no NUL byte (a hand-written one-page PDF) is refused as a PDF before anything runs (exit 2, no session)", () => {
		const page = "BT /F1 12 Tf 72 720 Td (Invoice 2026-03) Tj ET";
		writeFileSync(
			join(cli.project, "invoice.pdf"),
			`%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj\n4 0 obj << /Length ${page.length} >>\nstream\n${page}\nendstream endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
		);
		const run = settleFaux("-p", "@invoice.pdf", "what is the total?");
		expect(run).toEqual({
			code: 2,
			stdout: "",
			stderr: `Error: @invoice.pdf: ${join(cli.project, "invoice.pdf")} is a PDF document: @file attaches text files and jpg/png/gif/webp images. Convert it to text first (for example pdftotext) and attach that, or leave it out.\n`,
		});
		expect(sessionFiles()).toEqual([]);
	});
});

describe("gemini-cli#5961: an @file saved as UTF-16 (PowerShell's Out-File -Encoding Unicode) was skipped as binary", () => {
	it("gemini-cli#5961: settle -p @file of UTF-16 LE and BE files (with their marks, CRLF lines, a character outside the BMP) sends their text, each with the note that edit and write keep that encoding", () => {
		const text = "first line\r\nclef \u{1D11E} and caf\u00e9\r\n";
		const le = Buffer.from(`\uFEFF${text}`, "utf16le");
		writeFileSync(join(cli.project, "le notes.txt"), le);
		writeFileSync(join(cli.project, "be.txt"), Buffer.from(le).swap16());
		const run = settleFaux("--no-session", "-p", "@le notes.txt", "@be.txt", "what?");
		const note = (name: string) =>
			`[Decoded from ${name} (the file starts with its byte-order mark). edit and write keep that encoding and its mark when they change this file.]\n`;
		const lePath = join(cli.project, "le notes.txt");
		const bePath = join(cli.project, "be.txt");
		expect(run).toEqual({
			code: 0,
			stdout: `<file name="${lePath}">\n${text}\n</file>\n${note("UTF-16LE")}<file name="${bePath}">\n${text}\n</file>\n${note("UTF-16BE")}what?\n`,
			stderr: "",
		});
	});

	it("gemini-cli#5961: a UTF-8 @file with a byte-order mark reaches the model without the mark; a UTF-16 file holding NUL characters is still refused as binary", () => {
		writeFileSync(join(cli.project, "bom.txt"), "\uFEFF---\ntitle: x\n---\n");
		const bom = settleFaux("--no-session", "-p", "@bom.txt", "what?");
		expect(bom.stdout).toBe(`<file name="${join(cli.project, "bom.txt")}">\n---\ntitle: x\n---\n\n</file>\nwhat?\n`);
		writeFileSync(join(cli.project, "wide.bin"), Buffer.from("\uFEFFPK\0\0\0\0data", "utf16le"));
		const refused = settleFaux("--no-session", "-p", "@wide.bin", "what?");
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain("looks like a binary file");
	});
});
