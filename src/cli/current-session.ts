/**
 * Input a CLI surface (RPC, interactive) sends to `runtime.session`: while a replacement is in
 * progress the session refuses it (`BUSY`), so it waits for the replacement and sends it to the
 * session current then — the new one, or the old one if an extension cancelled (pi runs it there).
 */
import { isReplacementRefusal } from "../runtime/errors.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";

/**
 * Calls `send` with the current session; when a replacement in progress refused it, again once the
 * replacement is over, with the session current then.
 *
 * @example
 * ```ts
 * await sendToCurrentSession(runtime, (session) => session.steer("use the new API"));
 * ```
 */
export function sendToCurrentSession<T>(
	runtime: AgentSessionRuntime,
	send: (session: AgentSession) => Promise<T>,
): Promise<T> {
	// The first attempt is synchronous: input sent when no replacement runs starts in arrival order
	// (an `abort` right after a `prompt` reaches the run the prompt started).
	const attempt = (): Promise<T> =>
		send(runtime.session).catch((error: unknown) => {
			if (!isReplacementRefusal(error) || runtime.isDisposed) throw error;
			return runtime.waitForReplacement().then(attempt);
		});
	return attempt();
}
