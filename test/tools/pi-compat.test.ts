/**
 * Side by side with pi 0.73.1's own tools (the peer we must stay compatible with): the same inputs
 * must give the same user-visible texts. grep/find are not compared (pi needs ripgrep/fd binaries).
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { numberedDiff } from "../../src/tools/edit-diff.js";
import { createAllToolDefinitions } from "../../src/tools/index.js";
import { truncateHead, truncateTail } from "../../src/tools/truncate.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { fixture, tempProject } from "./helpers.js";

type PiDiff = (a: string, b: string) => { diff: string; firstChangedLine: number | undefined };
let piDiff: PiDiff;
beforeAll(async () => {
	const url = new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/core/tools/edit-diff.js", import.meta.url);
	piDiff = ((await import(url.href)) as { generateDiffString: PiDiff }).generateDiffString;
});

/** What a user (or model) sees: the text of a result, or the message of a failure. */
async function visible(tool: { execute: AnyToolDefinition["execute"] }, params: Record<string, unknown>) {
	try {
		const result: AgentToolResult = await tool.execute("c", params, undefined, undefined, undefined);
		return { ok: result.content.map((c) => (c.type === "text" ? c.text : `[${c.mimeType}]`)).join("|") };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

function both(cwd: string) {
	const ours = createAllToolDefinitions(cwd);
	const theirs = {
		read: pi.createReadToolDefinition(cwd, { autoResizeImages: false }),
		bash: pi.createBashToolDefinition(cwd),
		edit: pi.createEditToolDefinition(cwd),
		write: pi.createWriteToolDefinition(cwd),
		ls: pi.createLsToolDefinition(cwd),
	} as unknown as Record<string, { execute: AnyToolDefinition["execute"] }>;
	return async (name: "read" | "bash" | "edit" | "write" | "ls", params: Record<string, unknown>) => {
		const [a, b] = [await visible(ours[name], params), await visible(theirs[name]!, params)];
		return { ours: a, pi: b };
	};
}

const numbered = (n: number, width = 0) =>
	Array.from({ length: n }, (_, i) => `${i + 1}`.padEnd(width, "x")).join("\n");

describe("same texts as pi 0.73.1", () => {
	it("read: whole files, line and byte truncation, offset/limit, long lines, bad offsets", async () => {
		const cwd = await tempProject({
			"small.txt": "a\nb\n",
			"lines.txt": numbered(2600),
			"bytes.txt": numbered(300, 400),
			"long.txt": `x\n${"y".repeat(70_000)}\nz`,
		});
		const compare = both(cwd);
		for (const params of [
			{ path: "small.txt" },
			{ path: "lines.txt" },
			{ path: "lines.txt", offset: 2001 },
			{ path: "lines.txt", offset: 10, limit: 5 },
			{ path: "bytes.txt" },
			{ path: "long.txt", offset: 2 },
			{ path: "small.txt", offset: 99 },
		]) {
			const { ours, pi: theirs } = await compare("read", params);
			// Deliberate difference (read.ts readText, pi#7329): pi counts the break that ends "a\nb\n"
			// as the start of a third line; Settle counts 2, as `wc -l` does.
			if (params.path === "small.txt" && params.offset === 99) {
				expect(theirs).toEqual({ error: "Offset 99 is beyond end of file (3 lines total)" });
				expect(ours).toEqual({ error: "Offset 99 is beyond end of file (2 lines total)" });
				continue;
			}
			expect(ours, JSON.stringify(params)).toEqual(theirs);
		}
	});

	it("read: the same image blocks", async () => {
		const cwd = await tempProject();
		const png = fixture("images/red-3x2.png");
		const { ours, pi: theirs } = await both(cwd)("read", { path: png });
		expect(ours).toEqual(theirs);
	});

	it("edit: success texts, diffs and every error text", async () => {
		const content = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n";
		for (const edits of [
			[{ oldText: "two", newText: "2" }],
			[
				{ oldText: "twelve", newText: "12" },
				{ oldText: "three\nfour", newText: "3\n4" },
			],
			[{ oldText: "missing", newText: "x" }],
			[
				{ oldText: "one", newText: "1" },
				{ oldText: "missing", newText: "x" },
			],
			[{ oldText: "e", newText: "E" }],
			[
				{ oldText: "one\ntwo", newText: "x" },
				{ oldText: "two\nthree", newText: "y" },
			],
			[{ oldText: "five", newText: "five" }],
			[{ oldText: "", newText: "x" }],
		]) {
			const cwdOurs = await tempProject({ "f.txt": content });
			const cwdPi = await tempProject({ "f.txt": content });
			const ours = await visible(createAllToolDefinitions(cwdOurs).edit, { path: "f.txt", edits });
			const theirs = await visible(pi.createEditToolDefinition(cwdPi) as unknown as AnyToolDefinition, {
				path: "f.txt",
				edits,
			});
			// Deliberate addition (edit-diff.ts ambiguous, openclaw#21645): after "Found N occurrences …", Settle
			// names the lines they start on; pi says nothing more.
			const oursAsPi =
				ours.error === undefined
					? ours
					: { error: ours.error.replace(/(make it unique\.) They start on lines? .*$/s, "$1") };
			expect(oursAsPi, JSON.stringify(edits)).toEqual(theirs);
			expect(await readFile(join(cwdOurs, "f.txt"), "utf-8")).toBe(await readFile(join(cwdPi, "f.txt"), "utf-8"));
		}
	});

	it("edit: the numbered diff format matches pi's for random changes", () => {
		const lines = fc.array(fc.constantFrom("a", "b", "c", "", "dd"), { maxLength: 30 });
		fc.assert(
			fc.property(lines, lines, (before, after) => {
				const a = before.join("\n");
				const b = after.join("\n");
				expect(numberedDiff(a, b)).toEqual(piDiff(a, b));
			}),
			{ numRuns: 200 },
		);
	});

	it("write and ls: the same texts", async () => {
		const cwd = await tempProject({ "b.txt": "", "A/x": "", ".hidden": "" });
		const compare = both(cwd);
		const written = await compare("write", { path: "new/dir/file.txt", content: "hello" });
		expect(written.ours).toEqual({ ok: "Successfully wrote 5 bytes to new/dir/file.txt" });
		expect(written.ours).toEqual(written.pi);
		for (const params of [{}, { limit: 2 }, { path: "A" }]) {
			const { ours, pi: theirs } = await compare("ls", params);
			expect(ours, JSON.stringify(params)).toEqual(theirs);
		}
	});

	it("bash: outputs, exit codes, timeouts and truncation notices (temp paths aside)", async () => {
		const cwd = await tempProject();
		const compare = both(cwd);
		const withoutTempPath = (v: { ok?: string; error?: string }) =>
			JSON.stringify(v).replace(/Full output: [^\]]+\]/g, "Full output: <file>]");
		for (const params of [
			{ command: "echo hi" },
			{ command: "true" },
			{ command: "echo out; exit 4" },
			{ command: "exit 1" },
			// Cut outputs end without a line break: pi 0.73.1 counts the break as one more line (pi#4818,
			// fixed in pi since; test/pi-races/bash-output-lines.test.ts), Settle does not.
			{ command: "seq 1 2500; printf end" },
			{ command: "for i in $(seq 1 80); do printf '%0999d\\n' $i; done; printf end; exit 2" },
			{ command: "echo started; sleep 5", timeout: 0.3 },
		]) {
			const { ours, pi: theirs } = await compare("bash", params);
			// Both tools keep the full output of a truncated run in a temp file the notice names.
			for (const [, path] of JSON.stringify([ours, theirs]).matchAll(/Full output: ([^\]]+)\]/g))
				await rm(path!, { force: true });
			expect(withoutTempPath(ours), JSON.stringify(params)).toBe(withoutTempPath(theirs));
		}
	});

	it("truncation results equal pi's on random text", () => {
		const text = fc.array(fc.string({ unit: "grapheme", maxLength: 8 }), { maxLength: 30 }).map((l) => l.join("\n"));
		const limits = fc.record({ maxLines: fc.integer({ min: 1, max: 20 }), maxBytes: fc.integer({ min: 1, max: 100 }) });
		fc.assert(
			fc.property(text, limits, (t, options) => {
				expect(truncateHead(t, options)).toEqual(pi.truncateHead(t, options));
				expect(truncateTail(t, options)).toEqual(pi.truncateTail(t, options));
			}),
			{ numRuns: 300 },
		);
	});
});
