/**
 * pi's reports about the state a session carries across a restart, a resume, a switch and a fork —
 * the model and thinking level it records (pi#6822, pi#1225), the messages a compaction keeps and
 * the labels on the path (pi#8989, pi#5669) — replayed against Settle on real JSONL files and a
 * real `settings.json`. What the user should see: the session comes back on the model and thinking
 * level it last recorded, resuming never rewrites the user's defaults, and a fork carries the same
 * conversation as the branch it copies, every entry reachable from its root.
 *
 * copilot-cli#4645: resuming a persisted session through the SDK with another `model` kept the
 * persisted one, with no error: the next request went to the stale model (the reasoning effort
 * given with it was applied). What the user should see: the model given asked, and recorded.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	createAgentSessionRuntime,
	createAgentSessionRuntimeFactory,
	InMemoryModelRuntime,
	type Model,
	SessionManager,
} from "../../src/index.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { ManualProvider, readEntries } from "./disk-harness.js";
import { comparable, openSdkSession, reopenedContext } from "./helpers.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-pi-races-resume-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** The manual provider with a second, reasoning model; `modelIds` lists the model of every request. */
function twoModels() {
	const provider = new ManualProvider();
	const reasoning: Model = { ...provider.model, id: "manual-2", name: "Manual reasoning", reasoning: true };
	const modelIds: string[] = [];
	const requests: string[] = [];
	const modelRuntime = new InMemoryModelRuntime([
		{
			provider: "manual",
			models: [provider.model, reasoning],
			streamFn: (model, context, options) => {
				modelIds.push(model.id);
				requests.push(JSON.stringify(context.messages));
				return provider.streamFn(model, context, options);
			},
			requiresAuth: false,
		},
	]);
	return { provider, reasoning, modelRuntime, modelIds, requests };
}

/** A session file as pi writes it, `entries` after the header (ids and parents as given). */
function writePiFile(file: string, cwd: string, entries: Record<string, unknown>[]): void {
	const timestamp = "2026-07-19T10:00:00.000Z";
	const header = { type: "session", version: 3, id: "0199ffff-0000-7000-8000-000000000001", timestamp, cwd };
	writeFileSync(
		file,
		`${[header, ...entries.map((e) => ({ timestamp, ...e }))].map((e) => JSON.stringify(e)).join("\n")}\n`,
	);
}

describe("pi#6822: promptless sessions restore the default model over persisted model_change state", () => {
	it("pi#6822: reopening a file that records a model and thinking level but no message yet comes back on them; the first request goes to that model and nothing re-records the default", async () => {
		const dir = tempDir();
		const { provider, modelRuntime, modelIds } = twoModels();
		// pi 0.80.10's file: the session started on the default (manual-1), the user picked manual-2
		// at "high", then quit before sending anything.
		const file = join(dir, "promptless.jsonl");
		writePiFile(file, dir, [
			{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-1" },
			{ type: "thinking_level_change", id: "t1", parentId: "m1", thinkingLevel: "off" },
			{ type: "model_change", id: "m2", parentId: "t1", provider: "manual", modelId: "manual-2" },
			{ type: "thinking_level_change", id: "t2", parentId: "m2", thinkingLevel: "high" },
		]);
		const { session, modelFallbackMessage } = await openSdkSession(
			{ dir, agentDir: join(dir, "agent") },
			modelRuntime,
			SessionManager.open(file, join(dir, "sessions")),
			{ settings: { defaultProvider: "manual", defaultModel: "manual-1" } },
		);
		cleanups.unshift(() => session.dispose());
		expect(modelFallbackMessage).toBeUndefined();
		expect(session.model?.id).toBe("manual-2");
		expect(session.thinkingLevel).toBe("high");
		provider.answer("answered on the picked model");
		await session.prompt("first question");
		expect(modelIds).toEqual(["manual-2"]);
		// The file's last model_change before the first message is still the user's pick.
		const entries = readEntries(file);
		const firstMessage = entries.findIndex((entry) => entry.type === "message");
		const recorded = entries.slice(0, firstMessage).filter((entry) => entry.type === "model_change");
		expect(recorded.at(-1)).toMatchObject({ modelId: "manual-2" });
		expect(
			entries
				.slice(0, firstMessage)
				.filter((entry) => entry.type === "thinking_level_change")
				.at(-1),
		).toMatchObject({ thinkingLevel: "high" });
	});
});

describe("copilot-cli#4645: a session resumed through the SDK with another model", () => {
	it("copilot-cli#4645: createAgentSession({ model, thinkingLevel }) on a file that answered on manual-1 asks the given manual-2 at the given level, and the file records it", async () => {
		const dir = tempDir();
		const { provider, reasoning, modelRuntime, modelIds } = twoModels();
		const agentDir = join(dir, "agent");
		const sessions = join(dir, "sessions");
		const open = async (sessionManager: SessionManager, picked: { model?: Model; thinkingLevel?: "high" }) => {
			const created = await openSdkSession({ dir, agentDir }, modelRuntime, sessionManager, picked);
			cleanups.unshift(() => created.session.dispose());
			return created.session;
		};
		const first = await open(SessionManager.create(dir, sessions), { model: provider.model });
		provider.answer("first answer");
		await first.prompt("first question");
		const file = first.sessionFile!;
		first.dispose();
		first.sessionManager.close();

		const resumed = await open(SessionManager.open(file, sessions), { model: reasoning, thinkingLevel: "high" });
		expect([resumed.model?.id, resumed.thinkingLevel]).toEqual(["manual-2", "high"]);
		provider.answer("second answer");
		await resumed.prompt("second question");
		expect(modelIds).toEqual(["manual-1", "manual-2"]);
		const recorded = readEntries(file).filter((entry) => entry.type === "model_change");
		expect(recorded.at(-1)).toMatchObject({ modelId: "manual-2" });
	});
});

describe("pi#1225: resuming sessions created via /new or fork resets thinking level to off", () => {
	it("pi#1225: with defaultThinkingLevel high in settings.json, a session started with /new and one pi wrote without a thinking entry both resume at high; settings.json keeps its bytes", async () => {
		const dir = tempDir();
		const { provider, reasoning, modelRuntime } = twoModels();
		const agentDir = join(dir, "agent");
		mkdirSync(agentDir, { recursive: true });
		const settingsFile = join(agentDir, "settings.json");
		writeFileSync(settingsFile, `${JSON.stringify({ defaultThinkingLevel: "high" }, null, 2)}\n`);
		const settingsBytes = readFileSync(settingsFile, "utf8");
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime,
			model: reasoning,
			clock: new SimulatedClock(),
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: dir,
			agentDir,
			sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		});
		cleanups.unshift(() => void runtime.dispose());
		expect(runtime.session.thinkingLevel).toBe("high");
		// Steps 2–6 of the report: /new, a message answered at high, /new, /resume that session.
		await runtime.newSession();
		provider.answer("answered at high");
		await runtime.session.prompt("a message in the /new session");
		const fromNew = runtime.session.sessionFile!;
		await runtime.newSession();
		await runtime.switchSession(fromNew);
		expect(runtime.session.thinkingLevel).toBe("high");
		// "About 40% of my sessions don't have entries for thinking level": a file pi wrote without one.
		const withoutEntry = join(dir, "no-thinking-entry.jsonl");
		writePiFile(withoutEntry, dir, [
			{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-2" },
			{
				type: "message",
				id: "u1",
				parentId: "m1",
				message: { role: "user", content: [{ type: "text", text: "old question" }], timestamp: 1 },
			},
			{ type: "message", id: "a1", parentId: "u1", message: { ...provider.reply("old answer"), model: "manual-2" } },
		]);
		const fileBytes = readFileSync(withoutEntry, "utf8");
		await runtime.switchSession(withoutEntry);
		expect(runtime.session.model?.id).toBe("manual-2");
		expect(runtime.session.thinkingLevel).toBe("high");
		expect(readFileSync(withoutEntry, "utf8")).toBe(fileBytes);
		expect(readFileSync(settingsFile, "utf8")).toBe(settingsBytes);
		await runtime.dispose();
	});
});

describe("pi#8989 / pi#5669: a fork of a path with labels drops kept messages or breaks its parent chain", () => {
	it("pi#8989 / pi#5669: forking a pi file whose compaction keeps from a label, with labels inside the path, gives a file whose every parent exists and whose context keeps the kept messages", async () => {
		const dir = tempDir();
		const { provider, modelRuntime, requests } = twoModels();
		const user = (id: string, parentId: string, text: string) => ({
			type: "message",
			id,
			parentId,
			message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
		});
		const answer = (id: string, parentId: string, text: string) => ({
			type: "message",
			id,
			parentId,
			message: provider.reply(text),
		});
		// The report's path: L label, C and D kept, K compaction keeping from L, then E; with a label
		// on the path between a model_change and its next entry (pi#5669's shape) and one after K.
		const file = join(dir, "labelled.jsonl");
		writePiFile(file, dir, [
			{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-1" },
			user("u0", "m1", "old question"),
			answer("a0", "u0", "old answer"),
			{ type: "label", id: "L", parentId: "a0", targetId: "a0", label: "checkpoint" },
			user("C", "L", "kept question"),
			answer("D", "C", "kept answer"),
			{
				type: "compaction",
				id: "K",
				parentId: "D",
				summary: "## Goal\nthe old part",
				firstKeptEntryId: "L",
				tokensBefore: 1000,
			},
			{ type: "label", id: "L2", parentId: "K", targetId: "D", label: "after compaction" },
			user("E", "L2", "question after the compaction"),
			answer("F", "E", "answer after the compaction"),
		]);
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime,
			model: provider.model,
			clock: new SimulatedClock(),
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: dir,
			agentDir: join(dir, "agent"),
			sessionManager: SessionManager.open(file, join(dir, "sessions")),
		});
		cleanups.unshift(() => void runtime.dispose());
		const texts = (messages: readonly unknown[]) => messages.map((m) => JSON.stringify(m));
		const before = texts(runtime.session.messages);
		expect(before.some((m) => m.includes("kept question"))).toBe(true);
		const forked = await runtime.fork("F", { position: "at" });
		expect(forked.cancelled).toBe(false);
		const forkFile = runtime.session.sessionFile!;
		expect(forkFile).not.toBe(file);
		// The live fork and the reopened fork file carry the same conversation as the original branch.
		expect(texts(runtime.session.messages)).toEqual(before);
		const entries = readEntries(forkFile).slice(1);
		const ids = new Set(entries.map((entry) => entry.id));
		expect(entries.filter((entry) => entry.parentId !== null && !ids.has(entry.parentId as string))).toEqual([]);
		const reopened = SessionManager.open(forkFile, undefined, undefined, { readOnly: true });
		expect(texts(reopened.buildSessionContext().messages)).toEqual(
			texts(SessionManager.open(file, undefined, undefined, { readOnly: true }).buildSessionContext().messages),
		);
		// The labels still name their entries in the fork.
		expect(reopened.getLabel("a0")).toBe("checkpoint");
		expect(reopened.getLabel("D")).toBe("after compaction");
		// And the fork continues: the next request carries the kept messages.
		provider.answer("answered in the fork");
		await runtime.session.prompt("continue in the fork");
		expect(requests).toHaveLength(1);
		for (const text of ["the old part", "kept question", "kept answer", "answer after the compaction"]) {
			expect(requests[0]).toContain(text);
		}
		await runtime.dispose();
	});
});

describe("pi#3930: /tree can hang on sessions with duplicate entry ids", () => {
	/** The entries' ids, the headers, and the parents no entry has (a tree walk needs none of either kind). */
	function treeShape(file: string) {
		const entries = readEntries(file);
		const ids = entries.filter((entry) => entry.type !== "session").map((entry) => entry.id as string);
		return {
			headers: entries.filter((entry) => entry.type === "session").length,
			duplicateIds: ids.filter((id, index) => ids.indexOf(id) !== index),
			missingParents: entries
				.filter((entry) => entry.type !== "session" && entry.parentId !== null)
				.filter((entry) => !ids.includes(entry.parentId as string))
				.map((entry) => entry.id),
		};
	}
	const question = { role: "user", content: [{ type: "text", text: "old question" }], timestamp: 1 };
	const files = [
		{
			// The report's repro: a legacy file (no version, no ids) with a user message and no answer.
			what: "a legacy file without ids",
			write: (file: string, cwd: string) =>
				writeFileSync(
					file,
					`${[
						{ type: "session", id: "0199ffff-0000-7000-8000-000000000002", timestamp: "2026-04-29T10:00:00.000Z", cwd },
						{ type: "message", timestamp: "2026-04-29T10:00:01.000Z", message: question },
					]
						.map((entry) => JSON.stringify(entry))
						.join("\n")}\n`,
				),
		},
		{
			// What a first request cut off by a crash leaves: a current file whose user message has no answer.
			what: "a current file whose first request never got its answer",
			write: (file: string, cwd: string) =>
				writePiFile(file, cwd, [
					{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-1" },
					{ type: "message", id: "u1", parentId: "m1", message: question },
				]),
		},
	];
	for (const { what, write } of files) {
		it(`pi#3930: ${what}, reopened, a model picked (model_change before any answer), then the first answer: every entry written once, one header, every parent present; the reopened context equals the live one`, async () => {
			const dir = tempDir();
			const { provider, reasoning, modelRuntime } = twoModels();
			const file = join(dir, "pre-assistant.jsonl");
			write(file, dir);
			const { session } = await openSdkSession(
				{ dir, agentDir: join(dir, "agent") },
				modelRuntime,
				SessionManager.open(file, join(dir, "sessions")),
				{ settings: { defaultProvider: "manual", defaultModel: "manual-1" } },
			);
			cleanups.unshift(() => session.dispose());
			// Step 3: an entry before the first assistant message; step 4: the first assistant message.
			await session.setModel(reasoning);
			provider.answer("the first answer");
			await session.prompt("new question");
			expect(treeShape(file)).toEqual({ headers: 1, duplicateIds: [], missingParents: [] });
			const texts = readEntries(file).flatMap((entry) =>
				entry.type === "message" ? [JSON.stringify((entry.message as { content: unknown }).content)] : [],
			);
			expect(texts.filter((text) => text.includes("old question"))).toHaveLength(1);
			expect(reopenedContext(file).map(comparable)).toEqual(session.messages.map(comparable));
			expect(session.messages.map((message) => message.role).filter((role) => role !== "system")).toEqual([
				"user",
				"user",
				"assistant",
			]);
			// The tree has one path from the root to the leaf, each entry on it once.
			const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
			const branchIds = reopened.getBranch().map((entry) => entry.id);
			reopened.close();
			expect(new Set(branchIds).size).toBe(branchIds.length);
			expect(branchIds.length).toBe(readEntries(file).length - 1);
		});
	}
});
