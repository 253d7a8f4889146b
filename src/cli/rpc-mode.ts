/**
 * `settle --rpc`: pi's RPC protocol over stdin/stdout. Commands are JSON lines on stdin
 * (`{"id":"1","type":"prompt","message":"hi"}`); every response is one line
 * `{"id","type":"response","command","success","data"?|"error"?}`; session events (and
 * `extension_error` lines) are written as they happen. The session may be replaced (new_session,
 * switch_session, fork, or an extension command); events then come from the new session.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { errorMessage, SettleError } from "../errors.js";
import type { ImageContent, ThinkingLevel } from "../llm/types.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { userMessageText } from "../runtime/targets.js";
import type { AgentSession } from "../session/agent-session.js";
import { THINKING_LEVELS } from "./args.js";
import { bindForCli, type CliOutput } from "./print-mode.js";

/** The commands served (pi's names and shapes). */
export type RpcCommand = { id?: string } & (
	| { type: "prompt"; message: string; images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }
	| { type: "steer"; message: string; images?: ImageContent[] }
	| { type: "follow_up"; message: string; images?: ImageContent[] }
	| { type: "abort" }
	| { type: "abort_retry" }
	| { type: "compact"; customInstructions?: string }
	| { type: "new_session"; parentSession?: string }
	| { type: "switch_session"; sessionPath: string }
	| { type: "fork"; entryId: string }
	| { type: "get_state" }
	| { type: "get_messages" }
	| { type: "get_last_assistant_text" }
	| { type: "get_fork_messages" }
	| { type: "get_commands" }
	| { type: "set_thinking_level"; level: ThinkingLevel }
	| { type: "set_session_name"; name: string }
	| { type: "bash"; command: string }
);

type Response = { id?: string; type: "response"; command: string; success: boolean; data?: unknown; error?: string };

/**
 * Serves commands until stdin ends (or an extension calls `ctx.shutdown()`), then disposes the
 * runtime. Returns the exit code (0).
 */
export async function runRpcMode(runtime: AgentSessionRuntime, input: Readable, out: CliOutput): Promise<number> {
	const write = (value: unknown) => out.stdout(`${JSON.stringify(value)}\n`);
	let unsubscribe: (() => void) | undefined;
	let shutdownRequested = false;
	const bind = async (session: AgentSession) => {
		await bindForCli(session, "rpc", out, {
			onError: (error) =>
				write({ type: "extension_error", extensionPath: error.extensionPath, event: error.event, error: error.error }),
			shutdown: () => {
				shutdownRequested = true;
			},
		});
		unsubscribe?.();
		unsubscribe = session.subscribe((event) => write(event));
	};
	runtime.setRebindSession(bind);
	await bind(runtime.session);

	const success = (id: string | undefined, command: string, data?: unknown): Response =>
		data === undefined
			? { ...(id !== undefined ? { id } : {}), type: "response", command, success: true }
			: { ...(id !== undefined ? { id } : {}), type: "response", command, success: true, data };
	const failure = (id: string | undefined, command: string, error: unknown): Response => ({
		...(id !== undefined ? { id } : {}),
		type: "response",
		command,
		success: false,
		error: errorMessage(error),
	});

	const handle = async (command: RpcCommand): Promise<Response | undefined> => {
		const id = command.id;
		const session = runtime.session;
		switch (command.type) {
			case "prompt": {
				// The response is sent once the prompt was handled, queued or started (pi: after preflight).
				let answered = false;
				session
					.prompt(command.message, {
						source: "rpc",
						...(command.images ? { images: command.images } : {}),
						...(command.streamingBehavior ? { streamingBehavior: command.streamingBehavior } : {}),
						preflightResult: () => {
							answered = true;
							write(success(id, "prompt"));
						},
					})
					.catch((error: unknown) => {
						if (answered) return;
						// An extension command that replaced the session ends the old session's prompt: that is success.
						const replaced =
							error instanceof SettleError && error.code === "SESSION_CLOSED" && runtime.session !== session;
						write(replaced ? success(id, "prompt") : failure(id, "prompt", error));
					});
				return undefined;
			}
			case "steer":
				await session.steer(command.message, command.images);
				return success(id, "steer");
			case "follow_up":
				await session.followUp(command.message, command.images);
				return success(id, "follow_up");
			case "abort":
				await session.abort();
				return success(id, "abort");
			case "abort_retry":
				session.abortRetry();
				return success(id, "abort_retry");
			case "compact":
				return success(id, "compact", await session.compact(command.customInstructions));
			case "new_session": {
				const options = command.parentSession ? { parentSession: command.parentSession } : {};
				return success(id, "new_session", await runtime.newSession(options));
			}
			case "switch_session":
				return success(id, "switch_session", await runtime.switchSession(command.sessionPath));
			case "fork": {
				const result = await runtime.fork(command.entryId);
				return success(id, "fork", { text: result.selectedText ?? "", cancelled: result.cancelled });
			}
			case "get_state":
				return success(id, "get_state", {
					model: session.model,
					thinkingLevel: session.thinkingLevel,
					isStreaming: session.isStreaming,
					isCompacting: session.isCompacting,
					steeringMode: session.steeringMode,
					followUpMode: session.followUpMode,
					sessionFile: session.sessionFile,
					sessionId: session.sessionId,
					sessionName: session.sessionName,
					autoCompactionEnabled: session.autoCompactionEnabled,
					messageCount: session.messages.length,
					pendingMessageCount: session.pendingMessageCount,
					cwd: runtime.cwd,
					lifecycle: session.lifecycle,
				});
			case "get_messages":
				return success(id, "get_messages", { messages: session.messages });
			case "get_last_assistant_text": {
				const last = [...session.messages].reverse().find((message) => message.role === "assistant");
				const text =
					last && last.role === "assistant"
						? last.content
								.filter((block) => block.type === "text")
								.map((block) => (block as { text: string }).text)
								.join("")
						: null;
				return success(id, "get_last_assistant_text", { text: text || null });
			}
			case "get_fork_messages": {
				const messages: { entryId: string; text: string }[] = [];
				for (const entry of session.sessionManager.getBranch()) {
					if (entry.type !== "message" || entry.message.role !== "user") continue;
					messages.push({ entryId: entry.id, text: userMessageText(entry.message.content as never) });
				}
				return success(id, "get_fork_messages", { messages });
			}
			case "get_commands":
				return success(id, "get_commands", {
					commands: session.extensionRunner.getCommandInfos(),
				});
			case "set_thinking_level":
				if (!(THINKING_LEVELS as readonly string[]).includes(command.level)) {
					return failure(id, "set_thinking_level", `Invalid thinking level "${command.level}"`);
				}
				session.setThinkingLevel(command.level);
				return success(id, "set_thinking_level");
			case "set_session_name": {
				const name = typeof command.name === "string" ? command.name.trim() : "";
				if (!name) return failure(id, "set_session_name", "Session name cannot be empty");
				session.setSessionName(name);
				return success(id, "set_session_name");
			}
			case "bash":
				return success(id, "bash", await session.executeBash(command.command));
			default: {
				const unknown = command as { type?: unknown; id?: string };
				return failure(unknown.id, String(unknown.type), `Unknown command: ${String(unknown.type)}`);
			}
		}
	};

	const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
	// Commands run one at a time, in order; a prompt only waits for its preflight.
	for await (const line of lines) {
		if (line.trim() === "") continue;
		let command: RpcCommand;
		try {
			command = JSON.parse(line) as RpcCommand;
			if (!command || typeof command !== "object" || typeof command.type !== "string")
				throw new SettleError("INVALID_ARGUMENT", 'a command is one JSON object per line with a string "type"');
		} catch (error) {
			write(failure(undefined, "parse", `Failed to parse command: ${errorMessage(error)}`));
			continue;
		}
		try {
			const response = await handle(command);
			if (response) write(response);
		} catch (error) {
			write(failure(command.id, command.type, error));
		}
		if (shutdownRequested) break;
	}
	lines.close();
	await runtime.session.waitForIdle();
	unsubscribe?.();
	await runtime.dispose();
	return 0;
}
