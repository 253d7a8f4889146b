/**
 * End to end: a pi-style extension FILE importing `compact`, `formatSkillsForPrompt` and
 * `loadSkillsFromDir` from "@mariozechner/pi-coding-agent", loaded by Settle's resource loader (the
 * alias maps the specifier to Settle's pi-compat module), lists its skills in `before_agent_start`
 * and runs its own compaction in `session_before_compact`. The session is served by pi-ai's own
 * faux provider, so the extension's summary request goes through pi-ai as it would in pi; the
 * compaction it returns is written to the session file on disk.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, expect, it } from "vitest";
import { createPiAiModelRuntime } from "../../src/llm/pi-ai.js";
import type { Model } from "../../src/llm/types.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir } from "./helpers.js";

const EXTENSION = `
import { compact, formatSkillsForPrompt, loadSkillsFromDir } from "@mariozechner/pi-coding-agent";

export default function (pi) {
	const { skills } = loadSkillsFromDir({ dir: process.env.EXT_SKILLS_DIR, source: "my-ext" });

	pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + formatSkillsForPrompt(skills) }));

	pi.on("session_before_compact", async (event, ctx) => {
		const auth = await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model);
		if (!auth.ok) return;
		const result = await compact(event.preparation, ctx.model, auth.apiKey, auth.headers, "the deploy script", event.signal);
		return { compaction: { ...result, summary: "[custom] " + result.summary } };
	});
}
`;

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

it("a pi extension file compacts with pi's `compact` and lists skills with `formatSkillsForPrompt`; the session writes its compaction", async () => {
	const root = tempDir();
	const cwd = join(root, "repo");
	const agentDir = join(root, "agent");
	const skillsDir = join(root, "ext-skills");
	mkdirSync(join(skillsDir, "deploy"), { recursive: true });
	mkdirSync(cwd, { recursive: true });
	writeFileSync(
		join(skillsDir, "deploy", "SKILL.md"),
		"---\nname: deploy\ndescription: Ship <it>\n---\nRun deploy.sh\n",
	);
	const extensionFile = join(root, "custom-compaction.ts");
	writeFileSync(extensionFile, EXTENSION);
	const previousSkillsDir = process.env.EXT_SKILLS_DIR;
	process.env.EXT_SKILLS_DIR = skillsDir;
	cleanups.push(() => {
		if (previousSkillsDir === undefined) delete process.env.EXT_SKILLS_DIR;
		else process.env.EXT_SKILLS_DIR = previousSkillsDir;
	});

	const faux = piAi.registerFauxProvider({ provider: "pi-faux" });
	cleanups.push(() => faux.unregister());
	const modelRuntime = await createPiAiModelRuntime({
		credentials: AuthStorage.inMemory({ "pi-faux": "key-1" }),
		useEnvironment: false,
		providers: [],
	});
	modelRuntime.registerPiAiProvider("pi-faux", faux.models as Model[]);
	const model = modelRuntime.getModel("pi-faux", faux.getModel().id)!;

	const requests: { systemPrompt: string | undefined; text: string; apiKey: string | undefined }[] = [];
	const answer = (text: string) => (context: piAi.Context, options?: piAi.StreamOptions) => {
		const last = context.messages.at(-1)!;
		requests.push({
			systemPrompt: context.systemPrompt,
			text:
				typeof last.content === "string" ? last.content : last.content.map((b) => ("text" in b ? b.text : "")).join(""),
			apiKey: options?.apiKey,
		});
		return piAi.fauxAssistantMessage(text);
	};
	faux.setResponses([answer("first answer"), answer("second answer"), answer("## Goal\nShip the deploy script")]);

	const settingsManager = SettingsManager.inMemory({ compaction: { keepRecentTokens: 5 } });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		additionalExtensionPaths: [extensionFile],
		noSkills: true,
	});
	const sessionManager = SessionManager.create(cwd, join(root, "sessions"));
	const { session, diagnostics } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager,
		model,
	});
	cleanups.push(() => session.dispose());
	expect(diagnostics).toEqual([]);

	await session.prompt("write deploy.sh");
	await session.prompt("now run it");
	const result = await session.compact();

	// before_agent_start: the listing pi's formatSkillsForPrompt makes, appended to the system prompt.
	expect(requests[0]!.systemPrompt).toMatch(
		/<\/date>\n\nThe following skills provide specialized instructions[\s\S]*<name>deploy<\/name>\n {4}<description>Ship &lt;it&gt;<\/description>/,
	);
	// session_before_compact: the extension's compact() asked the session's model, with its key and focus.
	const summaryRequest = requests[2]!;
	expect(summaryRequest.apiKey).toBe("key-1");
	expect(summaryRequest.text).toContain("[User]: write deploy.sh");
	expect(summaryRequest.text).toMatch(/Additional focus: the deploy script$/);
	expect(result.summary).toBe("[custom] ## Goal\nShip the deploy script");

	// The session wrote the extension's compaction to its file.
	const file = sessionManager.getSessionFile()!;
	const entries = readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line));
	const compaction = entries.find((entry) => entry.type === "compaction");
	expect(compaction).toMatchObject({
		summary: "[custom] ## Goal\nShip the deploy script",
		fromHook: true,
		details: { readFiles: [], modifiedFiles: [] },
	});
	expect(entries.find((entry) => entry.id === compaction.firstKeptEntryId)).toBeDefined();
	expect(session.messages.filter((message) => message.role === "compactionSummary")).toEqual([
		expect.objectContaining({ summary: compaction.summary }),
	]);
});
