/**
 * claude-code#6273 (and its many duplicates: #1939, #3277, #60394): "The request body is not valid
 * JSON: no low surrogate in string", then the same 400 for every message the user sent: the session
 * was dead, and resuming it replayed the same body. One way in: a model streams half an emoji as a
 * JSON escape (`"\ud83d"`) in a tool call's arguments. pi-ai cleans lone surrogates out of text,
 * thinking and tool results, but sends a tool call's arguments to Anthropic as they came, so the
 * request after the tool ran held the lone half. What the user should see: the turn goes on, and
 * the session can be continued.
 *
 * Real `settle -p` and `settle -c -p` child processes against a local server speaking the
 * Anthropic Messages API through pi-ai's client, refusing a lone surrogate as the API does.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { type RecordedRequest, useWireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function strings(value: unknown, found: string[] = []): string[] {
	if (typeof value === "string") found.push(value);
	else if (value !== null && typeof value === "object") {
		for (const [key, item] of Object.entries(value)) {
			found.push(key);
			strings(item, found);
		}
	}
	return found;
}

const holdsLoneSurrogate = (request: RecordedRequest) => strings(request.body).some((s) => LONE_SURROGATE.test(s));

const cli = useCliProject("settle-pi-races-lone-surrogate-");
// Anthropic parses the body strictly: a lone surrogate fails the whole request.
const server = useWireServer((request, next) =>
	holdsLoneSurrogate(request)
		? anthropicError(
				400,
				"invalid_request_error",
				"The request body is not valid JSON: no low surrogate in string: line 1 column 1024 (char 1023)",
			)
		: next(),
);

/** The local server, as an Anthropic model, answers with a bash call running `command`, then "printed it". */
function bashCallThenAnswer(command: string): void {
	writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
	server.reply(
		anthropicReply([{ type: "tool_use", id: "toolu_01", name: "bash", input: { command } }], {
			stopReason: "tool_use",
		}),
		anthropicReply([{ type: "text", text: "printed it" }]),
	);
}

/** `settle --model local/coder <args>` in the project. */
const settle = (...args: string[]) =>
	runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });

/** The `input` of every tool_use block the requests sent back, in order. */
function sentToolInputs(): unknown[] {
	return server.requests.flatMap((request) =>
		(request.body.messages as { content: unknown }[]).flatMap((message) =>
			Array.isArray(message.content)
				? (message.content as { type: string; input?: unknown }[])
						.filter((block) => block.type === "tool_use")
						.map((block) => block.input)
				: [],
		),
	);
}

describe("claude-code#6273: a lone surrogate in a tool call's arguments fails every later request", () => {
	it("claude-code#6273: a bash call streamed with half an emoji runs; the next request sends it with U+FFFD and is answered, and settle -c continues the session", async () => {
		bashCallThenAnswer("echo 'launch \ud83d'");
		const first = await settle("-p", "print a rocket");
		expect(first.stderr).toBe("");
		expect(first.stdout).toBe("printed it\n");
		expect(first.code).toBe(0);

		server.reply(anthropicReply([{ type: "text", text: "still here" }]));
		const resumed = await settle("-c", "-p", "and again?");
		expect(resumed.stderr).toBe("");
		expect(resumed.stdout).toBe("still here\n");
		expect(resumed.code).toBe(0);

		expect(server.requests).toHaveLength(3);
		expect(server.requests.some(holdsLoneSurrogate)).toBe(false);
		// What the command received: a string crosses to a child process as UTF-8, the half as U+FFFD.
		expect(sentToolInputs()).toEqual([{ command: "echo 'launch \ufffd'" }, { command: "echo 'launch \ufffd'" }]);
	});

	it("races133: the session file and every --mode json line hold the U+FFFD the command ran with and the request sent, never the lone half", async () => {
		bashCallThenAnswer("echo 'launch \ud83d'");
		const run = await settle("--mode", "json", "-p", "print a rocket");
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		// A strict reader (serde_json, Python re-encoding to UTF-8) refuses a lone surrogate escape.
		const lines = run.stdout.split("\n").filter(Boolean);
		expect(lines.length).toBeGreaterThan(5);
		expect(lines.filter((line) => strings(JSON.parse(line)).some((s) => LONE_SURROGATE.test(s)))).toEqual([]);
		expect(run.stdout).toContain("launch \\ufffd");

		const [file] = sessionFilesUnder(cli.agentDir);
		const entries = readFileSync(file!, "utf8").split("\n").filter(Boolean);
		expect(entries.filter((line) => strings(JSON.parse(line)).some((s) => LONE_SURROGATE.test(s)))).toEqual([]);
		// The saved call is what ran and what was sent: resuming sends the same text.
		const saved = entries
			.map((line) => JSON.parse(line) as { message?: { role?: string; content?: unknown } })
			.flatMap((entry) => (entry.message?.role === "assistant" ? (entry.message.content as { type: string }[]) : []))
			.filter((block) => block.type === "toolCall");
		expect(saved).toMatchObject([{ name: "bash", arguments: { command: "echo 'launch \ufffd'" } }]);
		expect(sentToolInputs()).toEqual([{ command: "echo 'launch \ufffd'" }]);
	});

	it("a session file that holds the lone half (pi 0.73.1's, or Settle's before races133) is sent with U+FFFD when continued", async () => {
		bashCallThenAnswer("echo 'launch ROCKET'");
		const first = await settle("-p", "print a rocket");
		expect(first.code).toBe(0);
		const [file] = sessionFilesUnder(cli.agentDir);
		const saved = readFileSync(file!, "utf8");
		expect(saved).toContain("launch ROCKET");
		// As such a file holds it: JSON.stringify's escape of the lone half.
		writeFileSync(file!, saved.replaceAll("launch ROCKET", "launch \\ud83d"));

		server.reply(anthropicReply([{ type: "text", text: "still here" }]));
		const resumed = await settle("-c", "-p", "and again?");
		expect(resumed.stderr).toBe("");
		expect(resumed.stdout).toBe("still here\n");
		expect(server.requests.some(holdsLoneSurrogate)).toBe(false);
		expect(sentToolInputs().at(-1)).toEqual({ command: "echo 'launch \ufffd'" });
	});
});
