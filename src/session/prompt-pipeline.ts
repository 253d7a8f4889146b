/**
 * The prompt pipeline (in pi's order), as the machine's `preflight` and
 * `busyPreflight` actors plus the queueing entry points `steer()` / `followUp()`:
 *
 * 1. extension command (`/name args`) → handled, no model call (also while streaming);
 * 2. manual compaction in progress → rejected;
 * 3. `input` hook → continue / transform (chained) / handled;
 * 4. skill and prompt-template expansion;
 * 5. busy → queued as steering or follow-up (`streamingBehavior` required), images resized now and
 *    checked as in step 11 when the message is sent, against the model then in use;
 * 6. pending bash and custom messages flushed;
 * 7–8. model and auth checks (pi's rejection texts);
 * 9. pre-send compaction check;
 * 10. `before_agent_start` (custom messages, a one-operation system prompt override; also for a
 *     custom message that triggers a turn);
 * 11. images checked against the (possibly switched) model: dropped ones leave a hint in the text;
 * 12. messages: [system patch] + user message + next-turn messages + handler messages → started.
 *
 * Rejections throw; the machine turns them into a rejected `preflight_result`, and nothing runs.
 */
import type {
	BusyPreflightInput,
	BusyPreflightOutcome,
	PreflightOutcome,
	PromptOperationEvent,
	PromptRequest,
} from "../../machines/prompt-operation.machine.js";
import { lastNonSystemMessage } from "../agent/agent-loop.js";
import { SettleError } from "../errors.js";
import { type BeforeAgentStartExtras, parseCommandInvocation } from "../extensions/runner.js";
import type { ExtensionError, InputSource } from "../extensions/types.js";
import { authenticationFailedMessage, noApiKeyFoundMessage, noModelSelectedMessage } from "../llm/model-runtime.js";
import type { AgentMessage, ImageContent, Model } from "../llm/types.js";
import { expandPromptTemplate, templateBodyOnDisk } from "../resources/prompt-templates.js";
import { expandSkillCommand, switchedOffSkills } from "../resources/skills.js";
import { preSendCompaction, releasePreflightDispatch } from "./compaction-runner.js";
import { fitPromptImages, normalizePromptImages, promptImagesNeedFitting } from "./images.js";
import type { SessionInternals } from "./internals.js";
import type { CustomMessage } from "./messages.js";
import { userMessage } from "./queues.js";
import {
	COMPACTION_IN_PROGRESS,
	CONTINUE_WHILE_BUSY,
	CUSTOM_TURN_DURING_COMPACTION,
	CUSTOM_TURN_DURING_TREE_NAVIGATION,
	clearedBeforeQueued,
	commandCannotBeQueued,
	nothingToContinue,
	STREAMING_BEHAVIOR_REQUIRED,
	sharedCommandName,
	TREE_NAVIGATION_IN_PROGRESS,
	unknownSkill,
} from "./texts.js";

/** How queued input is delivered while an operation runs. */
export type StreamingBehavior = "steer" | "followUp";

/** What `prompt()` / `sendUserMessage()` / a triggered custom message hand to the machine. */
export type PromptPayload =
	| {
			kind: "text";
			text: string;
			images?: ImageContent[];
			expandPromptTemplates: boolean;
			streamingBehavior?: StreamingBehavior;
			source: InputSource;
	  }
	| {
			kind: "custom";
			message: CustomMessage;
			/** Sent by a `before_agent_start` handler while it ran: its operation skips that hook. */
			viaAgentStart?: boolean;
	  }
	/** `session.continue()`: an operation over the transcript as it is, no new message. */
	| { kind: "continue" };

/**
 * Where a command's error goes: the session's runner when it fails — after a reload during the
 * command (it runs while the session is idle) the new one, which has the host's listeners; the
 * old runner's were removed with it (pi#7816, as pi: it reports on its current runner).
 */
function reportCommandError(s: SessionInternals): (error: ExtensionError) => void {
	return (error) => s.runner().emitError(error);
}

/** The machine's `preflight` actor: the prompt pipeline while idle. */
export async function preflight(s: SessionInternals, request: PromptRequest): Promise<PreflightOutcome> {
	// Before the first await: an abort() from now on must stop what this preflight has not started yet.
	const aborted: { aborted: boolean; nextTurn?: CustomMessage[] } = { aborted: false };
	s.scratch.preflightAbort = aborted;
	const payload = request.payload as PromptPayload;
	// A new operation, not a queued message: the place reserved for it in its queue is given up.
	s.queues.releaseReservedTurn(request.requestId);
	const cleared = s.queues.takeClearedRequest(request.requestId);
	if (cleared && payload.kind === "text") {
		// clearQueue() returned its text while it waited (busy) in the machine's mailbox.
		throw new SettleError("ABORTED", clearedBeforeQueued(cleared, payload.text, false));
	}
	if (payload.kind === "custom") return startCustomMessage(s, payload.message, payload.viaAgentStart === true, aborted);
	if (payload.kind === "continue") return startContinuation(s, aborted);
	const runner = s.runner();
	let text = payload.text;
	let images = payload.images;
	if (payload.expandPromptTemplates) refuseSharedCommandName(s, text);
	if (
		payload.expandPromptTemplates &&
		text.startsWith("/") &&
		(await runner.dispatchCommand(text, reportCommandError(s)))
	) {
		// A compaction the command started with ctx.compact() ends inside this preflight.
		await releasePreflightDispatch(s);
		return { disposition: "handled" };
	}
	if (runner.hasHandlers("input")) {
		let result: Awaited<ReturnType<typeof runner.emitInput>>;
		try {
			result = await runner.emitInput(text, images, payload.source);
		} finally {
			// Thrown or not: a ctx.compact() from a handler ends inside this preflight, not after it.
			await releasePreflightDispatch(s);
		}
		if (result.action === "handled") return { disposition: "handled" };
		if (result.action === "transform") {
			text = result.text;
			images = result.images ?? images;
		}
	}
	if (payload.expandPromptTemplates) text = expandText(s, text);

	s.queues.flushPendingBash();
	s.queues.flushPendingCustom();
	// Steps 7–9 await only when there is something to wait for (an auth refresh, a compaction).
	if (!hasModelAndAuth(s)) await requireModelAndAuth(s);
	// Aborted meanwhile: the operation settles without a run, so nothing more is started for it.
	const compaction = aborted.aborted ? undefined : preSendCompaction(s);
	if (compaction) await compaction;

	// No await without handlers: the microtasks before the run starts stay what an abort() meets.
	const start =
		aborted.aborted || !runner.hasHandlers("before_agent_start")
			? NO_HANDLER_RESULT
			: await beforeAgentStart(s, text, images);

	// Step 11: against the model that will answer (a handler may have switched it). An image with a
	// side over 2000 px is resized first, as `read` and `@file` do (oh-my-pi#10633); no await otherwise.
	if (!aborted.aborted && fittingNeeded(s, images)) ({ text, images } = await fitPromptImages(text, images));
	const normalized = normalizePromptImages(text, images, s.model());
	if (!aborted.aborted) recordThinkingLevel(s);
	const messages: AgentMessage[] = [];
	const system = s.loadout.nextSystemMessage(start.options);
	if (system) messages.push(system);
	messages.push(userMessage(normalized.text, normalized.images));
	const nextTurn = s.queues.takeNextTurn();
	// Given back if the run never starts (see operation-actors: an abort before it).
	if (nextTurn.length > 0) aborted.nextTurn = nextTurn;
	for (const message of nextTurn) messages.push(message);
	for (const message of start.messages) messages.push(message);
	s.scratch.forcedSystemPrompt = start.systemPrompt;
	s.scratch.promptSystemMessage = system;
	return { disposition: "started", runPayload: messages };
}

/**
 * A turn runs at the live thinking level, so the branch it is written on must say so: after
 * `/tree` to a point before a level change (pi#3544) the branch records the old level, and a resume
 * of the new leaf would start on a level that no turn of it used. Records the live level when a
 * navigation left the branch saying otherwise (see `noteThinkingLevel`).
 */
function recordThinkingLevel(s: SessionInternals): void {
	if (!s.transcript.thinkingLevelUnrecorded) return;
	s.transcript.thinkingLevelUnrecorded = false;
	const level = s.agent.state.thinkingLevel;
	if (s.sessionManager.getBranchThinkingLevel() !== level) s.sessionManager.appendThinkingLevelChange(level);
}

/** `abort()` / `dispose()` during a preflight: what it has not started yet is skipped. */
export function abortPreflight(s: SessionInternals): void {
	if (s.scratch.preflightAbort) s.scratch.preflightAbort.aborted = true;
}

/** What `before_agent_start` gave an operation: its prompt options, handler messages, forced prompt. */
interface AgentStartResult {
	options: ReturnType<SessionInternals["loadout"]["operationPromptOptions"]> | undefined;
	messages: CustomMessage[];
	systemPrompt: string | undefined;
}

const NO_HANDLER_RESULT: AgentStartResult = { options: undefined, messages: [], systemPrompt: undefined };

/** Step 10: `before_agent_start` (callers skip it without handlers), its messages made custom messages. */
async function beforeAgentStart(
	s: SessionInternals,
	text: string,
	images: ImageContent[] | undefined,
	extras: BeforeAgentStartExtras = {},
): Promise<AgentStartResult> {
	const runner = s.runner();
	const options = s.loadout.operationPromptOptions();
	// A handler may change the active tools (pi#9932): the operation's prompt follows them.
	let activeTools: readonly string[] = s.loadout.getActiveToolNames();
	const refreshSystemPrompt = (): string | undefined => {
		const before = activeTools;
		activeTools = s.loadout.adoptActiveTools(options, before);
		return activeTools === before ? undefined : s.loadout.renderedPrompt(options);
	};
	s.scratch.beforeAgentStartDepth++;
	let result: Awaited<ReturnType<typeof runner.emitBeforeAgentStart>>;
	try {
		result = await runner.emitBeforeAgentStart(text, images, s.loadout.renderedPrompt(), options, {
			...extras,
			refreshSystemPrompt,
		});
	} finally {
		s.scratch.beforeAgentStartDepth--;
		// A ctx.compact() from a handler ends before the run starts (or the preflight fails).
		await releasePreflightDispatch(s);
	}
	refreshSystemPrompt();
	const messages: CustomMessage[] = (result?.messages ?? []).map((message) => ({
		role: "custom",
		customType: message.customType,
		content: message.content ?? [],
		display: message.display,
		details: message.details,
		timestamp: Date.now(),
	}));
	return { options, messages, systemPrompt: result?.systemPrompt };
}

/**
 * A triggered custom message while idle: it starts an operation on its own, after
 * `before_agent_start` (pi#5581, pi#8773: newer pi runs it there too; pi 0.73.1 does not), whose
 * `prompt` is the message's text, `trigger` `"custom_message"` and `messageType` its `customType`.
 * A message a `before_agent_start` handler itself triggered skips the hook (`viaAgentStart`), so a
 * handler that reacts to every start by sending one cannot chain operations forever.
 */
async function startCustomMessage(
	s: SessionInternals,
	message: CustomMessage,
	viaAgentStart: boolean,
	aborted: { aborted: boolean },
): Promise<PreflightOutcome> {
	s.queues.flushPendingBash();
	s.queues.flushPendingCustom();
	if (!hasModelAndAuth(s)) await requireModelAndAuth(s);
	const content =
		typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
	const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
	const images = content.filter((part): part is ImageContent => part.type === "image");
	const start =
		viaAgentStart || aborted.aborted || !s.runner().hasHandlers("before_agent_start")
			? NO_HANDLER_RESULT
			: await beforeAgentStart(s, text, images.length > 0 ? images : undefined, {
					trigger: "custom_message",
					messageType: message.customType,
				});
	if (!aborted.aborted) recordThinkingLevel(s);
	const messages: AgentMessage[] = [];
	const system = s.loadout.nextSystemMessage(start.options);
	if (system) messages.push(system);
	messages.push(message);
	for (const handlerMessage of start.messages) messages.push(handlerMessage);
	s.scratch.forcedSystemPrompt = start.systemPrompt;
	s.scratch.promptSystemMessage = system;
	return { disposition: "started", runPayload: messages };
}

/**
 * `session.continue()` while idle: an operation whose first run is `agent.continue()` on the
 * transcript as restored (no payload: the run request falls to the continuation), so retry,
 * compaction and queued messages follow as after a prompt (pi#5961, pi#8026). No new input, so
 * neither `input` nor `before_agent_start` runs. Refused when nothing waits for an answer.
 */
async function startContinuation(s: SessionInternals, aborted: { aborted: boolean }): Promise<PreflightOutcome> {
	s.queues.flushPendingBash();
	s.queues.flushPendingCustom();
	const last = lastNonSystemMessage(s.agent.state.messages);
	if (!last || (last.role === "assistant" && !s.agent.hasQueuedMessages())) {
		throw new SettleError("INVALID_ARGUMENT", nothingToContinue(last?.role));
	}
	if (!hasModelAndAuth(s)) await requireModelAndAuth(s);
	const compaction = aborted.aborted ? undefined : preSendCompaction(s);
	if (compaction) await compaction;
	if (!aborted.aborted) recordThinkingLevel(s);
	return { disposition: "started" };
}

/** The machine's `busyPreflight` actor: the prompt pipeline while an operation (or a compaction) runs. */
export async function busyPreflight(s: SessionInternals, input: BusyPreflightInput): Promise<BusyPreflightOutcome> {
	const payload = input.request.payload as PromptPayload;
	if (payload.kind === "continue") throw new SettleError("BUSY", CONTINUE_WHILE_BUSY);
	if (payload.kind === "custom") {
		// A manual compaction or a tree navigation runs no turn after it: steered, the message would
		// wait unseen (unlisted, unsaved) for whatever prompt came next.
		if (!s.isStreaming()) {
			const manual = input.phase === "compacting" && input.compactionReason === "manual";
			throw new SettleError("BUSY", manual ? CUSTOM_TURN_DURING_COMPACTION : CUSTOM_TURN_DURING_TREE_NAVIGATION);
		}
		// Raced with the start of an operation: deliver it like a streaming sendCustomMessage().
		s.agent.steer(payload.message);
		return { disposition: "queued" };
	}
	// clearQueue() ran while it waited in the machine's mailbox: it returned the text, so no hook runs.
	const cleared = s.queues.takeClearedRequest(input.request.requestId);
	if (cleared) throw new SettleError("ABORTED", clearedBeforeQueued(cleared, payload.text, false));
	// Its place in its queue, reserved when it was sent (SessionQueues.reserveTurn), so neither a
	// slow hook nor the machine's mailbox lets a later message of the same kind overtake it.
	const order = s.queues.claimReservedTurn(input.request.requestId);
	order?.clearable(payload.text);
	try {
		const runner = s.runner();
		let text = payload.text;
		let images = payload.images;
		if (payload.expandPromptTemplates && extensionCommandName(s, text) !== undefined) {
			// Run, not queued: its place is given up first (the command may itself send and wait).
			order?.done();
			await runner.dispatchCommand(text, reportCommandError(s));
			return { disposition: "handled" };
		}
		if (input.phase === "compacting" && input.compactionReason === "manual") {
			throw new SettleError("BUSY", COMPACTION_IN_PROGRESS);
		}
		const streaming = s.isStreaming();
		if (runner.hasHandlers("input")) {
			const extras = streaming && payload.streamingBehavior ? { streamingBehavior: payload.streamingBehavior } : {};
			const emit = () => runner.emitInput(text, images, payload.source, extras);
			const result = await (order ? order.runHooks(emit) : emit());
			if (result.action === "handled") return { disposition: "handled" };
			if (result.action === "transform") {
				text = result.text;
				images = result.images ?? images;
			}
		}
		if (payload.expandPromptTemplates) text = expandText(s, text);
		if (!streaming) throw new SettleError("BUSY", TREE_NAVIGATION_IN_PROGRESS);
		if (!payload.streamingBehavior) throw new SettleError("BUSY", STREAMING_BEHAVIOR_REQUIRED);
		// Step 11 as for a prompt: resized while earlier messages may still be on their way.
		const fitted = await fitQueuedImages(s, text, images);
		await order?.turn;
		if (order?.cleared) throw new SettleError("ABORTED", clearedBeforeQueued(payload.streamingBehavior, payload.text));
		queueChecked(s, payload.streamingBehavior, text, fitted.images, fitted.text);
		return { disposition: "queued" };
	} finally {
		order?.done();
	}
}

/**
 * `steer()` / `followUp()`: an extension command is rejected, the
 * input hook runs (reporting `streamingBehavior` only while streaming), the text is expanded and
 * queued — also when idle (it then waits for the next run).
 */
export async function queueInput(
	s: SessionInternals,
	kind: StreamingBehavior,
	text: string,
	images: ImageContent[] | undefined,
	source: InputSource,
): Promise<"handled" | "queued"> {
	const runner = s.runner();
	const command = extensionCommandName(s, text);
	if (command !== undefined) throw new SettleError("INVALID_ARGUMENT", commandCannotBeQueued(command));
	const hooks = runner.hasHandlers("input");
	// Queued at once unless a hook or a resize must be awaited, or an earlier message still is.
	if (!hooks && !queuedFittingNeeded(s, images) && !s.queues.hasOpenTurn(kind)) {
		return queueExpanded(s, kind, text, images);
	}
	// The hooks may outlast the operation's last look at the queues (pi issue 5886): the machine
	// counts this call until it is queued (or not), and an operation about to settle waits for it.
	let queued = false;
	sendWhileActive(s, { type: "QUEUE_INPUT_STARTED" });
	// Hooks run side by side; messages are queued in the order they were sent (atomic#2074).
	const order = s.queues.takeTurn(kind);
	order.clearable(text);
	const submitted = text;
	try {
		if (hooks) {
			const extras = s.isStreaming() ? { streamingBehavior: kind } : {};
			const result = await order.runHooks(() => runner.emitInput(text, images, source, extras));
			if (result.action === "handled") return "handled";
			if (result.action === "transform") {
				text = result.text;
				images = result.images ?? images;
			}
		}
		const expanded = expandText(s, text);
		const fitted = await fitQueuedImages(s, expanded, images);
		await order.turn;
		if (order.cleared) throw new SettleError("ABORTED", clearedBeforeQueued(kind, submitted));
		queueChecked(s, kind, expanded, fitted.images, fitted.text);
		queued = true;
		return "queued";
	} finally {
		order.done();
		sendWhileActive(s, { type: "QUEUE_INPUT_FINISHED", queued });
	}
}

/** The extension command `text` invokes (`/name args` with `name` registered), if any. */
export function extensionCommandName(s: SessionInternals, text: string): string | undefined {
	const name = parseCommandInvocation(text)?.name;
	if (name !== undefined && s.runner().getCommand(name)) return name;
	refuseSharedCommandName(s, text);
	return undefined;
}

/**
 * Throws when `text` is `/<name>` and `name` the plain name of commands two extensions register:
 * each is run only by its number, and sent on as a prompt the text cost a model call (pi#1061).
 * A prompt template of that name is what `/<name>` runs then (pi's order: commands, then templates).
 */
function refuseSharedCommandName(s: SessionInternals, text: string): void {
	const name = parseCommandInvocation(text)?.name;
	if (name === undefined) return;
	const sharing = s.runner().getCommandsSharing(name);
	if (sharing.length === 0) return;
	if (s.resourceLoader.getPrompts().prompts.some((template) => template.name === name)) return;
	const choices = sharing.map((command) => ({ invocationName: command.invocationName, path: command.sourceInfo.path }));
	throw new SettleError("INVALID_ARGUMENT", sharedCommandName(name, choices));
}

/** Tells the machine, unless it has stopped (the session was disposed meanwhile). */
function sendWhileActive(s: SessionInternals, event: PromptOperationEvent): void {
	if (s.snapshot().status === "active") s.send(event);
}

/** Expands `text` (skill, template) and queues it as `kind`. */
function queueExpanded(
	s: SessionInternals,
	kind: StreamingBehavior,
	text: string,
	images: ImageContent[] | undefined,
): "queued" {
	return queueChecked(s, kind, expandText(s, text), images);
}

/**
 * Whether one of the images must be resized before the current model gets it (step 11): it takes
 * images, `images.autoResize` is on, and an image has a side over 2000 px (oh-my-pi#10633).
 */
function fittingNeeded(s: SessionInternals, images: ImageContent[] | undefined): images is ImageContent[] {
	return (
		images !== undefined &&
		s.model()?.input.includes("image") === true &&
		s.settingsManager.getImageAutoResize() &&
		promptImagesNeedFitting(images)
	);
}

/**
 * Whether a queued message's images must be resized: as {@link fittingNeeded}, whatever the current
 * model takes, since the model may be switched before the message is sent.
 */
function queuedFittingNeeded(s: SessionInternals, images: ImageContent[] | undefined): images is ImageContent[] {
	return images !== undefined && s.settingsManager.getImageAutoResize() && promptImagesNeedFitting(images);
}

/** A queued message's images resized as a prompt's, and its text with their dimension notes. */
async function fitQueuedImages(
	s: SessionInternals,
	text: string,
	images: ImageContent[] | undefined,
): Promise<{ text: string; images: ImageContent[] | undefined }> {
	return queuedFittingNeeded(s, images) ? await fitPromptImages(text, images) : { text, images };
}

/**
 * Queues `text` as `kind`; its images are checked as a prompt's (dropped ones leave a hint, a
 * mislabelled one gets its bytes' type) when it is sent, against the model then in use: sent
 * unchanged, a steer's image the provider refuses failed that run and every later one. The
 * message says `messageText` (the text with the images' notes); the queue lists show `text`.
 */
function queueChecked(
	s: SessionInternals,
	kind: StreamingBehavior,
	text: string,
	images: ImageContent[] | undefined,
	messageText = text,
): "queued" {
	if (kind === "followUp") s.queues.queueFollowUp(text, images, messageText);
	else s.queues.queueSteer(text, images, messageText);
	return "queued";
}

/** Skill command, then prompt template. A skill that cannot be read is reported and left as is. */
export function expandText(s: SessionInternals, text: string): string {
	if (!text.startsWith("/")) return text;
	const skills = s.resourceLoader.getSkills().skills;
	const skill = expandSkillCommand(text, skills);
	if (skill.error) {
		s.runner().emitError({ extensionPath: skill.error.path, event: "skill_expansion", error: skill.error.message });
	}
	const expanded = expandPromptTemplate(skill.text, s.resourceLoader.getPrompts().prompts, templateBodyOnDisk);
	// A `/skill:` that ran nothing: pi sends it as typed, a paid answer to a command the model cannot run.
	if (skill.skill === undefined && expanded === text && text.startsWith("/skill:")) {
		const name = text.slice(7).split(/\s/, 1)[0]!;
		const off = switchedOffSkills(s.resourceLoader).find((candidate) => candidate.name === name);
		const names = skills.map((candidate) => candidate.name);
		throw new SettleError("INVALID_ARGUMENT", unknownSkill(name, names, off), { details: { skill: name } });
	}
	return expanded;
}

/** The fast path of {@link requireModelAndAuth}: a model is selected and its provider's auth is configured. */
function hasModelAndAuth(s: SessionInternals): boolean {
	const model = s.model();
	return model !== undefined && s.modelRuntime.hasConfiguredAuth(model.provider);
}

/**
 * A selected model whose provider has usable credentials, else pi's rejection; `PROVIDER` with the
 * reason when the model's provider was unregistered (`modelRuntime.unavailableReason`).
 */
export async function requireModelAndAuth(s: SessionInternals): Promise<Model> {
	const model = s.model();
	if (!model) throw new SettleError("NO_MODEL", noModelSelectedMessage());
	const runtime = s.modelRuntime;
	if (runtime.hasConfiguredAuth(model.provider)) return model;
	// Its provider was unregistered (a logout): "no API key" would send the user looking for one (tau#694).
	const unavailable = runtime.unavailableReason?.(model);
	if (unavailable !== undefined) {
		throw new SettleError("PROVIDER", unavailable, { details: { provider: model.provider, model: model.id } });
	}
	if (runtime.checkAuth && (await runtime.checkAuth(model.provider))) return model;
	if (runtime.isUsingOAuth(model.provider)) {
		throw new SettleError("NO_AUTH", authenticationFailedMessage(model.provider), {
			details: { provider: model.provider },
		});
	}
	throw new SettleError("NO_AUTH", noApiKeyFoundMessage(model.provider), { details: { provider: model.provider } });
}
