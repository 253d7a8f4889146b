/**
 * User-visible texts of the session layer, in one place. Where pi has a text, it is pi's exact
 * wording (tests match them); model and auth texts live with the model runtime.
 */

import { sliceWholeCharacters } from "../tools/truncate.js";

/** `prompt()` while an operation runs, without `streamingBehavior`. */
export const STREAMING_BEHAVIOR_REQUIRED =
	"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/** `prompt()` while a manual `compact()` runs. */
export const COMPACTION_IN_PROGRESS =
	"Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry.";

/** `prompt()` while the session tree is being navigated. */
export const TREE_NAVIGATION_IN_PROGRESS =
	"Cannot submit a prompt while the session tree is being navigated. Wait for navigation to finish and retry.";

/** `sendCustomMessage({triggerTurn: true})` while a manual `compact()` runs: no turn follows it. */
export const CUSTOM_TURN_DURING_COMPACTION =
	"Cannot start a turn with a custom message while compaction is in progress. Wait for compaction to finish and retry, or send it with triggerTurn: false to add it to the session now.";

/** `sendCustomMessage({triggerTurn: true})` while the session tree is being navigated. */
export const CUSTOM_TURN_DURING_TREE_NAVIGATION =
	"Cannot start a turn with a custom message while the session tree is being navigated. Wait for navigation to finish and retry.";

/** A host's own `session.agent.prompt()` / `session.agent.continue()`. */
export function directAgentRun(method: "prompt" | "continue"): string {
	return `session.agent.${method}() was called directly: it would run the model past the session (no retry, compaction or agent_settled; the session would say idle). Use session.continue() to continue the transcript as it is, or session.prompt() to send a message.`;
}

/** `continue()` while an operation runs. */
export const CONTINUE_WHILE_BUSY =
	"Cannot continue while the agent is processing: the running operation already continues the transcript. Wait for it (waitForIdle()), then call continue() if its last message still waits for an answer.";

/** `continue()` on a transcript with nothing waiting for an answer. */
export function nothingToContinue(lastRole: string | undefined): string {
	return lastRole === undefined
		? "Nothing to continue: the session has no messages. Send a prompt with prompt()."
		: `Nothing to continue: the last message is the ${lastRole === "assistant" ? "assistant's answer" : `${lastRole} message`}, not a user message or a tool result waiting for the model. Send a prompt with prompt().`;
}

/** `steer()` / `followUp()` with an extension command. */
export function commandCannotBeQueued(name: string): string {
	return `Extension command "/${name}" cannot be queued. Use prompt() or execute the command when not streaming.`;
}

/** `/<name>` typed while two or more extensions register a command of that name (pi#1061). */
export function sharedCommandName(name: string, choices: readonly { invocationName: string; path: string }[]): string {
	const listed = choices.map((choice) => `/${choice.invocationName} (${choice.path})`).join(", ");
	return `/${name} is a command of ${choices.length} extensions, so each is run by its number: ${listed}. Nothing was sent to the model.`;
}

/**
 * `/skill:<name>` when no skill (and no template) has that name: sent as typed, it cost a model call
 * answering a command the model cannot run. Names the skill a settings filter switched off
 * (`switchedOff`), else the loaded skills (`skillNames`), those differing only in case first.
 */
export function unknownSkill(
	name: string,
	skillNames: readonly string[],
	switchedOff: { path: string; filter: string } | undefined,
): string {
	const nothingSent = "Nothing was sent to the model.";
	if (switchedOff) {
		return `/skill:${name} is not loaded: its skill ${switchedOff.path} is switched off by ${switchedOff.filter}. Change that filter to load it. ${nothingSent}`;
	}
	const meant = skillNames.filter((skill) => skill.toLowerCase() === name.toLowerCase());
	const hint = meant.length > 0 ? ` Skill names are case-sensitive: did you mean ${listed(meant)}?` : "";
	const loaded = skillNames.length > 0 ? `The loaded skills are ${listed(skillNames)}.` : "No skills are loaded.";
	return `/skill:${name} names no loaded skill.${hint} ${loaded} ${nothingSent}`;
}

function listed(skillNames: readonly string[]): string {
	return [...skillNames]
		.sort()
		.map((skill) => `/skill:${skill}`)
		.join(", ");
}

/** What every {@link clearedBeforeQueued} message says (the interactive chat has shown the text already). */
export const CLEARED_BEFORE_QUEUED = "was not queued: clearQueue() ran";

/**
 * A steer / follow-up that `clearQueue()` dropped on its way (it returned the text): while its input
 * hooks ran, or before the session took it up (a busy `prompt()` still in the machine's mailbox).
 */
export function clearedBeforeQueued(kind: "steer" | "followUp", text: string, hooksStarted = true): string {
	const shown = text.length > 60 ? `${sliceWholeCharacters(text, 60)}…` : text;
	const when = hooksStarted ? "while its input hooks did" : "before the session took it up";
	return `The ${kind === "steer" ? "steering" : "follow-up"} message "${shown}" ${CLEARED_BEFORE_QUEUED} ${when}, and returned its text. Send it again to deliver it.`;
}

/** Any call on a disposed session. */
export const SESSION_DISPOSED =
	"This AgentSession was disposed. Create a new session (or open the session file again) to continue.";

/** Any call on a session its runtime replaced (new session, switch, fork, clone, import). */
export const SESSION_REPLACED =
	"This AgentSession was replaced by its runtime (a new session, switch, fork, clone or import) and disposed. " +
	"Use runtime.session, the current one; runtime.onSessionReplaced(…) tells you when it changes.";

/** A prompt, steer, follow-up or message sent to a session its runtime has begun to replace (`BUSY`). */
export const SESSION_BEING_REPLACED =
	"This AgentSession is being replaced by its runtime (a new session, switch, fork, clone or import is in progress). " +
	"Wait for newSession()/switchSession()/fork() to resolve (or await runtime.waitForReplacement()) and use runtime.session; " +
	"if an extension cancels the replacement, runtime.session is still this session.";

/** Any call on a session whose runtime was disposed. */
export const SESSION_RUNTIME_DISPOSED =
	"This AgentSession was disposed with its runtime (runtime.dispose()). Create a new runtime to continue.";

/**
 * A prompt, steer, follow-up or message sent to a session while its runtime is being disposed
 * (`SESSION_CLOSED` at once: the dispose cannot be cancelled, so waiting and retrying cannot help).
 */
export const SESSION_RUNTIME_DISPOSING =
	"This AgentSession is being disposed with its runtime (runtime.dispose() is in progress): it takes no more input. " +
	"Create a new runtime to continue.";

/** A `compact()` its runtime cancelled to replace or dispose the session (`SESSION_CLOSED`). */
export const COMPACTION_CLOSED =
	"The session was replaced or closed while compacting: the compaction was cancelled and nothing was written.";

/** A `prompt()` still pending when the session is disposed. */
export const DISPOSED_BEFORE_SETTLED = "The AgentSession was disposed before this prompt settled.";

/** A `compact()` still pending when the session is disposed. */
export const DISPOSED_BEFORE_COMPACTION_SETTLED = "The AgentSession was disposed before this compaction settled.";

/** A `navigateTree()` still pending when the session is disposed (a replacement cut its summary). */
export const DISPOSED_BEFORE_NAVIGATION_SETTLED = "The AgentSession was disposed before this navigation settled.";

/**
 * `prompt()` rejects with this (`OPERATION_STALLED`) when its operation settled because a run made
 * no progress: the queued messages were left queued (`queued`: how many the display lists hold).
 */
export function operationStalledMessage(
	reason: "queued_messages" | "boundary_continuation",
	runIndex: number,
	queued: number,
): string {
	if (reason === "boundary_continuation") {
		return `The operation stopped: agent_before_settle asked to continue again, but the continuation it asked for (run ${runIndex}) added nothing to the session. Make the handler ask for continue only when the context has something new to answer.`;
	}
	const what = queued === 1 ? "1 queued message" : queued > 1 ? `${queued} queued messages` : "queued messages";
	return `The operation stopped: run ${runIndex} added nothing to the session while ${what} could not be delivered, so running again would loop. They are still queued: the next prompt delivers them, clearQueue() drops them.`;
}

/** A reload left an extension's tool inactive: the extension that provided it did not load (pi#8311). */
export function extensionToolLeftInactive(name: string): string {
	return (
		`Tool "${name}" that this extension provided is left inactive after the reload: the extension failed to load, ` +
		`and the built-in or SDK tool of that name does not take its place. Fix the extension and reload, ` +
		`or activate the other "${name}" with setActiveTools / --tools.`
	);
}

/**
 * Reported through the extension error path (`extension_error`, the host's `onError`) for each
 * `session_shutdown` handler still running when the bounded wait for them ran out (pi#9811).
 */
export function shutdownHandlerTimedOut(
	timeoutMs: number,
	goingOn: "reload" | "new" | "resume" | "fork" | "quit",
): string {
	const what = {
		reload: "the reload",
		new: "the new session",
		resume: "the session switch",
		fork: "the fork",
		quit: "the dispose",
	}[goingOn];
	return `session_shutdown handler did not finish within ${timeoutMs} ms; ${what} went on without it (it was not stopped, and its ctx is stale now). Make the handler return sooner (e.g. bound its own I/O), or raise shutdownTimeoutMs.`;
}

/** `shutdownTimeoutMs` that is not a duration. */
export function invalidShutdownTimeout(value: unknown): string {
	return `shutdownTimeoutMs must be a number of milliseconds ≥ 0, or Infinity to wait for session_shutdown handlers as long as they take (got ${String(value)}).`;
}

/**
 * A prompt (or message) sent while `reload()` ran, refused because that reload failed (`cause`): it
 * was held to run on the reloaded session, which the failure did not produce.
 */
export function promptHeldByFailedReload(cause: string): string {
	return `This prompt was sent during a reload that failed (${cause}); it was not run. Fix the cause and call reload() again, or send the prompt again to run it on the session as it is now.`;
}

/**
 * `reload()` overtaken by its runtime's replacement, which then rolled back, before the reload
 * loaded anything: the session goes on with the extensions it had.
 */
export function reloadCutOffByRolledBackTeardown(step: string): string {
	return `The reload stopped after its ${step} step: its runtime started replacing the session, then the replacement failed and the session goes on with the extensions it had. Call reload() again to reload.`;
}

/** `reload()` overtaken by its runtime's replacement or dispose of the session: it stopped after `step`. */
export function reloadCutOff(step: string): string {
	return `The reload stopped after its ${step} step: the session is being replaced or disposed by its runtime. Reload the session that replaces it, if needed.`;
}
