/**
 * Reports about models and their settings, replayed against Settle through its public SDK
 * (`createAgentSession`) on real session and settings files, the faux provider answering.
 *
 * pi-dynamic-workflows#59: a session at newer pi's `max` thinking level (above `xhigh`) was
 * "silently clamped back to off at session creation" by pi 0.73.1's SDK: the level is not on its
 * ladder, and an unknown level clamps to the model's lowest. The same file resumed in Settle (which
 * reads pi's session files) ran with thinking off. What the user should see: the model's highest
 * level, as close to `max` as the model goes.
 *
 * pi#6426: after a switch from a large-context model to a smaller one, the next request overflowed:
 * the context fit the old model's window, not the new one's. What the user should see: a compaction
 * against the new model's window before its first request.
 *
 * pi#342: a session resumed (`-c`, `/resume`) whose file records no thinking level started with
 * thinking `off`, not the user's `defaultThinkingLevel`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clampThinkingLevel as piClampThinkingLevel } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { BIG_ANSWER, script, THRESHOLD_SETTINGS } from "./helpers.js";

/** `wide` names `xhigh`, `narrow` stops at `high`, `plain` cannot reason. */
const MODELS = [
	{ id: "wide", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
	{ id: "narrow", reasoning: true },
	{ id: "plain" },
];

const dirs: string[] = [];
const sessions: AgentSession[] = [];
let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
	for (const session of sessions.splice(0)) session.dispose();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project, an agent folder with `settings`, and a session file in pi's format with `entries` after the header. */
function workspace(settings: Record<string, unknown>, entries: Record<string, unknown>[]) {
	const root = mkdtempSync(join(tmpdir(), "settle-models-race-"));
	dirs.push(root);
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings));
	const file = join(root, "session.jsonl");
	const at = "2026-12-01T10:00:00.000Z";
	let parentId: string | null = null;
	const lines = [{ type: "session", version: 3, id: "0199a1b2-0000-7000-8000-000000000001", timestamp: at, cwd }];
	entries.forEach((entry, i) => {
		const id = `e${i}`;
		lines.push({ ...entry, id, parentId, timestamp: at } as never);
		parentId = id;
	});
	writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
	return { cwd, agentDir, file };
}

function conversation(modelId: string): Record<string, unknown>[] {
	return [
		{ type: "message", message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 } },
		{
			type: "message",
			message: {
				role: "assistant",
				content: [{ type: "text", text: "hello" }],
				api: "faux",
				provider: "faux",
				model: modelId,
				usage: {
					input: 10,
					output: 2,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 12,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp: 2,
			},
		},
	];
}

async function resume(ws: ReturnType<typeof workspace>) {
	const faux = createFauxProvider({ models: MODELS });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const { session } = await createAgentSession({
		cwd: ws.cwd,
		agentDir: ws.agentDir,
		modelRuntime,
		settingsManager: SettingsManager.create(ws.cwd, ws.agentDir),
		sessionManager: SessionManager.open(ws.file),
	});
	sessions.push(session);
	return { session, faux };
}

describe("pi-dynamic-workflows#59: a session at newer pi's `max` thinking level resumed with thinking off", () => {
	it("pi-dynamic-workflows#59: resumed on a model that has xhigh, the session runs at xhigh and the request asks for it (pi 0.73.1: off)", async () => {
		const ws = workspace({}, [
			{ type: "model_change", provider: "faux", modelId: "wide" },
			{ type: "thinking_level_change", thinkingLevel: "max" },
			...conversation("wide"),
		]);
		const { session, faux } = await resume(ws);
		expect(session.model?.id).toBe("wide");
		expect(session.thinkingLevel).toBe("xhigh");
		faux.setResponses([fauxAssistantMessage("thought hard")]);
		await session.prompt("again");
		expect(faux.requests.at(-1)?.options.reasoning).toBe("xhigh");
		// pi 0.73.1's clamp (the one its SDK runs on resume) turns the same level off.
		expect(piClampThinkingLevel(session.model! as never, "max" as never)).toBe("off");
	});

	it("pi-dynamic-workflows#59: on a model whose ladder stops at high, it runs at high; on one that cannot reason, off", async () => {
		const narrow = await resume(
			workspace({}, [
				{ type: "model_change", provider: "faux", modelId: "narrow" },
				{ type: "thinking_level_change", thinkingLevel: "max" },
				...conversation("narrow"),
			]),
		);
		expect(narrow.session.thinkingLevel).toBe("high");
		narrow.faux.setResponses([fauxAssistantMessage("ok")]);
		await narrow.session.prompt("again");
		expect(narrow.faux.requests.at(-1)?.options.reasoning).toBe("high");

		const plain = await resume(
			workspace({}, [
				{ type: "model_change", provider: "faux", modelId: "plain" },
				{ type: "thinking_level_change", thinkingLevel: "max" },
				...conversation("plain"),
			]),
		);
		expect(plain.session.thinkingLevel).toBe("off");
	});
});

describe("pi#342: resuming a session disables thinking", () => {
	it("pi#342: a file that records no thinking level resumes at defaultThinkingLevel from settings.json, and the request asks for it", async () => {
		const ws = workspace({ defaultThinkingLevel: "high" }, [
			{ type: "model_change", provider: "faux", modelId: "narrow" },
			...conversation("narrow"),
		]);
		const { session, faux } = await resume(ws);
		expect(session.model?.id).toBe("narrow");
		expect(session.thinkingLevel).toBe("high");
		faux.setResponses([fauxAssistantMessage("ok")]);
		await session.prompt("again");
		expect(faux.requests.at(-1)?.options.reasoning).toBe("high");
	});
});

describe("pi#6426: switching to a smaller-context model overflows the next request", () => {
	it("pi#6426: a context under the big model's threshold but over the small one's is compacted before the first request to the small model", async () => {
		h = await createHarness({
			persistence: "disk",
			faux: {
				models: [
					{ id: "big", contextWindow: 200_000 },
					{ id: "small", contextWindow: 8000 },
				],
			},
			settings: THRESHOLD_SETTINGS,
		});
		const harness = h;
		const { answerRequests, summaryRequests } = script(harness, [
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("answered on the small model"),
		]);
		// About 6000 tokens: far under big's threshold (200 000 − 4000), over small's (8000 − 4000).
		await harness.session.prompt(`read this log: ${BIG_ANSWER}`);
		expect(harness.eventsOfType("compaction_start")).toHaveLength(0);
		expect(harness.session.getContextUsage()?.tokens).toBeGreaterThan(4000);

		await harness.session.setModel(harness.faux.getModel("small")!);
		const from = harness.events.length;
		await harness.session.prompt("go on");
		// Compacted first, against the small model's window, then the run: the request fits it.
		const after = harness.events.slice(from).map((event) => event.type);
		expect(after.slice(after.indexOf("compaction_start"), after.indexOf("agent_start") + 1)).toEqual([
			"compaction_start",
			"compaction_end",
			"agent_start",
		]);
		expect(harness.eventsOfType("compaction_start")[0]).toMatchObject({ reason: "threshold" });
		expect(JSON.stringify(summaryRequests[0]!.messages)).toContain("read this log");
		expect(answerRequests).toHaveLength(2);
		// The small model's request: the summary, the kept answer and the new prompt, not the log.
		const sent = JSON.stringify(answerRequests[1]!.messages);
		expect(sent).toContain("summary 1");
		expect(sent).toContain("go on");
		expect(sent).not.toContain("read this log");
		expect(sent.length / 4).toBeLessThan(8000);
		expect(harness.faux.requests.at(-1)?.model.id).toBe("small");
		expect(harness.session.getLastAssistantText()).toBe("answered on the small model");
	});
});
