/**
 * `write` over a file with Windows (CRLF) line endings (Codewhale#5909): models write LF, so a full
 * rewrite turned every line of a CRLF file into LF and the user's diff showed the whole file
 * changed. A model's call in a real disk session on a real file; the bytes on disk are checked
 * exactly. Settle keeps CRLF when the file's breaks were all CRLF and the new content's are all LF;
 * content with any CR, a file mixing breaks, an LF file and a new file are written as given.
 *
 * DELIBERATE_WRITE_KEEPS_CRLF: pi 0.73.1 writes the content as given, LF over a CRLF file
 * (`pi-peer` below).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The one tool result's text as the model received it. */
function resultText(messages: AgentMessage[]): string {
	const result = messages.find((message) => message.role === "toolResult");
	if (result?.role !== "toolResult") throw new Error("no tool result");
	expect(result.isError).toBe(false);
	const block = result.content[0];
	return block?.type === "text" ? block.text : "";
}

/** The model writes `content` to `file` (holding `before` when given) in a real disk session. */
async function modelWrites(file: string, before: Buffer | undefined, content: string): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["write"] });
	if (before) writeFileSync(join(harness.tempDir, file), before);
	script(harness, [
		fauxAssistantMessage([fauxToolCall("write", { path: file, content })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("rewrite it");
	return harness;
}

const onDisk = (harness: Harness, file: string) => readFileSync(join(harness.tempDir, file), "utf8");

describe("write over a CRLF file (Codewhale#5909)", () => {
	it("LF-only content is written with the file's CRLF line endings, and the result says so", async () => {
		h = await modelWrites("App.cs", Buffer.from("class App\r\n{\r\n}\r\n"), "class App\n{\n\tint x;\n}\n");
		expect(onDisk(h, "App.cs")).toBe("class App\r\n{\r\n\tint x;\r\n}\r\n");
		expect(resultText(h.session.messages)).toBe(
			"Successfully wrote 26 bytes to App.cs (kept its CRLF line endings, as the file was)",
		);
	});

	it("over a UTF-8 file with a mark: the mark and CRLF both stay, one note names both", async () => {
		const bom = Buffer.from([0xef, 0xbb, 0xbf]);
		h = await modelWrites("run.ps1", Buffer.concat([bom, Buffer.from("old\r\nline\r\n")]), "new\nline\n");
		expect(readFileSync(join(h.tempDir, "run.ps1")).equals(Buffer.concat([bom, Buffer.from("new\r\nline\r\n")]))).toBe(
			true,
		);
		expect(resultText(h.session.messages)).toBe(
			"Successfully wrote 11 bytes to run.ps1 (kept as UTF-8 with its byte-order mark and CRLF line endings, as the file was)",
		);
	});

	it("content that brings its own CR, mixed or not, is written as given", async () => {
		h = await modelWrites("a.txt", Buffer.from("x\r\ny\r\n"), "one\r\ntwo\nthree\n");
		expect(onDisk(h, "a.txt")).toBe("one\r\ntwo\nthree\n");
		expect(resultText(h.session.messages)).toBe("Successfully wrote 15 bytes to a.txt");
	});

	it("a file mixing CRLF and LF, an LF file and a new file get the content as given", async () => {
		h = await modelWrites("mixed.txt", Buffer.from("a\r\nb\nc\r\n"), "a\nb\n");
		expect(onDisk(h, "mixed.txt")).toBe("a\nb\n");
		h.cleanup();
		h = await modelWrites("lf.txt", Buffer.from("a\nb\n"), "c\nd\n");
		expect(onDisk(h, "lf.txt")).toBe("c\nd\n");
		h.cleanup();
		h = await modelWrites("new.txt", undefined, "c\nd\n");
		expect(onDisk(h, "new.txt")).toBe("c\nd\n");
		expect(resultText(h.session.messages)).toBe("Successfully wrote 4 bytes to new.txt");
	});

	it("(pi-peer) pi 0.73.1 writes LF over the CRLF file (DELIBERATE_WRITE_KEEPS_CRLF)", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-crlf-write-"));
		try {
			await writeFile(join(cwd, "App.cs"), "class App\r\n{\r\n}\r\n");
			const tool = pi.createWriteToolDefinition(cwd);
			await tool.execute(
				"c",
				{ path: "App.cs", content: "class App\n{\n}\n" },
				undefined,
				undefined,
				undefined as never,
			);
			expect(await readFile(join(cwd, "App.cs"), "utf8")).toBe("class App\n{\n}\n");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
