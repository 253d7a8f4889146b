/**
 * SWITCH_TO_UNWRITTEN_CURRENT_SESSION (found by the RPC differential, seed -2140653696 path 3):
 * `switchSession` to the path of the session that is open but not written yet, then a prompt.
 * Settle reused the open manager, so the new session's model_change and thinking_level_change were
 * appended after the ones the old session had not written yet: the file got them twice; pi reopens
 * the path and starts a new session there. The neighbouring cases (the current file when it is
 * written, another unwritten path and back, new session / fork then switch to it, a moved leaf)
 * run the same steps through pi 0.73.1's runtime and Settle's, and compare the files they leave.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import {
	type AgentSessionRuntime,
	type AgentSessionRuntimeFactory,
	createAgentSessionRuntime,
} from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { fauxModels } from "../parity/peers.js";
import { createPiFauxRuntime, makeRuntimeDirs, type RuntimeDirs } from "./pi-faux-runtime.js";

/** One side's runtime, driven the same way on pi and on Settle. */
interface Side {
	readonly name: "pi" | "settle";
	readonly dirs: RuntimeDirs;
	file(): string | undefined;
	sessionId(): string;
	/** Prompts `text`; the faux model answers `answer: <text>`. */
	prompt(text: string): Promise<void>;
	switchTo(path: string): Promise<void>;
	newSession(): Promise<void>;
	/** Forks at the user message whose text is `text`. */
	fork(text: string, position: "before" | "at"): Promise<void>;
	/** Moves the leaf to the user message whose text is `text` (no summary). */
	navigateTo(text: string): Promise<void>;
	dispose(): Promise<void>;
}

/** Settle's side, whose runtime factory can be made to fail the next build. */
interface SettleSide extends Side {
	readonly runtime: AgentSessionRuntime;
	failNextBuild(): void;
}

type Entry = Record<string, unknown> & { type: string; id?: string; parentId?: string | null };
/** Either side's session manager, as `userEntryId` reads it. */
interface SessionLikeManager {
	getEntries(): readonly object[];
}

const makeDirs = () => makeRuntimeDirs("settle-switch-current-");

/** What both products' runtimes offer the steps (pi's and Settle's have the same shape here). */
interface RuntimeLike {
	readonly session: {
		readonly sessionFile: string | undefined;
		readonly sessionId: string;
		readonly sessionManager: SessionLikeManager;
		prompt(text: string): Promise<unknown>;
		navigateTree(entryId: string): Promise<unknown>;
	};
	switchSession(path: string, options?: object): Promise<unknown>;
	newSession(): Promise<unknown>;
	fork(entryId: string, options: { position: "before" | "at" }): Promise<unknown>;
	dispose(): Promise<unknown>;
}

/** The steps of {@link Side} on either runtime; `answer` scripts the faux model's next reply. */
function runtimeSteps(runtime: RuntimeLike, answer: (text: string) => void) {
	return {
		file: () => runtime.session.sessionFile,
		sessionId: () => runtime.session.sessionId,
		prompt: async (text: string) => {
			answer(`answer: ${text}`);
			await runtime.session.prompt(text);
		},
		switchTo: async (path: string) => {
			// pi's semantics, which this file compares: a missing file starts a new session (pi has no such option).
			await runtime.switchSession(path, { createIfMissing: true });
		},
		newSession: async () => {
			await runtime.newSession();
		},
		fork: async (text: string, position: "before" | "at") => {
			await runtime.fork(userEntryId(runtime.session.sessionManager, text), { position });
		},
		navigateTo: async (text: string) => {
			await runtime.session.navigateTree(userEntryId(runtime.session.sessionManager, text));
		},
	};
}

function userEntryId(manager: SessionLikeManager, text: string): string {
	const entry = (manager.getEntries() as Entry[]).find(
		(e) =>
			e.type === "message" &&
			(e.message as { role: string }).role === "user" &&
			JSON.stringify((e.message as { content: unknown }).content).includes(`"${text}"`),
	);
	if (!entry?.id) throw new Error(`no user entry "${text}"`);
	return entry.id;
}

async function piSide(): Promise<Side> {
	const dirs = makeDirs();
	const faux = piAi.registerFauxProvider({ provider: "faux", models: fauxModels(undefined) });
	const runtime = await createPiFauxRuntime(dirs, faux.getModel());
	return {
		name: "pi",
		dirs,
		...runtimeSteps(runtime, (text) => faux.setResponses([piAi.fauxAssistantMessage(text)])),
		dispose: async () => {
			await runtime.dispose();
			faux.unregister();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
}

async function settleSide(): Promise<SettleSide> {
	const dirs = makeDirs();
	const faux = createFauxProvider({ models: fauxModels(undefined) });
	let failNext = false;
	const inner = createAgentSessionRuntimeFactory({
		modelRuntime: () => {
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			return modelRuntime;
		},
		model: faux.getModel()!,
		thinkingLevel: "off",
		resourceLoaderOptions: { noExtensions: true, noSkills: true, noPromptTemplates: true, noContextFiles: true },
	});
	const factory: AgentSessionRuntimeFactory = async (target) => {
		if (failNext) {
			failNext = false;
			throw new Error("factory failed");
		}
		return inner(target);
	};
	const runtime = await createAgentSessionRuntime(factory, {
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		sessionManager: SessionManager.create(dirs.cwd, dirs.sessionDir),
	});
	return {
		name: "settle",
		dirs,
		runtime,
		failNextBuild: () => {
			failNext = true;
		},
		...runtimeSteps(runtime, (text) => faux.setResponses([fauxAssistantMessage(text)])),
		dispose: async () => {
			await runtime.dispose();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
}

function readEntries(file: string | undefined): Entry[] {
	if (!file) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Entry);
}

function messageText(message: { content: unknown }): string {
	const content = message.content;
	if (typeof content === "string") return content;
	return (content as { type: string; text?: string }[])
		.filter((part) => part.type === "text")
		.map((part) => part.text)
		.join("");
}

/**
 * The file as a user reads it, without per-run noise: one line per entry (`#n` = the n-th entry of
 * the file, header excluded; `^#m` its parent). Settle's system-message entries (DELIBERATE_SYSTEM_MESSAGES)
 * are left out, their children hang from their parent.
 */
function fileShape(entries: Entry[], cwds: string[]): string[] {
	const isSystem = (entry: Entry) =>
		entry.type === "context_edit" ||
		(entry.type === "message" && (entry.message as { role: string }).role === "system");
	const parents = new Map<unknown, unknown>();
	for (const entry of entries) if (isSystem(entry)) parents.set(entry.id, entry.parentId);
	const lift = (id: unknown): unknown => (parents.has(id) ? lift(parents.get(id)) : id);
	const kept = entries.filter((entry) => !isSystem(entry));
	const numbers = new Map<unknown, string>();
	for (const entry of kept) if (entry.type !== "session") numbers.set(entry.id, `#${numbers.size + 1}`);
	return kept.map((entry) => {
		if (entry.type === "session")
			return `session cwd=${cwds.includes(String(entry.cwd)) ? "<cwd>" : String(entry.cwd)}`;
		const parent = lift(entry.parentId);
		const head = `${numbers.get(entry.id)} ^${parent === null || parent === undefined ? "-" : (numbers.get(parent) ?? "?")}`;
		switch (entry.type) {
			case "message": {
				const message = entry.message as { role: string; content: unknown };
				return `${head} ${message.role}: ${messageText(message)}`;
			}
			case "model_change":
				return `${head} model_change ${String(entry.provider)}/${String(entry.modelId)}`;
			case "thinking_level_change":
				return `${head} thinking_level_change ${String(entry.thinkingLevel)}`;
			default:
				return `${head} ${entry.type}`;
		}
	});
}

/** What a scenario observed on one side: the final file's shape, and anything else it noted. */
interface Outcome {
	file: string[];
	notes: Record<string, unknown>;
}

type Scenario = (side: Side, notes: Record<string, unknown>) => Promise<void>;

const opened: Side[] = [];

async function play(make: () => Promise<Side>, scenario: Scenario): Promise<Outcome> {
	const side = await make();
	opened.push(side);
	const notes: Record<string, unknown> = {};
	await scenario(side, notes);
	// DELIBERATE_MISSING_FILE_CWD (src/runtime/targets.ts): a session started at a missing path belongs
	// to the current session's project in Settle; pi's header takes the process's cwd.
	const cwds = side.name === "pi" ? [side.dirs.cwd, process.cwd()] : [side.dirs.cwd];
	const file = fileShape(readEntries(side.file()), cwds);
	return { file, notes };
}

/** Plays `scenario` on pi, then on Settle (pi's faux provider is global: one side at a time). */
async function onBoth(scenario: Scenario): Promise<{ pi: Outcome; settle: Outcome }> {
	const piOutcome = await play(piSide, scenario);
	await opened.pop()?.dispose();
	const settleOutcome = await play(settleSide, scenario);
	await opened.pop()?.dispose();
	return { pi: piOutcome, settle: settleOutcome };
}

afterEach(async () => {
	for (const side of opened.splice(0)) await side.dispose();
});

const NEW_SESSION = ["session cwd=<cwd>", "#1 ^- model_change faux/faux-1", "#2 ^#1 thinking_level_change off"];

describe("SWITCH_TO_UNWRITTEN_CURRENT_SESSION: switchSession to the current path, as pi", () => {
	it("a missing path, switched to twice, then a prompt: one model_change and one thinking_level_change (Settle wrote them twice)", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side, notes) => {
			const path = join(side.dirs.sessionDir, "missing.jsonl");
			await side.switchTo(path);
			const firstId = side.sessionId();
			await side.switchTo(path);
			notes.newSessionId = side.sessionId() !== firstId;
			notes.samePath = side.file() === path;
			await side.prompt("hello");
		});
		expect(settle.file).toEqual([...NEW_SESSION, "#3 ^#2 user: hello", "#4 ^#3 assistant: answer: hello"]);
		expect(settle.notes).toEqual({ newSessionId: true, samePath: true });
		expect(settle).toEqual(piOutcome);
	});

	it("the unwritten file of the startup session, switched to: a new session starts there", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side, notes) => {
			const path = side.file()!;
			const firstId = side.sessionId();
			await side.switchTo(path);
			notes.newSessionId = side.sessionId() !== firstId;
			await side.prompt("hello");
		});
		expect(settle.file).toEqual([...NEW_SESSION, "#3 ^#2 user: hello", "#4 ^#3 assistant: answer: hello"]);
		expect(settle.notes).toEqual({ newSessionId: true });
		expect(settle).toEqual(piOutcome);
	});

	it("new session, then a switch to its (unwritten) file, then a prompt", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side) => {
			await side.prompt("first");
			await side.newSession();
			await side.switchTo(side.file()!);
			await side.prompt("second");
		});
		expect(settle.file).toEqual([...NEW_SESSION, "#3 ^#2 user: second", "#4 ^#3 assistant: answer: second"]);
		expect(settle).toEqual(piOutcome);
	});

	it("a fork at the first message (nothing to write yet), then a switch to the fork's file, then a prompt", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side) => {
			await side.prompt("first");
			await side.fork("first", "before");
			await side.switchTo(side.file()!);
			await side.prompt("again");
		});
		expect(settle.file).toEqual([...NEW_SESSION, "#3 ^#2 user: again", "#4 ^#3 assistant: answer: again"]);
		expect(settle).toEqual(piOutcome);
	});

	it("a missing path, another missing path, back to the first, then a prompt", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side) => {
			const first = join(side.dirs.sessionDir, "one.jsonl");
			await side.switchTo(first);
			await side.switchTo(join(side.dirs.sessionDir, "two.jsonl"));
			await side.switchTo(first);
			await side.prompt("hello");
		});
		expect(settle.file).toEqual([...NEW_SESSION, "#3 ^#2 user: hello", "#4 ^#3 assistant: answer: hello"]);
		expect(settle).toEqual(piOutcome);
	});

	it("the current file when it is written: reopened as it is, the next prompt continues it", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side, notes) => {
			await side.prompt("first");
			const id = side.sessionId();
			await side.switchTo(side.file()!);
			notes.sameSessionId = side.sessionId() === id;
			await side.prompt("second");
		});
		expect(settle.file).toEqual([
			...NEW_SESSION,
			"#3 ^#2 user: first",
			"#4 ^#3 assistant: answer: first",
			"#5 ^#4 user: second",
			"#6 ^#5 assistant: answer: second",
		]);
		expect(settle.notes).toEqual({ sameSessionId: true });
		expect(settle).toEqual(piOutcome);
	});

	it("a fork at a later message (a written file), then a switch to it, then a prompt", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side) => {
			await side.prompt("first");
			await side.prompt("second");
			await side.fork("second", "before");
			await side.switchTo(side.file()!);
			await side.prompt("third");
		});
		expect(settle.file).toEqual([
			...NEW_SESSION,
			"#3 ^#2 user: first",
			"#4 ^#3 assistant: answer: first",
			"#5 ^#4 user: third",
			"#6 ^#5 assistant: answer: third",
		]);
		expect(settle).toEqual(piOutcome);
	});

	it("a written file whose leaf was moved back: the reopened session continues from the file's last entry", async () => {
		const { pi: piOutcome, settle } = await onBoth(async (side) => {
			await side.prompt("first");
			await side.prompt("second");
			await side.navigateTo("second");
			await side.switchTo(side.file()!);
			await side.prompt("third");
		});
		expect(settle).toEqual(piOutcome);
	});
});

describe("SWITCH_TO_UNWRITTEN_CURRENT_SESSION: a switch to the current path that fails leaves the session as it was", () => {
	async function settleOnly(): Promise<SettleSide> {
		const side = await settleSide();
		opened.push(side);
		return side;
	}

	it("unwritten: the current session goes on at its path, its settings entries written once", async () => {
		const side = await settleOnly();
		const path = side.file()!;
		const id = side.sessionId();
		side.failNextBuild();
		await expect(side.switchTo(path)).rejects.toThrow("factory failed");
		expect(side.sessionId()).toBe(id);
		await side.prompt("hello");
		expect(side.file()).toBe(path);
		expect(fileShape(readEntries(path), [side.dirs.cwd])).toEqual([
			...NEW_SESSION,
			"#3 ^#2 user: hello",
			"#4 ^#3 assistant: answer: hello",
		]);
	});

	it("unwritten, then written by the current session while the switch fails: the file and what it holds stay", async () => {
		const side = await settleOnly();
		const path = side.file()!;
		const old = side.runtime.session;
		// The host's hook runs while the current session is still in charge of its path.
		side.runtime.setBeforeSessionInvalidate(() => {
			old.sessionManager.appendMessage({ role: "user", content: "written meanwhile", timestamp: Date.now() });
			throw new Error("host refused");
		});
		await expect(side.switchTo(path)).rejects.toThrow("host refused");
		side.runtime.setBeforeSessionInvalidate(undefined);
		expect(side.runtime.session).toBe(old);
		expect(fileShape(readEntries(path), [side.dirs.cwd])).toEqual([...NEW_SESSION, "#3 ^#2 user: written meanwhile"]);
		await side.prompt("hello");
		expect(fileShape(readEntries(path), [side.dirs.cwd]).slice(-2)).toEqual([
			"#4 ^#3 user: hello",
			"#5 ^#4 assistant: answer: hello",
		]);
	});

	it("written, the leaf moved back: the current session keeps its leaf (the next prompt branches there)", async () => {
		const side = await settleOnly();
		await side.prompt("first");
		await side.prompt("second");
		await side.navigateTo("second");
		side.failNextBuild();
		await expect(side.switchTo(side.file()!)).rejects.toThrow("factory failed");
		await side.prompt("third");
		expect(fileShape(readEntries(side.file()), [side.dirs.cwd]).slice(-3)).toEqual([
			"#6 ^#5 assistant: answer: second",
			"#7 ^#4 user: third",
			"#8 ^#7 assistant: answer: third",
		]);
	});
});
