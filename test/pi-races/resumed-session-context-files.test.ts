/**
 * codex#27473, kimi-cli#2420: `AGENTS.md` was read anew for a new session but not for a resumed
 * one. The user edited the project rules (marker A to marker B), restarted with `--resume`, and the
 * model kept answering marker A; kimi-cli froze the whole system prompt in the session file, so
 * skills added since and `AGENTS.md` edits never reached a resumed session, and `/fork` copied the
 * stale prompt along. What those users should see: a resumed session (in a new process, or
 * switched to in a running one) and a fork send the context files and skills as they are on disk
 * now. Driven through the public runtime on real files: the session JSONL is written by the first
 * runtime and reopened by a second one, as `settle --session` does.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	createWorkspace,
	fauxModelRuntime,
	recordingFactory,
	startRuntime,
	startRuntimeWithEmptyHome,
	userEntryId,
	type Workspace,
} from "../runtime/helpers.js";

let ws: Workspace | undefined;
const runtimes: AgentSessionRuntime[] = [];
afterEach(async () => {
	for (const runtime of runtimes.splice(0)) await runtime.dispose();
	ws?.cleanup();
	ws = undefined;
});

const QUESTION = "What marker do your project rules contain?";

function writeRules(project: string, marker: string): void {
	writeFileSync(join(project, "AGENTS.md"), `- The project marker is ${marker}.\n`);
}

function addSkill(project: string, name: string, description: string): void {
	const dir = join(project, ".settle", "skills", name);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`);
}

/** A first session in `ws.alpha` that asked once with the rules saying MARKER-A; returns its file. */
async function firstSession(faux: FauxProvider): Promise<{ runtime: AgentSessionRuntime; file: string }> {
	writeRules(ws!.alpha, "MARKER-A");
	const runtime = await startRuntimeWithEmptyHome(faux, ws!, ws!.alpha);
	runtimes.push(runtime);
	await runtime.session.prompt(QUESTION);
	expect(faux.requests[0]!.systemPrompt).toContain("MARKER-A");
	return { runtime, file: runtime.session.sessionFile! };
}

function expectFreshContext(systemPrompt: string | undefined): void {
	expect(systemPrompt).toContain("MARKER-B");
	expect(systemPrompt).not.toContain("MARKER-A");
	expect(systemPrompt).toContain("Drafts release notes (SKILL-ADDED-LATER).");
}

describe("codex#27473: a resumed session keeps the AGENTS.md read when it began", () => {
	it("codex#27473, kimi-cli#2420: rules edited and a skill added, then the session reopened in a new process: its next request carries the files as they are now", async () => {
		ws = createWorkspace();
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("MARKER-A"), fauxAssistantMessage("MARKER-B")]);
		const { runtime: first, file } = await firstSession(faux);
		await first.dispose();
		runtimes.splice(runtimes.indexOf(first), 1);

		writeRules(ws.alpha, "MARKER-B");
		addSkill(ws.alpha, "release-notes", "Drafts release notes (SKILL-ADDED-LATER).");
		const { factory } = recordingFactory({
			modelRuntime: () => fauxModelRuntime(faux),
			resourceLoaderOptions: { noExtensions: true, trustProject: true, homeDir: join(ws.root, "home") },
		});
		const resumed = await startRuntime(factory, ws, ws.alpha, SessionManager.open(file, ws.sessionDir(ws.alpha)));
		runtimes.push(resumed);
		expect(resumed.session.sessionFile).toBe(file);
		await resumed.session.prompt(QUESTION);
		expect(faux.requests).toHaveLength(2);
		expectFreshContext(faux.requests[1]!.systemPrompt);
		// The earlier exchange is still there: the session was resumed, not replaced.
		expect(JSON.stringify(faux.requests[1]!.messages)).toContain('"MARKER-A"');
	});

	it("codex#27473: switched back to in a running process (/resume), the session's next request carries the edited rules", async () => {
		ws = createWorkspace();
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("MARKER-A"), fauxAssistantMessage("MARKER-B")]);
		const { runtime, file } = await firstSession(faux);
		expect((await runtime.newSession()).cancelled).toBe(false);

		writeRules(ws.alpha, "MARKER-B");
		addSkill(ws.alpha, "release-notes", "Drafts release notes (SKILL-ADDED-LATER).");
		expect((await runtime.switchSession(file)).cancelled).toBe(false);
		await runtime.session.prompt(QUESTION);
		expectFreshContext(faux.requests[1]!.systemPrompt);
	});

	it("kimi-cli#2420: a fork made after the edit does not copy the old prompt along: its first request carries the edited rules", async () => {
		ws = createWorkspace();
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("MARKER-A"), fauxAssistantMessage("MARKER-B")]);
		const { runtime } = await firstSession(faux);

		writeRules(ws.alpha, "MARKER-B");
		addSkill(ws.alpha, "release-notes", "Drafts release notes (SKILL-ADDED-LATER).");
		const forked = await runtime.fork(userEntryId(runtime.session, QUESTION), { position: "at" });
		expect(forked.cancelled).toBe(false);
		await runtime.session.prompt(QUESTION);
		expectFreshContext(faux.requests[1]!.systemPrompt);
	});
});
