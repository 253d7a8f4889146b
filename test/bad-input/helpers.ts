/**
 * Bad-input test kit: a temp workspace, a faux model runtime, a file-backed session built through
 * the public factory, and ways to read back what is on disk (entries, bytes).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { SettleError, type SettleErrorCode } from "../../src/errors.js";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { type CreateAgentSessionOptions, createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

export interface Workspace {
	root: string;
	project: string;
	agentDir: string;
	sessionDir: string;
	faux: FauxProvider;
	modelRuntime: InMemoryModelRuntime;
	/** Queues plain text answers of the faux model. */
	reply(...texts: string[]): void;
	cleanup(): void;
}

export function createWorkspace(): Workspace {
	const root = mkdtempSync(join(tmpdir(), "settle-bad-input-"));
	const project = join(root, "project");
	const agentDir = join(root, "agent");
	const sessionDir = join(root, "sessions");
	mkdirSync(project);
	mkdirSync(agentDir);
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	return {
		root,
		project,
		agentDir,
		sessionDir,
		faux,
		modelRuntime,
		reply: (...texts) => faux.appendResponses(texts.map((text) => fauxAssistantMessage(text))),
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/**
 * A fresh {@link createWorkspace} for each test of the file, removed after it: call once at module
 * level (`const ws = useWorkspace();`). The object returned reads the current test's workspace.
 */
export function useWorkspace(): Workspace {
	let current: Workspace | undefined;
	beforeEach(() => {
		current = createWorkspace();
	});
	afterEach(() => {
		current?.cleanup();
		current = undefined;
	});
	const now = (): Workspace => {
		if (!current) throw new Error("useWorkspace(): the workspace exists only while a test runs");
		return current;
	};
	return {
		get root() {
			return now().root;
		},
		get project() {
			return now().project;
		},
		get agentDir() {
			return now().agentDir;
		},
		get sessionDir() {
			return now().sessionDir;
		},
		get faux() {
			return now().faux;
		},
		get modelRuntime() {
			return now().modelRuntime;
		},
		reply: (...texts) => now().reply(...texts),
		cleanup: () => now().cleanup(),
	};
}

/**
 * A file-backed session in the workspace's project through `createAgentSession`, with
 * `extensions` loaded inline and bound (so `session_start` ran and handlers are live).
 */
export async function openSession(
	ws: Workspace,
	options: {
		extensions?: ExtensionFactory[];
		/** Extension files loaded as explicit paths (`--extension`). */
		extensionPaths?: string[];
		sessionManager?: SessionManager;
	} & Partial<CreateAgentSessionOptions> = {},
): Promise<AgentSession> {
	const { extensions = [], extensionPaths = [], ...rest } = options;
	const settingsManager = rest.settingsManager ?? SettingsManager.inMemory();
	const resourceLoader = new DefaultResourceLoader({
		cwd: ws.project,
		agentDir: ws.agentDir,
		settingsManager,
		extensionFactories: extensions,
		additionalExtensionPaths: extensionPaths,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd: ws.project,
		agentDir: ws.agentDir,
		modelRuntime: ws.modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager: rest.sessionManager ?? SessionManager.create(ws.project, ws.sessionDir),
		...rest,
	});
	await session.bindExtensions();
	return session;
}

/** Disposes the session and releases its file (the caller owns the session manager). */
export function closeSession(session: AgentSession): void {
	session.dispose();
	session.sessionManager.close();
}

/** The file's lines parsed as JSON (every line must parse). */
export function fileEntries(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Role (or type) of every entry on disk after the header: `user`, `assistant`, `toolResult`, `model_change`… */
export function diskRoles(file: string): string[] {
	return fileEntries(file)
		.slice(1)
		.map((entry) => (entry.type === "message" ? (entry.message as { role: string }).role : (entry.type as string)));
}

/** Asserts `error` is a SettleError with `code` whose message contains every `mentions`. */
export function expectSettleError(error: unknown, code: SettleErrorCode, ...mentions: string[]): SettleError {
	expect(error).toBeInstanceOf(SettleError);
	const settle = error as SettleError;
	expect(settle.code).toBe(code);
	for (const text of mentions) expect(settle.message).toContain(text);
	return settle;
}

/** What `fn` threw (fails the test when it returns). */
export function thrown(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}
	throw new Error("expected a throw");
}

/** Text of the last assistant message of the session. */
export function lastAssistant(session: AgentSession): { text: string; stopReason: string; errorMessage?: string } {
	const message = [...session.messages].reverse().find((m) => m.role === "assistant");
	if (message?.role !== "assistant") throw new Error("no assistant message");
	const text = message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("");
	return {
		text,
		stopReason: message.stopReason,
		...(message.errorMessage !== undefined ? { errorMessage: message.errorMessage } : {}),
	};
}
