/**
 * oh-my-pi#1253: Gemini's free tier refused a burst over its per-minute input-token quota with a 429
 * that said "Please retry in 41.8s" (the same "You exceeded your current quota" words as a spent
 * daily quota); the harness took it for the daily one and waited 1800 s. What the user should see:
 * the per-minute quota waited as asked (its quota id says per minute), then the answer; a per-day
 * quota is not retried at all, the message at once.
 *
 * A Settle session through pi-ai's Google client (@google/genai) against a local server speaking
 * the Gemini API, on a SimulatedClock (the 42 s pass without waiting), the session file on disk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { geminiReply } from "../llm/wire/gemini.js";
import { json, startWireServer, type WireServer } from "../llm/wire/server.js";
import { API_KEY, wireModel } from "../llm/wire/session.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Gemini's 429 for a spent free-tier quota: the message, the quota that ran out, and RetryInfo. */
function quotaRefusal(quotaId: string, metric: string, retryIn: string, retryDelay: string) {
	const message = `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/${metric}, limit: 250000, model: gemini-3.1-flash-lite\nPlease retry in ${retryIn}.`;
	return json(429, {
		error: {
			code: 429,
			message,
			status: "RESOURCE_EXHAUSTED",
			details: [
				{
					"@type": "type.googleapis.com/google.rpc.QuotaFailure",
					violations: [{ quotaMetric: `generativelanguage.googleapis.com/${metric}`, quotaId, quotaValue: "250000" }],
				},
				{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
			],
		},
	});
}

async function geminiSession(): Promise<{
	server: WireServer;
	session: AgentSession;
	events: AgentSessionEvent[];
	clock: SimulatedClock;
}> {
	const server = await startWireServer();
	const dir = mkdtempSync(join(tmpdir(), "settle-gemini-quota-"));
	const gemini = {
		...wireModel("anthropic-messages", server.url),
		id: "gemini-3.1-flash-lite",
		name: "Gemini Flash Lite (wire test)",
		api: "google-generative-ai" as const,
		provider: "google",
		baseUrl: `${server.url}/v1beta`,
		reasoning: false,
	};
	const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
		providers: [],
		useEnvironment: false,
		credentials: AuthStorage.inMemory({ google: API_KEY }),
	});
	runtime.registerPiAiProvider("google", [gemini], { defaultModelId: gemini.id });
	const clock = new SimulatedClock();
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		modelRuntime: runtime,
		model: runtime.getModel("google", gemini.id)!,
		settingsManager: SettingsManager.inMemory({}),
		sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		clock,
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	cleanups.push(async () => {
		session.dispose();
		await server.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return { server, session, events, clock };
}

/** Resolves at the session's next event of `type`. */
function next(session: AgentSession, type: AgentSessionEvent["type"]): Promise<AgentSessionEvent> {
	return new Promise((resolve) => {
		const off = session.subscribe((event) => {
			if (event.type !== type) return;
			off();
			resolve(event);
		});
	});
}

describe("oh-my-pi#1253: Gemini's per-minute token quota (retry in 42 s) waited as the daily one (1800 s)", () => {
	it("oh-my-pi#1253: the per-minute 429 is retried after the 41.8 s it asked for, then the answer arrives", async () => {
		const { server, session, events, clock } = await geminiSession();
		server.reply(
			quotaRefusal(
				"GenerateContentInputTokensPerModelPerMinute-FreeTier",
				"generate_content_free_tier_input_token_count",
				"41.820516331s",
				"41s",
			),
			geminiReply([{ text: "answered after the minute" }], "gemini-3.1-flash-lite"),
		);
		const retryStarts = next(session, "auto_retry_start");
		const done = session.prompt("hello");
		// The run settling first (taken for a spent daily quota) fails here at once.
		const start = await Promise.race([retryStarts, done.then(() => "settled without a retry")]);

		expect(start).toMatchObject({ attempt: 1, delayMs: 41_821 });
		expect(server.requests).toHaveLength(1);
		clock.increment(41_821);
		await done;

		expect(server.requests).toHaveLength(2);
		expect(events.filter((e) => e.type === "auto_retry_end")).toEqual([
			expect.objectContaining({ success: true, attempt: 1 }),
		]);
		const last = session.messages.findLast((m) => m.role === "assistant");
		expect(last).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "answered after the minute" }] });
	});

	it("oh-my-pi#1253 (control): a spent per-day quota (retry in 14 h) is not retried: one request, the quota message", async () => {
		const { server, session, events } = await geminiSession();
		server.reply(
			quotaRefusal(
				"GenerateRequestsPerDayPerProjectPerModel-FreeTier",
				"generate_content_free_tier_requests",
				"14h3m12.5s",
				"50592s",
			),
		);
		await session.prompt("hello");

		expect(server.requests).toHaveLength(1);
		expect(events.filter((e) => e.type.startsWith("auto_retry"))).toEqual([]);
		const last = session.messages.findLast((m) => m.role === "assistant");
		expect(last).toMatchObject({ stopReason: "error" });
		expect(last?.role === "assistant" && last.errorMessage).toContain("You exceeded your current quota");
	});
});
