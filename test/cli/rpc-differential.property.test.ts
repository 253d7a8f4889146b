/**
 * Randomized differential of the RPC protocol: the same random command sequence sent to
 * `settle --rpc` and to pi 0.73.1's own RPC mode (both real child processes, the same faux script).
 * After each step, what a host read must agree: every response (success, error text, data) and the
 * ordered event stream; at the end, the current session file. Deliberately concurrent steps: a
 * prompt whose tool call runs until the test opens a gate file, with commands sent while it runs.
 *
 * What is taken out of the comparison is named in rpc-differential.helpers.ts (`observe`,
 * `normalize`, `observeSession`) and, per side, here (DELIBERATE_TYPED_FIELD_ERRORS, …); pi bugs the
 * sequences steer around are pinned in rpc-differential-regressions.test.ts.
 *
 * Longer hunts (RPC_DIFF_RUNS random scenarios after the scripted-failure examples): `RPC_DIFF_RUNS=60 npx vitest run test/cli/rpc-differential.property.test.ts` (about
 * 3 s a run); replay a failure with `RPC_DIFF_SEED=<seed> RPC_DIFF_PATH=<path>` (the path counts the fixed
 * examples first: keep a failing scenario in SEED_EXAMPLES, shrunk by hand, once it is fixed or named).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertReplayable } from "../replayable-property.js";
import { useCliProject } from "./helpers.js";
import {
	failingOf,
	type Line,
	NOTHING_TO_COMPACT,
	observe,
	observeSession,
	type Peer,
	peerReady,
	readSession,
	retrySettings,
	runStep,
	type Scenario,
	type Step,
	scenarioArbitrary,
	scriptOf,
	startPeers,
} from "./rpc-differential.helpers.js";

const cli = useCliProject("settle-rpc-differential-");

/** A step that hangs fails with what each peer printed last (a guard, not a synchronisation). */
const STEP_GUARD_MS = 10_000;

async function guarded(peer: Peer, step: Step, index: number): Promise<Line[]> {
	let timer: NodeJS.Timeout | undefined;
	const hung = new Promise<never>((_, reject) => {
		timer = setTimeout(() => {
			const tail = peer.client.lines.slice(-6).map((line) => JSON.stringify(line).slice(0, 300));
			reject(
				new Error(
					`${peer.name} hung on step ${index} ${JSON.stringify(step)}; last lines:\n${tail.join("\n")}\n${peer.client.stderr}`,
				),
			);
		}, STEP_GUARD_MS);
	});
	try {
		return await Promise.race([runStep(peer, step, index), hung]);
	} finally {
		clearTimeout(timer);
	}
}

/** Runs a step on both peers at once (each awaits its own responses and run end). */
async function both(pi: Peer, settle: Peer, step: Step, index: number): Promise<[Line[], Line[]]> {
	return Promise.all([guarded(pi, step, index), guarded(settle, step, index)]);
}

/**
 * DELIBERATE_TYPED_FIELD_ERRORS: a missing or mistyped field gets Settle's typed error naming the
 * field (src/cli/rpc-mode.ts; pi fails with whatever its code hits, e.g. "Cannot read properties of
 * undefined"). Both must refuse; the texts are not compared.
 */
function expectRefusedAlike(piLines: Line[], settleLines: Line[], command: Line): void {
	const piResponse = piLines.find((line) => line.type === "response");
	const settleResponse = settleLines.find((line) => line.type === "response");
	expect(piResponse, JSON.stringify(command)).toMatchObject({ success: false });
	expect(settleResponse, JSON.stringify(command)).toMatchObject({
		success: false,
		error: expect.stringMatching(/^\w+: "\w+" must be /),
	});
	expect(piLines.length, "nothing else printed").toBe(1);
	expect(settleLines.length, "nothing else printed").toBe(1);
}

/** Whether pi's current session has an assistant message (so its file is written). Not observed. */
async function hasAssistantMessage(peer: Peer): Promise<boolean> {
	const response = await peer.client.request({ id: "probe-messages", type: "get_messages" });
	return (response.data as { messages: { role: string }[] }).messages.some((m) => m.role === "assistant");
}

/**
 * Whether pi's fork before its nth forkable message would hit PI_BUG_FORK_UNWRITTEN_PREFIX_LOST
 * (pinned in rpc-differential-regressions.test.ts): the branch before it holds a user message but no
 * assistant message, so pi writes no branch file and its forked session starts empty. Not observed.
 */
async function forkLosesPrefix(peer: Peer, nth: number): Promise<boolean> {
	const forkable = await peer.client.request({ id: "probe-fork", type: "get_fork_messages" });
	const target = (forkable.data as { messages: { entryId: string }[] }).messages[nth];
	if (!target) return false;
	const state = await peer.client.request({ id: "probe-file", type: "get_state" });
	const entries = readSession((state.data as { sessionFile?: string }).sessionFile);
	// pi writes its file with the first assistant message: no file means no assistant message yet, and
	// (with no tree navigation over RPC) one straight branch, the forkable messages in order.
	if (entries.length === 0) return nth > 0;
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	const roles = new Set<string>();
	for (let entry = byId.get(byId.get(target.entryId)?.parentId); entry; entry = byId.get(entry.parentId)) {
		if (entry.type === "message") roles.add((entry.message as { role: string }).role);
	}
	return roles.has("user") && !roles.has("assistant");
}

/**
 * Whether pi's newest message is where the two cut rules part (see the compact step below): it counts
 * 0 tokens (no content: an aborted answer; only empty text: the echo of an empty prompt), or it is a
 * tool result (a run aborted while its tool ran), which is no valid cut point. Not observed.
 */
async function endsWhereCutsDiffer(peer: Peer): Promise<boolean> {
	const response = await peer.client.request({ id: "probe-messages", type: "get_messages" });
	const last = (response.data as { messages: { role?: string; content?: unknown }[] }).messages.at(-1);
	if (last?.role === "toolResult") return true;
	const parts = Array.isArray(last?.content) ? (last.content as { type?: string; text?: string }[]) : undefined;
	return parts?.every((part) => part.type === "text" && part.text === "") === true;
}

/** How many failed answers (assistant messages that ended in an error) the peer's context holds. Not observed. */
async function failedAnswers(peer: Peer): Promise<number> {
	const response = await peer.client.request({ id: "probe-messages", type: "get_messages" });
	const messages = (response.data as { messages: { role: string; stopReason?: string }[] }).messages;
	return messages.filter((m) => m.role === "assistant" && m.stopReason === "error").length;
}

/**
 * DELIBERATE_RETRY_CONTEXT_EDIT persists (see `observe` on get_messages): pi's session reopened after
 * a retry or an overflow compaction shows the failed answer again, and get_session_stats counts it;
 * Settle's does not (seed 1921968888 path 55). Failed answers are taken out of the count on both sides.
 */
function withoutFailedAnswers(lines: Line[], failed: number): void {
	for (const line of lines) {
		const data = line.data as { assistantMessages?: number } | undefined;
		if (
			line.type === "response" &&
			line.command === "get_session_stats" &&
			typeof data?.assistantMessages === "number"
		) {
			data.assistantMessages -= failed;
		}
	}
}

/**
 * DELIBERATE_SWITCH_SETTLES_OLD_RUN (pi#5778 / pi-desktop#46, test/pi-races/switching.test.ts): a
 * `new_session` during a run aborts it and streams its end (the aborted tool's result, the aborted
 * answer, `agent_end`) before answering, so the old file keeps a result for every tool call; pi
 * replaces the session without aborting its agent and streams nothing of the old run. Those lines,
 * from the tool's end to new_session's response, are checked here and left out of the comparison.
 */
function withoutOldRunEnd(lines: Line[]): Line[] {
	const answered = lines.findIndex((line) => line.type === "response" && line.command === "new_session");
	// The gated tool cannot end before the abort: its end opens the old run's end.
	const from = lines.findIndex((line, index) => index < answered && line.type === "tool_execution_end");
	if (answered < 0 || from < 0) return lines;
	const oldRun = lines.slice(from, answered).filter((line) => line.type !== "response");
	expect(
		oldRun.map((line) => line.type),
		"the old run's end is streamed before new_session answers",
	).toContain("agent_end");
	return lines.filter((line, index) => index < from || index >= answered || line.type === "response");
}

/**
 * The tool call of Settle's gated run when a `new_session` during it settled it into the old file
 * (DELIBERATE_SWITCH_SETTLES_OLD_RUN), from the gated step's lines; undefined otherwise.
 */
function settledOldRunCall(step: Step, settleLines: Line[]): string | undefined {
	if (step.kind !== "gated" || !step.during.some((command) => command.type === "new_session")) return undefined;
	const started = settleLines.find((line) => line.type === "tool_execution_start");
	return typeof started?.toolCallId === "string" ? started.toolCallId : undefined;
}

/**
 * DELIBERATE_SWITCH_SETTLES_OLD_RUN, after a switch back: the old file Settle settled ends with the
 * aborted tool's result and the aborted answer; pi's ends with the tool call, unanswered (its old run
 * went on unsaved). From there on the two sessions differ by design (messages, stats, cut points, what
 * a fork or clone copies), so the switch is checked here and not sent (seed -1333366736 path 7).
 * Whether `switch_previous` would go back to that file: Settle's first recorded file holds a result
 * for the old run's tool call.
 */
function switchesToSettledOldRun(settle: Peer, oldRunCall: string | undefined): boolean {
	const target = settle.sessionFiles[0];
	if (oldRunCall === undefined || target === undefined) return false;
	return readSession(target).some(
		(entry) => entry.type === "message" && (entry.message as { toolCallId?: unknown }).toolCallId === oldRunCall,
	);
}

function expectOldRunSettledOnlyInSettle(pi: Peer, settle: Peer, oldRunCall: string): void {
	const messages = (file: string | undefined) =>
		readSession(file)
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message as { role: string; stopReason?: string; toolCallId?: string; isError?: boolean });
	// The old run's end is what an abort ends it with: the tool's result, a steer delivered after it (as
	// an abort while the tool runs delivers it, compared in gated steps with `abort`), the aborted answer.
	const settled = messages(settle.sessionFiles[0]);
	const result = settled.findIndex((message) => message.toolCallId === oldRunCall);
	expect(settled[result - 1], "the old run's tool call").toMatchObject({ role: "assistant", stopReason: "toolUse" });
	expect(settled[result], "its result").toMatchObject({ role: "toolResult", isError: true });
	expect(
		settled.slice(result + 1).map((message) => message.role),
		"steers delivered after it, then the aborted answer",
	).toEqual([...settled.slice(result + 1, -1).map(() => "user"), "assistant"]);
	expect(settled.at(-1), "Settle's old file ends with the aborted answer").toMatchObject({ stopReason: "aborted" });
	expect(messages(pi.sessionFiles[0]).at(-1), "pi's old file ends with the unanswered tool call").toMatchObject({
		role: "assistant",
		stopReason: "toolUse",
	});
}

/** The two queue lists of a `queue_update`. */
interface QueueLists {
	steering: string[];
	followUp: string[];
}

/** The lists without the first entry of `text`, steering first (pi's rule); undefined when neither holds it. */
function withoutFirst(lists: QueueLists, text: string): QueueLists | undefined {
	const steering = lists.steering.indexOf(text);
	if (steering >= 0) return { ...lists, steering: lists.steering.filter((_, i) => i !== steering) };
	const followUp = lists.followUp.indexOf(text);
	if (followUp >= 0) return { ...lists, followUp: lists.followUp.filter((_, i) => i !== followUp) };
	return undefined;
}

/** Every way of taking one entry out of either list. */
function oneTakenOut(lists: QueueLists): QueueLists[] {
	return [
		...lists.steering.map((_, i) => ({ ...lists, steering: lists.steering.filter((_, j) => j !== i) })),
		...lists.followUp.map((_, i) => ({ ...lists, followUp: lists.followUp.filter((_, j) => j !== i) })),
	];
}

async function runScenario(scenario: Scenario, run: number): Promise<void> {
	const dir = `${cli.dir}/run-${run}`;
	const failing = failingOf(scenario);
	const { pi, settle } = startPeers(dir, scriptOf(scenario), retrySettings(failing?.abortRetry === true));
	const ids = { pi: new Map<string, string>(), settle: new Map<string, string>() };
	const steps: Step[] = [
		...(scenario.gated ? [{ kind: "gated" as const, ...scenario.gated }] : []),
		...(failing ? [{ kind: "failing" as const, ...failing }] : []),
		...scenario.steps,
	];
	const log: string[] = [];
	let passed = false;
	let oldRunCall: string | undefined;
	// Texts sent with steer / follow_up so far (see DELIBERATE_QUEUED_TWIN below).
	const queuedTexts = new Set<string>();
	try {
		// Both processes up before the first guarded step: on a busy machine pi's start-up alone (2–3 s
		// to import it) once took the whole 10 s guard of step 0 (seed 405349350 path 39, nothing printed).
		await Promise.all([peerReady(pi), peerReady(settle)]);
		for (const [index, step] of steps.entries()) {
			if (step.kind === "switch_previous" && oldRunCall && switchesToSettledOldRun(settle, oldRunCall)) {
				expectOldRunSettledOnlyInSettle(pi, settle, oldRunCall);
				log.push(`(skipped: the old run's file differs by design) ${JSON.stringify(step)}`);
				continue;
			}
			if (step.kind === "command" && step.command.type === "compact" && (await endsWhereCutsDiffer(pi))) {
				// DELIBERATE_CUT_AT_OR_BEFORE (src/compaction/cut-point.ts): Settle cuts at the nearest valid
				// cut point at or before the entry where keepRecentTokens is reached, pi after it (everything
				// kept when none follows). With keepRecentTokens 1 they differ only when the newest message
				// counts 0 tokens (an aborted, empty answer, or the echo of an empty prompt): the walk then
				// crosses into earlier messages, where DELIBERATE_USER_IMAGES_COUNTED (a prompt's images count
				// in Settle's estimate, not in pi's) moves the cut too; or when it is a tool result (no valid
				// cut point: Settle cuts at the tool call's assistant message, pi keeps everything; seed
				// 1960266588 path 23).
				log.push(`(skipped: the cut points differ by design) ${JSON.stringify(step)}`);
				continue;
			}
			if (step.kind === "command" && step.command.type === "clone" && !(await hasAssistantMessage(pi))) {
				// PI_BUG_CLONE_UNWRITTEN_FILE (pinned in rpc-differential-regressions.test.ts).
				log.push(`(skipped: pi cannot clone before its file is written) ${JSON.stringify(step)}`);
				continue;
			}
			if (step.kind === "fork_nth" && (await forkLosesPrefix(pi, step.nth))) {
				log.push(`(skipped: pi's fork would lose the messages before it) ${JSON.stringify(step)}`);
				continue;
			}
			log.push(JSON.stringify(step));
			let piLines: Line[];
			let settleLines: Line[];
			if (step.kind === "command" && step.command.type === "compact") {
				// DELIBERATE_NOTHING_TO_SUMMARIZE: Settle refuses a compaction when every message is in the
				// kept span (src/compaction/prepare.ts); pi 0.73.1 summarizes an empty conversation with a
				// model call and appends a compaction entry (pinned below). Settle goes first; when it
				// refuses for that reason, pi is not asked, and Settle's refusal is checked on its own.
				settleLines = await guarded(settle, step, index);
				const refused = settleLines.find((line) => line.type === "response");
				if (refused?.error === NOTHING_TO_COMPACT) {
					expect(settleLines.map((line) => line.type)).toEqual(["compaction_start", "compaction_end", "response"]);
					log.push("(Settle: nothing to summarize; pi not asked)");
					continue;
				}
				piLines = await guarded(pi, step, index);
			} else if (step.kind === "command" && step.command.type === "get_session_stats") {
				const [piFailed, settleFailed] = await Promise.all([failedAnswers(pi), failedAnswers(settle)]);
				[piLines, settleLines] = await both(pi, settle, step, index);
				withoutFailedAnswers(piLines, piFailed);
				withoutFailedAnswers(settleLines, settleFailed);
			} else {
				[piLines, settleLines] = await both(pi, settle, step, index);
			}
			if (step.kind === "raw" && step.text.startsWith('"')) {
				// DELIBERATE_NON_OBJECT_LINE: a JSON line that is not an object gets Settle's parse error
				// (src/cli/rpc-mode.ts); pi answers "Unknown command: undefined" without a command name.
				expect(piLines).toEqual([{ type: "response", success: false, error: "Unknown command: undefined" }]);
				expect(settleLines).toEqual([
					{
						type: "response",
						command: "parse",
						success: false,
						error: 'Failed to parse command: a command is one JSON object per line with a string "type"',
					},
				]);
				continue;
			}
			if (step.kind === "blank") {
				// DELIBERATE_BLANK_LINE: Settle skips a blank input line (src/cli/rpc-mode.ts: a JSONL reader
				// ignores empty lines; answering them would give a host a response it cannot match to
				// anything); pi answers it with a parse error. The get_state sent after it compares.
				expect(piLines[0]).toEqual({
					type: "response",
					command: "parse",
					success: false,
					error: expect.stringMatching(/^Failed to parse command: /),
				});
				piLines = piLines.slice(1);
			}
			if (step.kind === "new_session_parent") {
				expect(settleLines.at(-1), "the new file names its parent").toEqual({
					type: "(test) new session header",
					parentIsPrevious: true,
				});
			}
			if (step.kind === "export_html") {
				// The same response on both sides: the path written, or pi's refusal while the session file
				// is not written yet (e.g. right after a fork at the first user message). The pages differ
				// by design (each its own renderer): only that each was written is compared.
				const answer = (peer: Peer, lines: Line[]) => {
					const response = lines[0] as { success?: boolean; data?: { path?: string } } | undefined;
					if (response?.success) expect(existsSync(join(peer.cwd, "session.html"))).toBe(true);
					return lines.map((line) =>
						line.success === true
							? { ...line, data: { path: (line.data as { path: string }).path.replace(peer.cwd, "<cwd>") } }
							: line,
					);
				};
				const piAnswer = answer(pi, piLines);
				expect(piAnswer).toEqual([
					(piLines[0] as { success?: boolean } | undefined)?.success === true
						? {
								id: `s${index}`,
								type: "response",
								command: "export_html",
								success: true,
								data: { path: "<cwd>/session.html" },
							}
						: {
								id: `s${index}`,
								type: "response",
								command: "export_html",
								success: false,
								error: "Nothing to export yet - start a conversation first",
							},
				]);
				const settleAnswer = answer(settle, settleLines);
				if (piAnswer[0]?.success === false && settleAnswer[0]?.success === true) {
					// DELIBERATE_EXPORT_BEFORE_FILE (pi-subagents#94): a session whose file is not written
					// yet but which has a message (a `bash` command's output before the first prompt) is
					// exported by Settle from the entries in memory; pi refuses until its first answer.
					expect(settleAnswer, log.join("\n")).toEqual([
						{
							id: `s${index}`,
							type: "response",
							command: "export_html",
							success: true,
							data: { path: "<cwd>/session.html" },
						},
					]);
					continue;
				}
				expect(settleAnswer, log.join("\n")).toEqual(piAnswer);
				continue;
			}
			if (step.kind === "invalid") {
				expectRefusedAlike(piLines, settleLines, step.command);
				continue;
			}
			if (step.kind === "gated" && step.during.some((command) => command.type === "new_session")) {
				oldRunCall = settledOldRunCall(step, settleLines);
				settleLines = withoutOldRunEnd(settleLines);
			}
			let [settleSeen, piSeen] = [observe(settleLines, ids.settle, settle.cwd), observe(piLines, ids.pi, pi.cwd)];
			const twin =
				step.kind === "command" && step.command.type === "prompt" && queuedTexts.has(String(step.command.message));
			// Queued: steer / follow_up, and a prompt with a streamingBehavior (queued when sent during a run).
			for (const command of step.kind === "command" ? [step.command] : step.kind === "gated" ? step.during : []) {
				const queues = command.type === "steer" || command.type === "follow_up";
				if (queues || (command.type === "prompt" && command.streamingBehavior))
					queuedTexts.add(String(command.message));
			}
			if (twin) {
				// DELIBERATE_QUEUED_TWIN: a prompt with the text of a queued steer / follow-up. pi takes a
				// queued text off its display list by text match at each user message_start, steering first
				// (agent-session.js _processAgentEvent), so the twin leaves pi's list at the prompt's own start
				// (the queued twin is still delivered later, unlisted); Settle matches the queued message itself
				// (src/session/queues.ts) and takes it off when it is delivered. Both lists lose one entry per
				// update, pi's in the order [twin, d1, d2, …], Settle's [d1, d2, …, twin, …], where d1, d2, … are
				// the other queued messages delivered (seed -80470901 path 6; a prompt queued with steer during
				// the gated run: seed -886363259 path 11; a twin second in its queue: seed -278729664 path 12;
				// a follow-up twin behind a queued steer, so pi's first update shortens the follow-ups where
				// Settle's shortens the steers: seed 1922266896 path 42). So: the same number of updates and
				// the same last update, and an update that differs is Settle's holding the twin where pi's
				// still holds the one message Settle delivered at that update: pi's lists with that message
				// taken out equal Settle's with the twin taken out by pi's rule.
				const updates = (seen: unknown[]) =>
					seen.filter((line) => (line as Line).type === "queue_update") as QueueLists[];
				const others = (seen: unknown[]) => seen.filter((line) => (line as Line).type !== "queue_update");
				const [settleUpdates, piUpdates] = [updates(settleSeen), updates(piSeen)];
				expect(settleUpdates.length, log.join("\n")).toBe(piUpdates.length);
				expect(settleUpdates.at(-1), log.join("\n")).toEqual(piUpdates.at(-1));
				const twinText = step.kind === "command" ? String((step.command as { message?: unknown }).message) : "";
				for (const [at, update] of settleUpdates.entries()) {
					const piUpdate = piUpdates[at]!;
					if (JSON.stringify(update) === JSON.stringify(piUpdate)) continue;
					const settleWithoutTwin = withoutFirst(update, twinText);
					expect(settleWithoutTwin, `Settle's update ${at} holds the twin\n${log.join("\n")}`).toBeDefined();
					expect(
						oneTakenOut(piUpdate).some((lists) => JSON.stringify(lists) === JSON.stringify(settleWithoutTwin)),
						`pi's update ${at} ${JSON.stringify(piUpdate)} is Settle's ${JSON.stringify(update)} with the twin for one message\n${log.join("\n")}`,
					).toBe(true);
				}
				[settleSeen, piSeen] = [others(settleSeen), others(piSeen)];
			}
			expect(settleSeen, log.join("\n")).toEqual(piSeen);
		}
		const final = steps.length;
		const [piState, settleState] = await Promise.all([
			pi.client.request({ id: `s${final}`, type: "get_state" }),
			settle.client.request({ id: `s${final}`, type: "get_state" }),
		]);
		const piFile = (piState.data as { sessionFile?: string }).sessionFile;
		const settleFile = (settleState.data as { sessionFile?: string }).sessionFile;
		expect(observeSession(readSession(settleFile), new Map(), settle.cwd), `session file\n${log.join("\n")}`).toEqual(
			observeSession(readSession(piFile), new Map(), pi.cwd),
		);
		passed = true;
	} finally {
		for (const peer of [pi, settle]) {
			peer.client.child.stdin.end();
			// A failed step may have left a gated command running: Settle would finish it before exiting.
			if (!passed) peer.client.child.kill("SIGTERM");
		}
		await Promise.all([pi.client.exited, settle.client.exited]);
	}
}

const FAILURE_EXAMPLES: [Scenario][] = [
	{ error: "overloaded" as const, abortRetry: false },
	{ error: "overloaded" as const, abortRetry: true },
	{ error: "overflow" as const, abortRetry: false },
].map((failing) => [{ gated: undefined, failing, steps: [{ kind: "command", command: { type: "get_messages" } }] }]);

/**
 * Failing seeds found by hunts, kept as fixed examples (shrunk by hand to what made them fail).
 * Seed -1333366736 path 7: a switch back to the file a new_session settled the gated run in
 * (DELIBERATE_SWITCH_SETTLES_OLD_RUN); with a steer queued during the run (Settle's old file then
 * holds it before the aborted answer). Seed -80470901 path 6: a prompt with the text of a queued
 * steer (DELIBERATE_QUEUED_TWIN). Seed -278729664 path 12: the same with a twin that is second in
 * its queue (follow-ups "  spaced  ", "ünïcode ✓" queued during an aborted run). Seed 1922266896
 * path 42 (RPC_DIFF_RUNS=60; it replays at path 43 now): the same with a follow-up twin behind a steer
 * still queued after the abort (two steers, steering one at a time), so pi's first update shortens
 * the follow-ups where Settle's shortens the steers. Seed -184745214 path 8: a follow-up still queued
 * at new_session, whose DELIBERATE_REPLACEMENT_QUEUE_UPDATE Settle writes and pi does not.
 */
const SEED_EXAMPLES: [Scenario][] = [
	[
		{
			gated: {
				message: "ünïcode ✓",
				during: [
					{ type: "follow_up", message: "  spaced  " },
					{ type: "follow_up", message: "ünïcode ✓" },
				],
				abort: true,
			},
			failing: undefined,
			steps: [
				{
					kind: "command",
					command: { type: "prompt", message: "ünïcode ✓", streamingBehavior: "followUp" },
					runs: true,
				},
				{ kind: "command", command: { type: "get_messages" } },
			],
		},
	],
	[
		{
			gated: undefined,
			failing: { error: "overflow", abortRetry: false },
			steps: [
				{ kind: "command", command: { type: "steer", message: "more please" } },
				{ kind: "command", command: { type: "steer", message: "  spaced  " } },
				{
					kind: "command",
					command: { type: "prompt", message: "more please", streamingBehavior: "steer" },
					runs: true,
				},
				{ kind: "command", command: { type: "get_messages" } },
			],
		},
	],
	[
		{
			gated: {
				message: "hello",
				during: [
					{ type: "get_state" },
					{ type: "steer", message: "more please" },
					{ type: "follow_up", message: "hello" },
					{ type: "new_session" },
				],
				abort: false,
			},
			failing: undefined,
			steps: [
				{ kind: "switch_previous" },
				{ kind: "command", command: { type: "clone" } },
				{ kind: "command", command: { type: "get_messages" } },
				{ kind: "command", command: { type: "prompt", message: "hello" }, runs: true },
			],
		},
	],
	[
		{
			gated: {
				message: "hello",
				during: [
					{ type: "steer", message: "hello" },
					{ type: "steer", message: "hello" },
					{ type: "follow_up", message: "what is in src?" },
				],
				abort: true,
			},
			failing: undefined,
			steps: [{ kind: "command", command: { type: "prompt", message: "what is in src?" }, runs: true }],
		},
	],
	[
		{
			gated: undefined,
			failing: undefined,
			steps: [
				{ kind: "command", command: { type: "follow_up", message: "hello" } },
				{ kind: "new_session_parent" },
				{ kind: "command", command: { type: "get_state" } },
			],
		},
	],
];

const EXAMPLES = [...FAILURE_EXAMPLES, ...SEED_EXAMPLES];

const RANDOM_RUNS = Number(process.env.RPC_DIFF_RUNS ?? 3);
const RUN_TIME_LIMIT_MS = 30_000 + 15_000 * (EXAMPLES.length + RANDOM_RUNS);

describe("settle --rpc beside pi 0.73.1's RPC mode, random command sequences", () => {
	// A run is two child processes and up to 16 steps: about 3 s, 15-23 s at load 18 on 2 cores. The
	// limit counts the fixed examples too (they run first and grew with every pinned seed).
	it("answers, streams and writes the same", { timeout: RUN_TIME_LIMIT_MS }, async () => {
		let run = 0;
		await assertReplayable(
			fc.asyncProperty(scenarioArbitrary, async (scenario) => {
				await runScenario(scenario, run++);
			}),
			{
				// Each scripted failure at least once per run of the file (random scenarios draw them rarely);
				// fast-check counts the examples in numRuns.
				numRuns: EXAMPLES.length + RANDOM_RUNS,
				examples: EXAMPLES,
				endOnFailure: true,
			},
			{ seedVar: "RPC_DIFF_SEED", pathVar: "RPC_DIFF_PATH" },
		);
	});
});
