/**
 * opencode#43731: a context-compression plugin rewrote the text of existing messages in the
 * `context` hook, in place, for the request only; the host wrote those mutations back into the
 * stored session (matched by part id), so every rewrite became permanent history and the next
 * request rewrote the rewritten text again. pi's `context` event is the same hook. Replayed with a
 * real `.ts` extension in the real `settle` CLI: the handler tags every user text in place
 * (`[ref] …`); `-p` with two prompts in one process, then `-c -p` in a second; the faux model
 * echoes the last user text it received. What the author should see: each request carries the
 * rewrite once (the answers echo `[ref] …`); each handler call sees the untouched texts, never a
 * rewrite from an earlier request; the session file keeps what the user typed.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { fileEntries, textOf } from "./helpers.js";

const cli = useCliProject("settle-pi-races-context-rewrites-");

const TAGGER = `import { appendFileSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("context", (event) => {
		const seen: string[] = [];
		for (const message of event.messages) {
			if (message.role !== "user") continue;
			if (typeof message.content === "string") {
				seen.push(message.content);
				message.content = \`[ref] \${message.content}\`;
				continue;
			}
			for (const part of message.content) {
				if (part.type !== "text") continue;
				seen.push(part.text);
				part.text = \`[ref] \${part.text}\`;
			}
		}
		appendFileSync(process.env.CTX_LOG as string, \`\${JSON.stringify(seen)}\\n\`);
	});
}
`;

describe("opencode#43731: context rewrites stay in the request", () => {
	it("opencode#43731: a context handler mutating messages in place: each request tagged once, the next handler call sees the originals, the file keeps the typed texts", () => {
		const extension = join(cli.dir, "tagger.ts");
		writeFileSync(extension, TAGGER);
		const log = join(cli.dir, "context.log");
		const settle = (args: string[]) =>
			runSettle(["--faux", "-e", extension, ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
				env: { CTX_LOG: log },
			});
		const first = settle(["-p", "hello there", "and again"]);
		expect([first.code, first.stdout.trim()]).toEqual([0, "[ref] and again"]);
		const second = settle(["-c", "-p", "third"]);
		expect([second.code, second.stdout.trim()]).toEqual([0, "[ref] third"]);

		expect(
			readFileSync(log, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line)),
		).toEqual([["hello there"], ["hello there", "and again"], ["hello there", "and again", "third"]]);
		const files = readdirSync(cli.agentDir, { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		expect(files).toHaveLength(1);
		const messages = fileEntries(join(cli.agentDir, files[0] as string)).flatMap((entry) =>
			entry.type === "message" && entry.message ? [entry.message] : [],
		);
		expect(messages.flatMap((message) => textOf(message) ?? [])).toEqual(["hello there", "and again", "third"]);
		const answers = messages.flatMap((message) =>
			message.role === "assistant" ? message.content.flatMap((part) => (part.type === "text" ? part.text : [])) : [],
		);
		expect(answers).toEqual(["[ref] hello there", "[ref] and again", "[ref] third"]);
	});
});
