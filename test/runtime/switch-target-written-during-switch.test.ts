/**
 * SWITCH_TARGET_WRITTEN_DURING_SWITCH: `switchSession` to the current session's path while that
 * session has not written it yet opens it fresh (a new session there, like pi). If the old session
 * writes the file during the switch — an extension sends a user message in `session_shutdown`, or
 * the old session's work persists its first message while the new session is built — the switch
 * succeeded but the new session's first write failed: `IO` "Session file … already exists", so the
 * user's next prompt failed. pi 0.73.1 appends a second header to the same file (checked below with
 * pi's own runtime). Settle's choice: the new session takes the file over as written and continues
 * from its last entry, as a switch to the written current file does: one header, nothing lost, the
 * next prompt goes on from what the old session wrote.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import * as piAi from "@mariozechner/pi-ai";
import type * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI, ExtensionFactory } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
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

type Line = Record<string, unknown> & { type: string; id?: string; parentId?: string | null };

const roots: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
	for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function makeDirs(): RuntimeDirs {
	const dirs = makeRuntimeDirs("settle-switch-written-");
	roots.push(dirs.root);
	return dirs;
}

function readLines(file: string): Line[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Line);
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	return (content as { type: string; text?: string }[])
		.filter((part) => part.type === "text")
		.map((part) => part.text)
		.join("");
}

/** The file's headers and conversation, `role: text` per message (Settle's system messages left out). */
function conversation(file: string): string[] {
	return readLines(file).flatMap((line) => {
		if (line.type === "session") return ["session"];
		if (line.type !== "message") return [];
		const message = line.message as { role: string; content: unknown };
		if (message.role !== "user" && message.role !== "assistant") return [];
		return [`${message.role}: ${textOf(message.content)}`];
	});
}

/** True when every entry's parent is an earlier entry of the file (one tree, no dangling parent). */
function parentsResolve(file: string): boolean {
	const seen = new Set<unknown>();
	for (const line of readLines(file)) {
		if (line.type === "session") continue;
		if (line.parentId !== null && !seen.has(line.parentId)) return false;
		seen.add(line.id);
	}
	return true;
}

/** In `session_shutdown`, once armed: sends a user message and waits until the old session answered it. */
function writesOnShutdown(state: { armed: boolean }, text: string, after?: () => void): ExtensionFactory {
	return (api: ExtensionAPI) => {
		api.on("session_shutdown", async () => {
			if (!state.armed) return;
			state.armed = false;
			const answered = new Promise<void>((resolve) => api.on("agent_end", () => resolve()));
			api.sendUserMessage(text);
			await answered;
			after?.();
		});
	};
}

interface SettleRun {
	dirs: RuntimeDirs;
	runtime: AgentSessionRuntime;
	faux: FauxProvider;
	/** The path of the startup session (not written yet). */
	path: string;
}

async function settleRuntime(
	extension: ExtensionFactory,
	wrap: (inner: AgentSessionRuntimeFactory) => AgentSessionRuntimeFactory = (inner) => inner,
): Promise<SettleRun> {
	const dirs = makeDirs();
	const faux = createFauxProvider({ models: fauxModels(undefined, true) });
	const inner = createAgentSessionRuntimeFactory({
		modelRuntime: () => {
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			return modelRuntime;
		},
		model: faux.getModel()!,
		thinkingLevel: "off",
		resourceLoaderOptions: {
			extensionFactories: [extension],
			noExtensions: true,
			noSkills: true,
			noPromptTemplates: true,
			noContextFiles: true,
		},
	});
	const runtime = await createAgentSessionRuntime(wrap(inner), {
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		sessionManager: SessionManager.create(dirs.cwd, dirs.sessionDir),
	});
	cleanups.push(() => runtime.dispose());
	runtime.setRebindSession((session) => session.bindExtensions());
	await runtime.session.bindExtensions();
	return { dirs, runtime, faux, path: runtime.session.sessionFile! };
}

/** The last request's conversation as the model saw it (`role: text`). */
function lastRequest(faux: FauxProvider): string[] {
	const request = faux.requests.at(-1)!;
	return request.messages
		.filter((message) => message.role === "user" || message.role === "assistant")
		.map((message) => `${message.role}: ${textOf(message.content)}`);
}

const CONTINUED = [
	"session",
	"user: written during the switch",
	"assistant: answer: written during the switch",
	"user: hello",
	"assistant: answer: hello",
];

describe("SWITCH_TARGET_WRITTEN_DURING_SWITCH: the old session writes the target file during the switch", () => {
	it("pi 0.73.1 (reference): the new session appends a second header to the same file", async () => {
		const dirs = makeDirs();
		const faux = piAi.registerFauxProvider({ provider: "faux", models: fauxModels(undefined) });
		cleanups.push(async () => faux.unregister());
		const state = { armed: false };
		// pi's ExtensionAPI has the same `on` / `sendUserMessage` as Settle's.
		const extension = writesOnShutdown(state, "written during the switch") as unknown as pi.ExtensionFactory;
		const runtime = await createPiFauxRuntime(dirs, faux.getModel(), [extension]);
		cleanups.unshift(() => runtime.dispose());
		runtime.setRebindSession((session) => session.bindExtensions({}));
		await runtime.session.bindExtensions({});
		const path = runtime.session.sessionFile!;
		faux.setResponses([
			piAi.fauxAssistantMessage("answer: written during the switch"),
			piAi.fauxAssistantMessage("answer: hello"),
		]);
		state.armed = true;
		await runtime.switchSession(path);
		await runtime.session.prompt("hello");
		expect(runtime.session.sessionFile).toBe(path);
		expect(conversation(path)).toEqual([
			"session",
			"user: written during the switch",
			"assistant: answer: written during the switch",
			"session",
			"user: hello",
			"assistant: answer: hello",
		]);
	});

	it("an extension's session_shutdown writes it: the new session continues the file, the next prompt works (it failed: 'already exists')", async () => {
		const state = { armed: false };
		const run = await settleRuntime(writesOnShutdown(state, "written during the switch"));
		run.faux.setResponses([
			fauxAssistantMessage("answer: written during the switch"),
			fauxAssistantMessage("answer: hello"),
		]);
		const oldSession = run.runtime.session;
		state.armed = true;
		// The file the old session wrote is continued: the switch created no session (no `created`).
		expect(await run.runtime.switchSession(run.path, { createIfMissing: true })).toEqual({ cancelled: false });
		expect(run.runtime.session).not.toBe(oldSession);
		expect(run.runtime.session.sessionFile).toBe(run.path);
		// The file's session, continued: its id is the header's.
		expect(run.runtime.session.sessionId).toBe(readLines(run.path)[0]!.id);
		await run.runtime.session.prompt("hello");
		expect(conversation(run.path)).toEqual(CONTINUED);
		expect(parentsResolve(run.path)).toBe(true);
		// The model saw what the old session wrote.
		expect(lastRequest(run.faux)).toEqual(CONTINUED.slice(1, 4));
	});

	it("the old session's work persists its first message while the new session is built: the same", async () => {
		// A prompt sent before the switch (a session being replaced refuses new ones), held in its
		// `input` handler until the new session is being built: then it runs and writes the file.
		let releaseInput!: () => void;
		const inputHeld = new Promise<void>((resolve) => {
			releaseInput = resolve;
		});
		let oldWork: Promise<void> | undefined;
		const run = await settleRuntime(
			(api) => {
				api.on("input", async () => {
					await inputHeld;
					return { action: "continue" };
				});
			},
			(inner) => async (target) => {
				if (oldWork) {
					releaseInput();
					await oldWork;
					oldWork = undefined;
				}
				return inner(target);
			},
		);
		run.faux.setResponses([
			fauxAssistantMessage("answer: written during the switch"),
			fauxAssistantMessage("answer: hello"),
		]);
		const old = run.runtime.session;
		oldWork = old.prompt("written during the switch");
		await run.runtime.switchSession(run.path, { createIfMissing: true });
		expect(run.runtime.session).not.toBe(old);
		await run.runtime.session.prompt("hello");
		expect(conversation(run.path)).toEqual(CONTINUED);
		expect(parentsResolve(run.path)).toBe(true);
		expect(lastRequest(run.faux)).toEqual(CONTINUED.slice(1, 4));
	});

	it("the old session had changed the model: the file records the model the new session answers with", async () => {
		const state = { armed: false };
		const run = await settleRuntime(writesOnShutdown(state, "written during the switch"));
		run.faux.setResponses([
			fauxAssistantMessage("answer: written during the switch"),
			fauxAssistantMessage("answer: hello"),
		]);
		await run.runtime.session.setModel(run.faux.getModel("faux-2")!);
		state.armed = true;
		await run.runtime.switchSession(run.path, { createIfMissing: true });
		// The factory builds every session with faux-1.
		expect(run.runtime.session.model?.id).toBe("faux-1");
		await run.runtime.session.prompt("hello");
		expect(conversation(run.path)).toEqual(CONTINUED);
		const modelChanges = readLines(run.path)
			.filter((line) => line.type === "model_change")
			.map((line) => line.modelId);
		expect(modelChanges).toEqual(["faux-1", "faux-2", "faux-1"]);
		expect(run.faux.requests.map((request) => request.model.id)).toEqual(["faux-2", "faux-1"]);
	});

	it("a file the new session cannot open: the switch rejects with a typed error, the file stays as written, switching again continues it", async () => {
		const state = { armed: false };
		let written = "";
		let path = "";
		// After the old session wrote, the file gets a header of a newer format (a newer Settle wrote there).
		const run = await settleRuntime(
			writesOnShutdown(state, "written during the switch", () => {
				written = readFileSync(path, "utf8");
				writeFileSync(path, written.replace('"version":3', '"version":99'));
			}),
		);
		path = run.path;
		run.faux.setResponses([
			fauxAssistantMessage("answer: written during the switch"),
			fauxAssistantMessage("answer: hello"),
		]);
		state.armed = true;
		const failure = await run.runtime.switchSession(path, { createIfMissing: true }).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(SettleError);
		expect((failure as SettleError).code).toBe("INVALID_SESSION_FILE");
		expect((failure as SettleError).message).toContain(path);
		expect((failure as SettleError).message).toContain("switch to the file again");
		expect(readFileSync(path, "utf8")).toBe(written.replace('"version":3', '"version":99'));
		// The cause fixed, the advice works: the switch opens the file as written.
		writeFileSync(path, written);
		await run.runtime.switchSession(path);
		await run.runtime.session.prompt("hello");
		expect(conversation(path)).toEqual(CONTINUED);
		expect(parentsResolve(path)).toBe(true);
	});
});
