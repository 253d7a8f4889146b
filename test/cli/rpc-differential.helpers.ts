/**
 * The randomized RPC differential (rpc-differential.property.test.ts): `settle --rpc` and pi 0.73.1's
 * `runRpcMode` (test/cli/pi-rpc-differential-peer.mjs, same faux script) as real child processes, the
 * same random command sequence sent to both, and what a host reads normalized for comparison.
 *
 * Every difference taken out of the comparison is named here (`DELIBERATE_*`: documented Settle
 * behaviour; `NOISE_*`: values that differ between any two runs of the same product).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { ROOT, RpcClient } from "./helpers.js";

export type Line = Record<string, unknown>;

/**
 * The bash command of the gated tool call: it runs until the test creates `gate` in the cwd, then
 * says it got through (`passed`), so that the test can wait for a command no run waits for any more.
 */
export const GATE_COMMAND = "while [ ! -e gate ]; do sleep 0.01; done; touch passed; echo opened";

/** One product under test. */
export interface Peer {
	name: "pi" | "settle";
	client: RpcClient;
	cwd: string;
	/** Session files this peer reported (get_state's sessionFile), in order of first appearance. */
	sessionFiles: string[];
	/** The event that ends a started run: pi's `agent_end`; Settle's `agent_settled` (after its `agent_end`). */
	endEvent: string;
}

/** The same in pi-rpc-differential-peer.mjs: a manual compact has something to summarize after two exchanges. */
const COMPACTION_SETTINGS = { compaction: { keepRecentTokens: 1 } };

/**
 * Retry backoff of a scenario (the same in the pi peer's settings): tiny, so that a retry runs at
 * once; long when the test sends abort_retry during the backoff (it never elapses then).
 */
export function retrySettings(abortRetry: boolean): { retry: { baseDelayMs: number } } {
	return { retry: { baseDelayMs: abortRetry ? 60_000 : 1 } };
}

/** Settle's refusal when every message is in the kept span (src/compaction/prepare.ts). */
export const NOTHING_TO_COMPACT = "Nothing to compact (session too small)";

/** The command of a gated `bash` step: says it started (a file), then runs until the test creates `gate`. */
export const GATED_BASH_COMMAND = "touch started; while [ ! -e gate ]; do sleep 0.01; done; echo opened";

/** Resolves once `dir/name` exists (fs.watch, no polling in the test). */
function fileAppears(dir: string, name: string): Promise<void> {
	return new Promise((resolve) => {
		const watcher = watch(dir, () => {
			if (existsSync(join(dir, name))) {
				watcher.close();
				resolve();
			}
		});
		if (existsSync(join(dir, name))) {
			watcher.close();
			resolve();
		}
	});
}

/** Starts both peers in their own folders under `dir` with the same faux script (and the same `extensions`, if any). */
export function startPeers(
	dir: string,
	script: unknown[],
	settings: object = retrySettings(false),
	extensions: readonly string[] = [],
): { pi: Peer; settle: Peer } {
	return {
		pi: startPeer("pi", dir, script, settings, extensions),
		settle: startPeer("settle", dir, script, settings, extensions),
	};
}

/**
 * Starts one of the peers {@link startPeers} starts, in the same folders under `dir`: for a test
 * that runs the peers one after the other (a pi child costs ~2 s of CPU, so none is started unused).
 */
export function startPeer(
	name: Peer["name"],
	dir: string,
	script: unknown[],
	settings: object = retrySettings(false),
	extensions: readonly string[] = [],
): Peer {
	mkdirSync(dir, { recursive: true });
	const scriptFile = join(dir, "script.json");
	writeFileSync(scriptFile, JSON.stringify(script));
	const allSettings = { ...COMPACTION_SETTINGS, ...settings };
	if (name === "pi") {
		const piDirs = { cwd: join(dir, "pi-cwd"), agent: join(dir, "pi-agent"), sessions: join(dir, "pi-sessions") };
		for (const path of Object.values(piDirs)) mkdirSync(path, { recursive: true });
		const pi = new RpcClient([], {
			cwd: piDirs.cwd,
			agentDir: piDirs.agent,
			command: [
				join(ROOT, "test/cli/pi-rpc-differential-peer.mjs"),
				piDirs.cwd,
				piDirs.agent,
				piDirs.sessions,
				scriptFile,
				JSON.stringify(allSettings),
			],
			...(extensions.length > 0 ? { env: { PI_PEER_EXTENSIONS: JSON.stringify(extensions) } } : {}),
		});
		return { name: "pi", client: pi, cwd: piDirs.cwd, sessionFiles: [], endEvent: "agent_end" };
	}
	const settleCwd = join(dir, "settle-cwd");
	mkdirSync(settleCwd, { recursive: true });
	mkdirSync(join(dir, "settle-agent"), { recursive: true });
	writeFileSync(join(dir, "settle-agent", "settings.json"), JSON.stringify(allSettings));
	const settle = new RpcClient(["--faux-script", scriptFile, ...extensions.flatMap((path) => ["-e", path])], {
		cwd: settleCwd,
		agentDir: join(dir, "settle-agent"),
	});
	return { name: "settle", client: settle, cwd: settleCwd, sessionFiles: [], endEvent: "agent_settled" };
}

/** Scripted model errors: a retryable one (auto-retry), and a context overflow (auto-compaction, then the run goes on). */
export const FAILING_ERRORS = {
	overloaded: "529 overloaded_error: Overloaded",
	overflow: "prompt is too long: 213462 tokens > 200000 maximum",
} as const;
export type FailingError = keyof typeof FAILING_ERRORS;

/** A step's command: either a JSON value sent as one line, or a raw text line (malformed input). */
export type Step =
	| { kind: "command"; command: Line; runs?: boolean }
	| { kind: "raw"; text: string }
	/** `export_html` into the cwd: the same response; the page exists (its HTML differs by design). */
	| { kind: "export_html" }
	/** A command sent without an id: its response is matched by command name. */
	| { kind: "no_id"; command: Line }
	/** A command with a missing or mistyped field (compared per side: DELIBERATE_TYPED_FIELD_ERRORS). */
	| { kind: "invalid"; command: Line }
	/** A command whose argument is resolved per peer (a session file, a fork entry). */
	| { kind: "switch_previous" }
	| { kind: "fork_nth"; nth: number }
	/** A prompt answered by the gated tool call; `during` is sent while the tool runs; then the gate opens. */
	| { kind: "gated"; message: string; during: Line[]; abort: boolean }
	/** A `bash` command that runs until the gate opens; `during` is sent while it runs; then abort_bash or the gate. */
	| { kind: "gated_bash"; during: Line[]; abort: boolean }
	/** `new_session` with `parentSession` set to the peer's current session file (resolved per peer). */
	| { kind: "new_session_parent" }
	/** A prompt whose model call fails with `error` (scripted); with `abortRetry`, abort_retry during the backoff. */
	| { kind: "failing"; error: FailingError; abortRetry: boolean }
	/** A blank input line, then `get_state` (compared per side: DELIBERATE_BLANK_LINE). */
	| { kind: "blank" };

const text = fc.constantFrom("hello", "what is in src?", "more please", "  spaced  ", "ünïcode ✓", "");
/**
 * Text of a message that gets queued (steer, follow_up, a prompt with streamingBehavior). Never empty:
 * PI_BUG_EMPTY_QUEUED_TEXT_STAYS (pinned in rpc-differential-regressions.test.ts).
 */
const queuedText = fc.constantFrom("hello", "what is in src?", "more please", "  spaced  ", "ünïcode ✓");
const mode = fc.constantFrom("all", "one-at-a-time");
/** A 1×1 PNG: prompts with images (both faux models accept text and image input). */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const images = fc.constantFrom(
	[{ type: "image", data: PIXEL_PNG, mimeType: "image/png" }],
	[
		{ type: "image", data: PIXEL_PNG, mimeType: "image/png" },
		{ type: "image", data: "R0lGODlhAQABAAAAACw=", mimeType: "image/gif" },
	],
);

/** The commands safe at any time while idle (each answered with one response). */
const idleCommand: fc.Arbitrary<Step> = fc.oneof(
	text.map((message) => ({ kind: "command" as const, command: { type: "prompt", message }, runs: true })),
	fc.tuple(text, images).map(([message, images]) => ({
		kind: "command" as const,
		command: { type: "prompt", message, images },
		runs: true,
	})),
	fc.tuple(queuedText, fc.constantFrom("steer", "followUp")).map(([message, streamingBehavior]) => ({
		kind: "command" as const,
		command: { type: "prompt", message, streamingBehavior },
		runs: true,
	})),
	queuedText.map((message) => ({ kind: "command" as const, command: { type: "steer", message } })),
	queuedText.map((message) => ({ kind: "command" as const, command: { type: "follow_up", message } })),
	fc
		.constantFrom<Line>(
			{ type: "abort" },
			{ type: "get_state" },
			{ type: "get_messages" },
			{ type: "get_available_models" },
			{ type: "get_session_stats" },
			{ type: "get_last_assistant_text" },
			{ type: "get_fork_messages" },
			{ type: "get_commands" },
			{ type: "set_model", provider: "faux", modelId: "faux-1" },
			{ type: "set_model", provider: "faux", modelId: "nope" },
			{ type: "cycle_model" },
			{ type: "set_thinking_level", level: "off" },
			{ type: "set_thinking_level", level: "high" },
			{ type: "cycle_thinking_level" },
			{ type: "set_auto_compaction", enabled: false },
			{ type: "set_auto_compaction", enabled: true },
			{ type: "set_auto_retry", enabled: false },
			{ type: "set_auto_retry", enabled: true },
			{ type: "abort_retry" },
			{ type: "abort_bash" },
			{ type: "bash", command: "echo out; echo err >&2" },
			{ type: "bash", command: "exit 3" },
			{ type: "new_session" },
			{ type: "clone" },
			{ type: "fork", entryId: "nope" },
			{ type: "set_session_name", name: " named " },
			{ type: "set_session_name", name: "  " },
			{ type: "frobnicate" },
		)
		.map((command) => ({ kind: "command" as const, command })),
	fc.constantFrom(undefined, "Focus on file names.").map((customInstructions) => ({
		kind: "command" as const,
		command: customInstructions === undefined ? { type: "compact" } : { type: "compact", customInstructions },
	})),
	mode.map((m) => ({ kind: "command" as const, command: { type: "set_steering_mode", mode: m } })),
	mode.map((m) => ({ kind: "command" as const, command: { type: "set_follow_up_mode", mode: m } })),
	fc.constantFrom("not json", "[1,2", '"just a string"').map((raw) => ({ kind: "raw" as const, text: raw })),
	fc.constant<Step>({ kind: "switch_previous" }),
	fc.constant<Step>({ kind: "export_html" }),
	fc.constant<Step>({ kind: "new_session_parent" }),
	fc.constant<Step>({ kind: "blank" }),
	fc.record({
		kind: fc.constant("gated_bash" as const),
		during: fc.array(fc.constantFrom<Line>({ type: "get_state" }, { type: "get_messages" }, { type: "abort_retry" }), {
			maxLength: 2,
		}),
		abort: fc.boolean(),
	}),
	fc
		.constantFrom<Line>({ type: "get_state" }, { type: "set_auto_retry", enabled: false }, { type: "nope" })
		.map((command) => ({ kind: "no_id" as const, command })),
	fc
		.constantFrom<Line>(
			{ type: "set_model", provider: "faux" },
			{ type: "fork" },
			{ type: "fork", entryId: 7 },
			{ type: "set_session_name" },
		)
		.map((command) => ({ kind: "invalid" as const, command })),
	fc.nat({ max: 3 }).map((nth) => ({ kind: "fork_nth" as const, nth })),
);

/** What may be sent while the gated tool call runs. */
const duringCommand: fc.Arbitrary<Line> = fc.oneof(
	text.map((message) => ({ type: "prompt", message })),
	fc
		.tuple(queuedText, fc.constantFrom("steer", "followUp"))
		.map(([message, streamingBehavior]) => ({ type: "prompt", message, streamingBehavior })),
	queuedText.map((message) => ({ type: "steer", message })),
	queuedText.map((message) => ({ type: "follow_up", message })),
	fc.constantFrom<Line>(
		{ type: "get_state" },
		{ type: "get_session_stats" },
		{ type: "set_steering_mode", mode: "all" },
		{ type: "set_follow_up_mode", mode: "all" },
		{ type: "abort_bash" },
		{ type: "abort_retry" },
	),
	// Both abort the run, then replace the session (neither shows the old session's run end). compact is
	// not sent here: PI_BUG_COMPACT_DURING_RUN_HIDES_RUN_END (pinned in rpc-differential-regressions.test.ts).
	fc.constant<Line>({ type: "new_session" }),
);

/** A scenario: an optional gated first prompt (the only scripted model call), then idle steps. */
export const scenarioArbitrary = fc.record({
	gated: fc.option(
		fc.record({
			message: text,
			// Nothing after a new_session: the run is over then, and a prompt would start a new one.
			during: fc
				.array(duringCommand, { minLength: 1, maxLength: 4 })
				.map((during) =>
					during.slice(0, during.findIndex((command) => command.type === "new_session") + 1 || undefined),
				),
			abort: fc.boolean(),
		}),
		{ nil: undefined },
	),
	/** After the gated prompt (so that there is a conversation to compact on overflow). */
	failing: fc.option(
		fc.oneof(
			fc.record({ error: fc.constant<FailingError>("overloaded"), abortRetry: fc.boolean() }),
			fc.record({ error: fc.constant<FailingError>("overflow"), abortRetry: fc.constant(false) }),
		),
		{ nil: undefined },
	),
	steps: fc.array(idleCommand, { minLength: 1, maxLength: 14 }),
});
export type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The faux script of a scenario: the gated tool call, then the final reply; then both echo. */
export function scriptOf(scenario: Scenario): unknown[] {
	return [...gatedScript(scenario), ...failingScript(scenario)];
}

/**
 * The scenario's failing prompt, if it runs: only without a gated run, whose number of model calls
 * depends on what is queued during it (and whose aborted call uses up the next scripted step in
 * pi-ai's faux only: FAUX_ABORT_CONSUMES), so the scripted error would land elsewhere.
 */
export function failingOf(scenario: Scenario): Scenario["failing"] {
	return scenario.gated ? undefined : scenario.failing;
}

/** The failing step: a first exchange (something to compact on overflow), then the prompt whose call fails. */
export const FAILING_WARM_UP = "The first answer.";

/** The warm-up answer and the error; then the echo model answers (the retry, the summary, the continued run). */
function failingScript(scenario: Scenario): unknown[] {
	const failing = failingOf(scenario);
	if (!failing) return [];
	return [FAILING_WARM_UP, { stopReason: "error", errorMessage: FAILING_ERRORS[failing.error] }];
}

function gatedScript(scenario: Scenario): unknown[] {
	if (!scenario.gated) return [];
	const gate = { toolCalls: [{ name: "bash", arguments: { command: GATE_COMMAND } }] };
	// FAUX_ABORT_CONSUMES: after an abort the loop still calls the model once with the aborted signal;
	// pi-ai's faux then uses up the next scripted step, Settle's does not. The echo steps that follow
	// are stateless, so an aborted scenario scripts nothing after the tool call.
	// A new_session during the run aborts it too.
	if (scenario.gated.abort || scenario.gated.during.some((command) => command.type === "new_session")) return [gate];
	return [gate, { thinking: "The command finished.", text: "The gate is open." }];
}

/**
 * Resolves once the peer has answered a `get_state` (not part of the observation, nor noted as a
 * session file): its process is up and reading commands. Step guards time steps, not start-up.
 */
export async function peerReady(peer: Peer): Promise<void> {
	const answered = peer.client.next((line) => line.type === "response" && line.id === "ready");
	peer.client.send({ id: "ready", type: "get_state" });
	await answered;
}

/** Sends `command` and resolves with its response (matched by the id the step gives it). */
async function request(peer: Peer, command: Line): Promise<Line> {
	// pi answers an unknown command without its id (DELIBERATE_UNKNOWN_ID): matched by name then.
	const answered = peer.client.next(
		(line) =>
			line.type === "response" && (line.id === command.id || (line.id === undefined && line.command === command.type)),
	);
	peer.client.send(command);
	const response = await answered;
	await noteSessionFile(peer, response);
	return response;
}

async function noteSessionFile(peer: Peer, response: Line): Promise<void> {
	const data = response.data as { sessionFile?: unknown } | undefined;
	if (response.command === "get_state" && typeof data?.sessionFile === "string") {
		if (!peer.sessionFiles.includes(data.sessionFile)) peer.sessionFiles.push(data.sessionFile);
	}
}

/** The session file the peer is in now (asks get_state; the answer is not part of the observation). */
async function currentSessionFile(peer: Peer, id: string): Promise<string | undefined> {
	const state = await request(peer, { id, type: "get_state" });
	return (state.data as { sessionFile?: string }).sessionFile;
}

/**
 * Runs one step on one peer and resolves with the lines it printed meanwhile. A step that starts a
 * run resolves once the run has ended (`endEvent`); one whose prompt fails resolves on the response.
 */
export async function runStep(peer: Peer, step: Step, index: number): Promise<Line[]> {
	const client = peer.client;
	const start = client.lines.length;
	const id = `s${index}`;
	switch (step.kind) {
		case "command": {
			const isPrompt = step.command.type === "prompt";
			const ended = isPrompt ? client.next((line) => line.type === peer.endEvent) : undefined;
			const response = await request(peer, { id, ...step.command });
			if (ended && response.success) await ended;
			break;
		}
		case "no_id": {
			const answered = client.next((line) => line.type === "response" && line.command === step.command.type);
			client.send(step.command);
			await answered;
			break;
		}
		case "export_html": {
			// A fresh file each time, so the test sees that this request wrote it.
			rmSync(join(peer.cwd, "session.html"), { force: true });
			await request(peer, { id, type: "export_html", outputPath: join(peer.cwd, "session.html") });
			break;
		}
		case "invalid": {
			await request(peer, { id, ...step.command });
			break;
		}
		case "raw": {
			const parsed = client.next((line) => line.type === "response" && line.id === undefined);
			client.child.stdin.write(`${step.text}\n`);
			await parsed;
			break;
		}
		case "switch_previous": {
			await currentSessionFile(peer, `${id}-where`);
			const from = client.lines.length;
			const target = peer.sessionFiles[0];
			if (target === undefined || !existsSync(target)) {
				// Nothing written yet: switching to a missing file (both must refuse or create it alike).
				await request(peer, { id, type: "switch_session", sessionPath: join(peer.cwd, "missing.jsonl") });
			} else {
				await request(peer, { id, type: "switch_session", sessionPath: target });
			}
			return client.lines.slice(from);
		}
		case "fork_nth": {
			const forkable = await request(peer, { id: `${id}-list`, type: "get_fork_messages" });
			const from = client.lines.length;
			const messages = (forkable.data as { messages: { entryId: string }[] }).messages;
			const target = messages[step.nth];
			await request(peer, { id, type: "fork", entryId: target ? target.entryId : `no-entry-${step.nth}` });
			return client.lines.slice(from);
		}
		case "new_session_parent": {
			const parent = await currentSessionFile(peer, `${id}-where`);
			const from = client.lines.length;
			await request(peer, { id, type: "new_session", parentSession: parent });
			// A prompt writes the new file (pi writes it with the first answer); its header must name the parent.
			const ended = client.next((line) => line.type === peer.endEvent);
			await request(peer, { id: `${id}-prompt`, type: "prompt", message: "hello" });
			await ended;
			const file = await currentSessionFile(peer, `${id}-where`);
			const header = readSession(file)[0];
			const lines = client.lines.slice(from);
			return [...lines, { type: "(test) new session header", parentIsPrevious: header?.parentSession === parent }];
		}
		case "failing": {
			const warmedUp = client.next((line) => line.type === peer.endEvent);
			await request(peer, { id: `${id}-first`, type: "prompt", message: "first" });
			await warmedUp;
			// The run ends after the retry or the overflow compaction (pi ends the failed attempt with an
			// agent_end of its own, then starts the retry or the continued run).
			const recovered = step.error === "overflow" ? "compaction_end" : "auto_retry_end";
			let recovering = false;
			// After abort_retry, pi's run is over at auto_retry_end (its agent_end came before the backoff);
			// Settle's settles after it.
			const last = step.abortRetry && peer.name === "pi" ? recovered : peer.endEvent;
			const ended = client.next((line) => {
				if (line.type === recovered) recovering = true;
				return recovering && line.type === last;
			});
			if (step.abortRetry) {
				const backoff = client.next((line) => line.type === "auto_retry_start");
				await request(peer, { id, type: "prompt", message: "hello" });
				await backoff;
				await request(peer, { id: `${id}-abort`, type: "abort_retry" });
			} else {
				await request(peer, { id, type: "prompt", message: "hello" });
			}
			await ended;
			break;
		}
		case "blank": {
			// The get_state answer shows the blank line was read (and what came of it, if anything).
			const answered = client.next((line) => line.type === "response" && line.id === id);
			client.child.stdin.write("\n");
			client.send({ id, type: "get_state" });
			await answered;
			break;
		}
		case "gated_bash": {
			rmSync(join(peer.cwd, "gate"), { force: true });
			const answered = request(peer, { id, type: "bash", command: GATED_BASH_COMMAND });
			await fileAppears(peer.cwd, "started");
			for (const [n, command] of step.during.entries()) await request(peer, { id: `${id}-${n}`, ...command });
			if (step.abort) await request(peer, { id: `${id}-abort`, type: "abort_bash" });
			else writeFileSync(join(peer.cwd, "gate"), "");
			await answered;
			rmSync(join(peer.cwd, "started"), { force: true });
			rmSync(join(peer.cwd, "gate"), { force: true });
			break;
		}
		case "gated": {
			const toolStarted = client.next((line) => line.type === "tool_execution_start");
			const ended = client.next((line) => line.type === peer.endEvent);
			const response = await request(peer, { id, type: "prompt", message: step.message });
			if (!response.success) break;
			await toolStarted;
			for (const [n, command] of step.during.entries()) await request(peer, { id: `${id}-${n}`, ...command });
			// compact and new_session abort the run and answer once it has stopped.
			const stopped = step.during.some((command) => command.type === "compact" || command.type === "new_session");
			if (step.abort) await request(peer, { id: `${id}-abort`, type: "abort" });
			// After new_session, pi's bash command is still running (pi replaces the session without aborting
			// the old agent): the gate opens so that it ends, and pi's step ends once it got through. Left
			// running, a later step's `rmSync(gate)` (or the folder's removal) could close the gate before it
			// looked, and the loop would outlive the test.
			if (!step.abort || stopped) writeFileSync(join(peer.cwd, "gate"), "");
			if (!stopped) await ended;
			else if (peer.name === "pi") await fileAppears(peer.cwd, "passed");
			rmSync(join(peer.cwd, "gate"), { force: true });
			rmSync(join(peer.cwd, "passed"), { force: true });
			break;
		}
	}
	return client.lines.slice(start);
}

/** Reads a session file's lines as JSON (none when it does not exist). */
export function readSession(file: string | undefined): Line[] {
	if (!file || !existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Line);
}

/** Keys whose values are random per run: replaced by their order of first appearance. */
const NOISE_ID_KEYS = new Set([
	"toolCallId",
	"entryId",
	"parentId",
	"sessionId",
	"sessionFile",
	"parentSession",
	"responseId",
	"firstKeptEntryId",
	"fromId",
	"targetId",
]);
/** NOISE_TIME: clock readings. */
const NOISE_TIME_KEYS = new Set(["timestamp", "durationMs", "duration", "startedAt", "endedAt"]);

/**
 * A copy of `value` with per-run noise taken out: ids mapped to `#n` in order of first appearance
 * (`ids` is shared across one peer's whole observation, so equal ids stay equal), times zeroed, the
 * peer's folders replaced by `<cwd>`, and pi-ai's per-registration faux api name (`faux:<time>:<rand>`)
 * replaced by `faux` (NOISE_FAUX_API).
 */
export function normalize(value: unknown, ids: Map<string, string>, cwd: string, key = ""): unknown {
	if (Array.isArray(value)) {
		// DELIBERATE_SYSTEM_MESSAGES, in every message list (agent_end's, get_messages', …).
		const kept = value.filter((item) => (item as { role?: unknown } | null)?.role !== "system");
		return kept.map((item) => normalize(item, ids, cwd));
	}
	if (key === "usage" && value && typeof value === "object") {
		// DELIBERATE_PROMPT_TOKENS: the faux model counts the whole context, system prompt included,
		// as input tokens, and the system prompt is each product's own text; only `output` compares.
		return { output: (value as { output?: unknown }).output };
	}
	if (value && typeof value === "object") {
		let record = value as Record<string, unknown>;
		if ("firstKeptEntryId" in record && "summary" in record) {
			// DELIBERATE_COMPACTION_EXTRAS: Settle's compaction result also says `estimatedTokensAfter` and
			// the summary call's `usage` (spec B.2 compaction_end, newer pi).
			const { estimatedTokensAfter: _after, usage: _usage, ...rest } = record;
			record = rest;
		}
		if (record.stopReason === "aborted" && "usage" in record) {
			// FAUX_ABORT_USAGE: pi-ai's faux puts the output tokens of the reply it was about to stream into
			// an aborted message; Settle's faux (src/llm/faux.ts) reports 0. A difference of the test
			// models, not of the products.
			const { usage: _usage, ...rest } = record;
			record = rest;
		}
		const out: Record<string, unknown> = {};
		for (const [k, v] of Object.entries(record)) out[k] = normalize(v, ids, cwd, k);
		return out;
	}
	if (typeof value === "number" && NOISE_TIME_KEYS.has(key)) return 0;
	// DELIBERATE_SUMMARY_TEXT: the echo model answers a summary request with the summarization prompt,
	// whose wording is each product's own (src/compaction/texts.ts); tokensBefore counts the system
	// prompt (DELIBERATE_PROMPT_TOKENS).
	if (key === "summary" && typeof value === "string") return "<summary>";
	if (key === "tokensBefore" && typeof value === "number") return "<tokens>";
	if (typeof value === "string") {
		if (NOISE_TIME_KEYS.has(key)) return "<time>";
		if (NOISE_ID_KEYS.has(key) || key === "id") {
			if (!ids.has(value)) ids.set(value, `#${ids.size}`);
			return ids.get(value);
		}
		if (key === "api" && value.startsWith("faux")) return "faux";
		return value.split(cwd).join("<cwd>");
	}
	return value;
}

/** The commands that replace the session (DELIBERATE_REPLACEMENT_QUEUE_UPDATE). */
const REPLACEMENTS = new Set(["new_session", "switch_session", "fork", "clone"]);

function isEmptyQueueUpdate(line: Line): boolean {
	const { steering, followUp } = line as { steering?: unknown[]; followUp?: unknown[] };
	return line.type === "queue_update" && steering?.length === 0 && followUp?.length === 0;
}

/**
 * One peer's observation of a step, comparable across the products. Taken out, each by name:
 * - DELIBERATE_AGENT_SETTLED: Settle's own `agent_settled` event (DESIGN §4: one per started operation).
 * - DELIBERATE_SYSTEM_MESSAGES: Settle records the system prompt as `system` transcript messages
 *   (src/session/messages.ts); their events and entries, and get_messages' system messages.
 * - DELIBERATE_STATE_EXTRAS: get_state's `cwd` and `lifecycle` (Settle's additions).
 * - DELIBERATE_CUMULATIVE_USAGE: get_session_stats' `cumulative` (Settle's addition).
 * - DELIBERATE_UNKNOWN_ID: Settle keeps the `id` on an unknown command's response (pi drops it).
 * - DELIBERATE_PROMPT_DISPOSITION: Settle's prompt response says how the prompt was taken
 *   (`data: { disposition }`, src/rpc/types.ts RpcPromptResult); pi's has no data.
 * - DELIBERATE_QUEUE_DISPOSITION: Settle's steer / follow_up responses say whether the message was
 *   queued or an `input` hook took it (`data: { disposition }`, RpcQueueResult; pi#9803); pi's have no data.
 * - DELIBERATE_SWITCH_CREATED: Settle's switch_session response to a path with no file says
 *   `created: true` (RpcSwitchSessionResult); pi's says only `cancelled`.
 * - DELIBERATE_THINKING_LEVEL_RESULT: Settle's set_thinking_level response says the level that
 *   applies (`data: { level }`, RpcThinkingLevelResult; pi#9768); pi's has no data.
 * - DELIBERATE_REPLACEMENT_QUEUE_UPDATE: a replacement (new_session, switch_session, fork, clone)
 *   that drops queued messages is preceded by Settle's `queue_update` with the new session's empty
 *   lists, so a client stops showing the dropped queue (hermes-webui#4533, pinned in
 *   test/pi-races/queue-rpc.test.ts); pi drops the queue without a word. Taken out on both sides.
 * - DELIBERATE_PROMPT_TOKENS, NOISE_UPDATE_THROTTLE: see where they are taken out.
 * - NOISE_FAUX_CHUNKS: pi-ai's faux splits text into chunks of random size (Math.random), so a run
 *   of `message_update` lines is collapsed to its sequence of distinct delta types, and the partial
 *   message it carries is dropped (the final one is in `message_end`).
 */
export function observe(lines: Line[], ids: Map<string, string>, cwd: string): unknown[] {
	const out: Line[] = [];
	for (const [at, raw] of lines.entries()) {
		const line = { ...raw };
		if (line.type === "agent_settled") continue;
		if (isEmptyQueueUpdate(line) && REPLACEMENTS.has(String(lines[at + 1]?.command))) continue;
		// DELIBERATE_BASH_EXECUTION_UPDATE: Settle streams a `bash` command's output as
		// `bash_execution_update` events (spec B.2, newer pi); pi 0.73.1's RPC bash prints nothing until
		// its response (which both send, compared).
		if (line.type === "bash_execution_update") continue;
		// DELIBERATE_RETRY_CONTEXT_EDIT: before a retry, Settle records that the failed answer leaves the
		// model context as a `context_edit` entry (the session tree stays append-only; src/store/entries.ts),
		// announced by `entry_appended`; pi drops the answer from its in-memory context only.
		if (line.type === "entry_appended" && (line.entry as { type?: string } | undefined)?.type === "context_edit")
			continue;
		// DELIBERATE_AGENT_END_WILL_RETRY: Settle's agent_end carries `willRetry` (spec B.2, newer pi)
		// and `aborted` (spec B, newer pi); pi 0.73.1's carries neither.
		if (line.type === "agent_end") {
			delete line.willRetry;
			delete line.aborted;
		}
		const message = line.message as { role?: string } | undefined;
		if ((line.type === "message_start" || line.type === "message_end") && message?.role === "system") continue;
		if (line.type === "response") {
			if (typeof line.id === "string" && /^(s\d+-)?(where|list)$|^probe-/.test(line.id)) continue;
			if (typeof line.error === "string" && line.error.startsWith("Unknown command")) delete line.id;
			// DELIBERATE_SET_MODEL_HINT: Settle's set_model refusal goes on after pi's `Model not found:
			// <provider>/<id>` with what to do (rpc.test.ts pins it); pi's text is compared.
			if (line.command === "set_model" && typeof line.error === "string") {
				line.error = line.error.replace(/^(Model not found: \S+?)[.:] .*$/s, "$1");
			}
			const data = line.data as Record<string, unknown> | undefined;
			const withData = ["prompt", "set_thinking_level", "steer", "follow_up"];
			if (typeof line.command === "string" && withData.includes(line.command) && line.success === true)
				delete line.data;
			if (line.command === "switch_session" && data && "created" in data) {
				const { created: _created, ...rest } = data;
				line.data = rest;
			}
			if (line.command === "get_state" && data) {
				// messageCount: DELIBERATE_SYSTEM_MESSAGES are counted (get_messages compares the messages).
				const { cwd: _cwd, lifecycle: _lifecycle, messageCount: _count, ...rest } = data;
				line.data = rest;
			}
			if (line.command === "get_last_assistant_text" && data && !("text" in data)) {
				// PI_BUG_LAST_TEXT_MISSING (pinned in rpc-differential-regressions.test.ts): pi's protocol type
				// says `text: string | null`, but pi sends `{}` when there is no text; Settle sends null.
				line.data = { text: null };
			}
			if (line.command === "get_session_stats" && data) {
				// DELIBERATE_PROMPT_TOKENS (see normalize), and DELIBERATE_SYSTEM_MESSAGES in totalMessages.
				// DELIBERATE_CUMULATIVE_USAGE: Settle's `cumulative` (every model call in the file, all
				// branches; gsd-2#1423), which pi 0.73.1 has no field for.
				const {
					tokens: _tokens,
					contextUsage: _contextUsage,
					totalMessages: _total,
					cumulative: _cumulative,
					...rest
				} = data;
				line.data = rest;
			}
			if (line.command === "get_messages" && data) {
				// DELIBERATE_RETRY_CONTEXT_EDIT persists: a failed answer a retry or an overflow compaction took
				// out of the context stays out when the session is opened again (switch back, fork); pi 0.73.1
				// drops it in memory only, so its reopened session shows it again. Failed answers are left out
				// on both sides.
				line.data = {
					messages: (data.messages as { role: string; stopReason?: string }[]).filter(
						(m) => m.role !== "system" && !(m.role === "assistant" && m.stopReason === "error"),
					),
				};
			}
		}
		if (line.type === "tool_execution_update") {
			// NOISE_UPDATE_THROTTLE: both products throttle a running bash command's updates by wall-clock
			// interval, so only the last of a run of updates compares.
			if (out.at(-1)?.type === "tool_execution_update") out.pop();
		}
		if (line.type === "message_update") {
			const event = line.assistantMessageEvent as { type: string };
			const previous = out.at(-1);
			if (previous?.type === "message_update") {
				const types = previous.deltas as string[];
				if (types.at(-1) !== event.type) types.push(event.type);
				continue;
			}
			out.push({ type: "message_update", deltas: [event.type] });
			continue;
		}
		out.push(normalize(line, ids, cwd) as Line);
	}
	return out;
}

/** A session file's entries, normalized; DELIBERATE_SYSTEM_MESSAGES are left out. */
export function observeSession(entries: Line[], ids: Map<string, string>, cwd: string): unknown[] {
	// DELIBERATE_RETRY_CONTEXT_EDIT (see observe) is left out the same way.
	const isSystem = (entry: Line) =>
		entry.type === "context_edit" ||
		(entry.type === "message" && (entry.message as { role: string }).role === "system");
	// A removed system entry's children hang from its parent instead.
	const parents = new Map<unknown, unknown>();
	for (const entry of entries) if (isSystem(entry)) parents.set(entry.id, entry.parentId);
	const lift = (id: unknown): unknown => (parents.has(id) ? lift(parents.get(id)) : id);
	// A compaction that keeps from a removed entry (Settle's cut moves back over entries without a
	// message, such as a retry's context_edit) keeps from the next entry that stays.
	const keptFrom = new Map<unknown, unknown>();
	let pendingRemoved: unknown[] = [];
	for (const entry of entries) {
		if (isSystem(entry)) pendingRemoved.push(entry.id);
		else {
			for (const id of pendingRemoved) keptFrom.set(id, entry.id);
			pendingRemoved = [];
		}
	}
	return entries
		.filter((entry) => !isSystem(entry))
		.map((entry) => {
			// DELIBERATE_SYSTEM_MESSAGES: a Settle compaction entry keeps the system prompt in effect.
			const { systemMessage: _system, ...withSystem } = entry;
			const rest =
				withSystem.type === "compaction" && keptFrom.has(withSystem.firstKeptEntryId)
					? { ...withSystem, firstKeptEntryId: keptFrom.get(withSystem.firstKeptEntryId) }
					: withSystem;
			// PI_BUG_FORK_FIRST_MESSAGE_LOSES_PARENT (pinned in rpc-differential-regressions.test.ts): pi's
			// fork at the first user message reopens a file it never wrote, so its header has no
			// parentSession; Settle keeps the link. The header's parentSession is not compared.
			if (rest.type === "session") delete rest.parentSession;
			return normalize("parentId" in rest ? { ...rest, parentId: lift(rest.parentId) } : rest, ids, cwd);
		});
}
