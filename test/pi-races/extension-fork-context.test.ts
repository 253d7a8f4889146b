/**
 * pi-subagents#87: a "fork context" subagent tool called `ctx.sessionManager.createBranchedSession`
 * on the live session to give the child a copy of the conversation. In pi that call repoints the
 * live manager at the new file: the parent's tool result, and everything after it, went into the
 * child's file, and the parent's own file ended on an unanswered tool call — the session looked
 * stuck. What that user should see: the parent's file keeps its conversation, tool result included,
 * and the copy the child gets is a file of its own. Settle's `ctx.sessionManager` is read-only: the
 * call is a typed `EXTENSION` error naming the API to use, and `SessionManager.forkFrom` copies the
 * file without touching the live session. Real JSONL files.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager, SettleError } from "../../src/index.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

interface Line {
	type: string;
	message?: { role: string; content: unknown; toolCallId?: string };
}

function lines(file: string): Line[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Line);
}

/** The conversation messages of a file (Settle also records the system prompt sent, as `system`). */
function conversation(file: string): Line[] {
	return lines(file).filter((line) => line.type === "message" && line.message!.role !== "system");
}

describe("pi-subagents#87: a fork-context tool branches the live session manager; the parent's tool result lands in the child's file", () => {
	it("pi-subagents#87: createBranchedSession through ctx.sessionManager from a tool is a typed EXTENSION error; the tool result stays in the parent's file and forkFrom gives the child its own copy", async () => {
		let refused: unknown;
		let childFile: string | undefined;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi) => {
					pi.registerTool({
						name: "subagent",
						label: "subagent",
						description: "runs a subagent on a copy of this conversation",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, _onUpdate, ctx) => {
							const manager = ctx.sessionManager;
							try {
								(manager as unknown as SessionManager).createBranchedSession(manager.getLeafId()!);
							} catch (error) {
								refused = error;
							}
							const file = manager.getSessionFile()!;
							childFile = SessionManager.forkFrom(file, ctx.cwd, { sessionDir: dirname(file) }).getSessionFile();
							return { content: [{ type: "text", text: "SUBAGENT-DONE" }], details: {} };
						},
					});
				},
			],
		});
		const parentFile = h.sessionManager.getSessionFile()!;
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("subagent", {}, { id: "call-1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The subagent finished."),
		]);
		await h.session.prompt("delegate this");

		expect(refused).toBeInstanceOf(SettleError);
		expect((refused as SettleError).code).toBe("EXTENSION");
		expect((refused as SettleError).message).toContain("ctx.fork(entryId)");

		// The live session still writes its own file, which holds the whole turn.
		expect(h.sessionManager.getSessionFile()).toBe(parentFile);
		const parent = conversation(parentFile);
		expect(parent.map((line) => line.message!.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
		expect(JSON.stringify(parent[2]!.message!.content)).toContain("SUBAGENT-DONE");

		// The child's copy is a file of its own: the conversation up to the call, nothing after.
		expect(childFile).toBeDefined();
		expect(childFile).not.toBe(parentFile);
		expect(existsSync(childFile!)).toBe(true);
		const child = lines(childFile!);
		expect(child[0]).toMatchObject({ type: "session", parentSession: parentFile });
		expect(conversation(childFile!).map((line) => line.message!.role)).toEqual(["user", "assistant"]);
		expect(readdirSync(dirname(parentFile)).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);
	});
});
