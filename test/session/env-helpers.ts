/**
 * A live AgentSession over a real project on disk: a fixture project copied into a temp folder,
 * its own agent folder and home (nothing read from the machine's ~/.settle), settings and
 * resources read by SettingsManager / DefaultResourceLoader, a JSONL session file, and the faux
 * provider. What the environment tests drive through the public API.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionError, ExtensionFactory } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, type FauxProviderOptions } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { DefaultResourceLoader, type DefaultResourceLoaderOptions } from "../../src/resources/resource-loader.js";
import { AgentSession, type AgentSessionConfig } from "../../src/session/agent-session.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { systemPromptFromTranscript } from "../../src/session/system-prompt.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

export const FIXTURE_PROJECTS = resolve(fileURLToPath(new URL("../fixtures/projects", import.meta.url)));
export const PI_EXAMPLES = resolve(
	fileURLToPath(new URL("../../node_modules/@mariozechner/pi-coding-agent/examples/extensions", import.meta.url)),
);

/** Options of {@link openProject}. */
export interface ProjectOptions {
	/** A folder under test/fixtures/projects copied as the project (default: an empty project). */
	fixture?: string;
	/** Files to write into the project (path relative to it → content). */
	files?: Record<string, string>;
	/** Files to write into the agent folder. */
	agentFiles?: Record<string, string>;
	/** `trustProject` of the resource loader (default true; `null` leaves it to settings). */
	trustProject?: boolean | null;
	faux?: FauxProviderOptions;
	/** Register the faux provider without credentials. */
	withoutAuth?: boolean;
	/** More loader options (extension paths, inline factories, …). */
	loader?: Omit<DefaultResourceLoaderOptions, "cwd" | "agentDir" | "settingsManager" | "trustProject" | "homeDir">;
	/** More session options. */
	session?: Partial<
		Omit<AgentSessionConfig, "sessionManager" | "settingsManager" | "resourceLoader" | "modelRuntime" | "cwd">
	>;
	/** Call `bindExtensions` (default true). */
	bind?: boolean;
	extensionFactories?: ExtensionFactory[];
}

/** A live session over a project on disk. */
export interface LiveProject {
	session: AgentSession;
	loader: DefaultResourceLoader;
	settings: SettingsManager;
	sessionManager: SessionManager;
	modelRuntime: InMemoryModelRuntime;
	faux: FauxProvider;
	/** Every public event. */
	events: AgentSessionEvent[];
	/** Errors reported to the host's `onError`. */
	errors: ExtensionError[];
	/** The project folder (session cwd). */
	cwd: string;
	agentDir: string;
	/** Writes (or overwrites) a file of the project. */
	write(path: string, content: string): void;
	/** Closes this session and opens its session file again in a new live session (same project). */
	reopen(options?: Pick<ProjectOptions, "session" | "bind">): Promise<LiveProject>;
	/** Disposes, closes the log; `remove` (default true) deletes the temp folders. */
	cleanup(remove?: boolean): void;
}

/**
 * Copies a fixture project into a temp folder and opens a live session in it.
 *
 * @example
 * ```ts
 * const p = await openProject({ fixture: "live-app" });
 * p.faux.setResponses([fauxAssistantMessage("ok")]);
 * await p.session.prompt("hi");
 * ```
 */
export async function openProject(options: ProjectOptions = {}): Promise<LiveProject> {
	const root = mkdtempSync(join(tmpdir(), "settle-env-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(home, { recursive: true });
	if (options.fixture) cpSync(join(FIXTURE_PROJECTS, options.fixture), cwd, { recursive: true });
	writeFiles(cwd, options.files);
	writeFiles(agentDir, options.agentFiles);
	const faux = createFauxProvider(options.faux);
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux, options.withoutAuth ? { apiKey: null } : {});
	return openSession({ root, cwd, agentDir, home, faux, modelRuntime, options, sessionManager: undefined });
}

async function openSession(input: {
	root: string;
	cwd: string;
	agentDir: string;
	home: string;
	faux: FauxProvider;
	modelRuntime: InMemoryModelRuntime;
	options: ProjectOptions;
	sessionManager: SessionManager | undefined;
}): Promise<LiveProject> {
	const { root, cwd, agentDir, home, faux, modelRuntime, options } = input;
	const trust = options.trustProject === undefined ? true : options.trustProject;
	const settings = SettingsManager.create(cwd, agentDir, trust === null ? {} : { projectTrusted: trust });
	const loader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager: settings,
		homeDir: home,
		...(trust === null ? {} : { trustProject: trust }),
		...(options.extensionFactories ? { extensionFactories: options.extensionFactories } : {}),
		...options.loader,
	});
	await loader.reload();
	const sessionManager = input.sessionManager ?? SessionManager.create(cwd, join(root, "sessions"));
	const session = await AgentSession.create({
		sessionManager,
		settingsManager: settings,
		resourceLoader: loader,
		modelRuntime,
		cwd,
		...(sessionManager.getEntries().length === 0 ? { model: faux.getModel()! } : {}),
		...options.session,
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => events.push(event));
	const errors: ExtensionError[] = [];
	if (options.bind !== false) await session.bindExtensions({ onError: (error) => errors.push(error) });
	else session.extensionRunner.onError((error) => errors.push(error));
	let cleaned = false;
	const project: LiveProject = {
		session,
		loader,
		settings,
		sessionManager,
		modelRuntime,
		faux,
		events,
		errors,
		cwd,
		agentDir,
		write: (path, content) => writeFiles(cwd, { [path]: content }),
		async reopen(next = {}) {
			const file = session.sessionFile;
			if (!file) throw new Error("the session has no file yet");
			project.cleanup(false);
			return openSession({
				...input,
				options: { ...options, ...next },
				sessionManager: SessionManager.open(file),
			});
		},
		cleanup(remove = true) {
			if (!cleaned) {
				cleaned = true;
				session.dispose();
				sessionManager.close();
			}
			if (remove) rmSync(root, { recursive: true, force: true });
		},
	};
	return project;
}

function writeFiles(base: string, files: Record<string, string> | undefined): void {
	for (const [path, content] of Object.entries(files ?? {})) {
		const target = join(base, path);
		mkdirSync(dirname(target), { recursive: true });
		writeFileSync(target, content);
	}
}

/** What one request saw, next to what the reopened transcript says it saw. */
export interface RequestReplay {
	request: number;
	sentPrompt: string | undefined;
	replayedPrompt: string | undefined;
	sentTools: string[];
	replayedTools: string[] | undefined;
}

/**
 * Opens a session file read-only and, for each assistant message of its context (one per model
 * request), replays the system messages before it: the prompt and tools the transcript says that
 * request saw, next to what the faux provider recorded.
 */
export function replayRequests(file: string, requests: FauxProvider["requests"]): RequestReplay[] {
	const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
	try {
		const messages = reopened.buildSessionContext().messages;
		const out: RequestReplay[] = [];
		let request = 0;
		for (let index = 0; index < messages.length; index++) {
			if (messages[index]!.role !== "assistant") continue;
			const replayed = systemPromptFromTranscript(messages.slice(0, index));
			const sent = requests[request];
			out.push({
				request,
				sentPrompt: sent?.systemPrompt,
				replayedPrompt: replayed?.prompt,
				sentTools: (sent?.tools ?? []).map((tool) => tool.name),
				replayedTools: replayed?.tools,
			});
			request++;
		}
		return out;
	} finally {
		reopened.close();
	}
}
