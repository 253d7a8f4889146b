/**
 * Reports about what a bash command's result says, replayed against Settle with a real shell:
 * - pi#9577: a shell killed by a signal (`kill -KILL $$`, the OOM killer) resolved as a success
 *   with its partial output; the model took a cut-off build for a finished one.
 * - Kilo-Org/kilocode#12698: a command whose binary segfaults (bash execs a lone command, so the
 *   signal ends the spawned process itself) had no exit code: the call waited out its timeout.
 * - opencode#36655 / pi#433: a UTF-8 character split across two reads of stdout, with a stderr
 *   chunk read in between, was decoded with the stderr bytes in its middle: U+FFFD in place of
 *   both, in the model's result and in a `!` command's streamed output.
 * - claude-code#64594 / txtai#1209: a command that reads stdin (`cat` with no file, `read`) waited
 *   forever on an input nobody can give.
 * - pi#754: `bash -c` does not expand aliases; `shellCommandPrefix` is how a user turns them on,
 *   for the model's calls and `!` commands alike.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { createBashToolDefinition } from "../../src/tools/bash.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(() => {
	h?.cleanup();
	h = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-bash-streams-"));
	dirs.push(dir);
	return dir;
}

function toolResultText(session: Harness["session"]): { isError: boolean; text: string } {
	const result = session.messages.find((message) => message.role === "toolResult") as
		| { isError: boolean; content: { type: string; text: string }[] }
		| undefined;
	if (!result) throw new Error("no tool result");
	return { isError: result.isError, text: result.content.map((part) => part.text).join("") };
}

/**
 * A command that writes the first byte of "🙂" to stdout, then `mid-stderr` to stderr, and waits
 * until `gate` exists before writing the other three bytes: the two halves of the character are
 * two reads of the pipe, with the stderr chunk read between them.
 */
function splitCharacterCommand(gate: string): string {
	return [
		"printf 'smile: \\360'",
		"printf 'mid-stderr\\n' >&2",
		`while [ ! -e '${gate}' ]; do sleep 0.02; done`,
		"printf '\\237\\231\\202 end\\n'",
	].join("; ");
}

/**
 * `!make` in `harness`, whose extension reports a `null` exit after printing "half a build": the
 * result and the session file record it as killed, and the next prompt tells the model so.
 */
async function expectMakeRecordedAsKilled(harness: Harness): Promise<void> {
	const { answerRequests } = script(harness, [fauxAssistantMessage("noted")]);
	const result = await harness.session.executeBash("make");
	expect(result).toMatchObject({
		output: "half a build\n",
		exitCode: undefined,
		killedBySignal: true,
		cancelled: false,
	});
	const recorded = harness.sessionManager.getBranch().at(-1);
	expect(recorded).toMatchObject({ message: { role: "bashExecution", killedBySignal: true } });
	await harness.session.prompt("did it build?");
	const sent = JSON.stringify(answerRequests[0]?.messages);
	expect(sent).toContain("Command was killed by a signal");
}

describe("pi#9577: a shell killed by a signal is a failure", () => {
	it("pi#9577: `kill -KILL $$` from the model's bash call is an error result saying exit code 137, with the output before the kill", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "printf 'before-kill\\n'; kill -KILL $$" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		const { isError, text } = toolResultText(h.session);
		expect(isError).toBe(true);
		expect(text).toBe("before-kill\n\n\nCommand exited with code 137");
	});

	it("pi#9577: SIGTERM gives 143, as `$?` in a shell; a `!` command records it", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await h.session.executeBash("printf 'partial\\n'; kill -TERM $$");
		expect(result).toMatchObject({ output: "partial\n", exitCode: 143, cancelled: false });
		const recorded = h.session.messages.find((message) => message.role === "bashExecution");
		expect(recorded).toMatchObject({ exitCode: 143 });
	});

	it("Kilo-Org/kilocode#12698: a binary that segfaults as the whole command (bash execs it: no shell left to report `$?`) ends the call at once, an error saying 139, not at its timeout", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("bash", {
						// `exec`, as bash does for a lone command: the spawned process itself dies of the signal (no core file).
						command: `ulimit -c 0; exec node -e 'console.log("parsing"); process.kill(process.pid, "SIGSEGV")'`,
						timeout: 600,
					}),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		expect(toolResultText(h.session)).toEqual({ isError: true, text: "parsing\n\n\nCommand exited with code 139" });
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("pi#9577: operations that report `exitCode: null` (pi's contract for a signal) make the call fail", async () => {
		const tool = createBashToolDefinition(tempDir(), {
			operations: {
				async exec(_command, _cwd, { onData }) {
					onData(Buffer.from("half a build\n"));
					return { exitCode: null };
				},
			},
		});
		await expect(tool.execute("call-1", { command: "make" }, undefined, undefined, undefined as never)).rejects.toThrow(
			"half a build\n\n\nCommand was killed by a signal",
		);
	});

	it("pi#9577: a `!` command run by an extension's operations that report `exitCode: null` is recorded as killed, and the model is told so (pi told it nothing)", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi) =>
					pi.on("user_bash", () => ({
						operations: {
							async exec(_command, _cwd, { onData }) {
								onData(Buffer.from("half a build\n"));
								return { exitCode: null };
							},
						},
					})),
			],
		});
		await expectMakeRecordedAsKilled(h);
	});

	it("pi#9577: a `user_bash` handler's own result with `exitCode: null` (a JavaScript extension passing on a child's close code) is recorded as killed, as the operations path records it, and the model is told so", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi) =>
					pi.on("user_bash", () => ({
						// Off the TypeScript type, as a JavaScript extension writes it.
						result: {
							output: "half a build\n",
							exitCode: null as unknown as undefined,
							cancelled: false,
							truncated: false,
						},
					})),
			],
		});
		await expectMakeRecordedAsKilled(h);
	});
});

describe("opencode#36655 / pi#433: a UTF-8 character split across reads, stderr in between", () => {
	it("opencode#36655: the model's bash result keeps the character whole", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const gate = join(tempDir(), "gate");
		// The rest of the character is written once the stderr chunk has been streamed.
		const unsubscribe = h.session.subscribe((event) => {
			if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("mid-stderr")) {
				if (!existsSync(gate)) writeFileSync(gate, "");
			}
		});
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: splitCharacterCommand(gate) })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		unsubscribe();
		const { isError, text } = toolResultText(h.session);
		expect(isError).toBe(false);
		expect(text).not.toContain("\uFFFD");
		expect(text).toContain("🙂 end\n");
		expect(text).toContain("mid-stderr\n");
	});

	it("pi#433: a `!` command's streamed chunks and recorded output keep the character whole", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const gate = join(tempDir(), "gate");
		const chunks: string[] = [];
		const result = await h.session.executeBash(splitCharacterCommand(gate), (chunk) => {
			chunks.push(chunk);
			if (chunks.join("").includes("mid-stderr") && !existsSync(gate)) writeFileSync(gate, "");
		});
		expect(result.exitCode).toBe(0);
		expect(result.output).not.toContain("\uFFFD");
		expect(result.output).toContain("🙂 end\n");
		expect(chunks.join("")).toBe(result.output);
	});

	it("pi#433: a byte that never gets its continuation is still shown (as U+FFFD) when the stream ends", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await h.session.executeBash("printf 'cut \\342\\202'");
		expect(result.output).toBe("cut \uFFFD");
	});
});

describe("claude-code#64594 / txtai#1209: a command that reads stdin", () => {
	it("claude-code#64594: `cat` with no file and `read` get end-of-input at once: the call returns", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage(
				[fauxToolCall("bash", { command: 'cat; read -r answer; echo "read exit $? answer=[$answer]"' })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		expect(toolResultText(h.session)).toEqual({ isError: false, text: "read exit 1 answer=[]\n" });
		const user = await h.session.executeBash("cat; echo after-cat");
		expect(user).toMatchObject({ output: "after-cat\n", exitCode: 0 });
	});
});

describe("pi#754: aliases in a non-interactive shell, through shellCommandPrefix", () => {
	it("pi#754: an alias the prefix defines (with `shopt -s expand_aliases`) runs in the model's bash call and in a `!` command", async () => {
		h = await createHarness({
			initialActiveToolNames: ["bash"],
			settings: { shellCommandPrefix: "shopt -s expand_aliases; alias greet='echo hello-from-alias'" },
		});
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "greet model" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it");
		expect(toolResultText(h.session)).toEqual({ isError: false, text: "hello-from-alias model\n" });
		const user = await h.session.executeBash("greet user");
		expect(user).toMatchObject({ output: "hello-from-alias user\n", exitCode: 0 });
	});
});
