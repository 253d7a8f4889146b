/**
 * pi#4203: `compact()` called again while a compaction is still summarizing. pi 0.73.1 started a
 * second compaction beside the first (two summary requests, two `compaction` entries); Settle
 * used to cancel the first instead (its caller got a bare "Compaction cancelled", the summary was
 * asked for twice). What the user expects: the second call (or an extension's `ctx.compact()`)
 * joins the running compaction — one summary request, one `compaction` entry, every caller
 * answered with the same result — and `abort()` still cancels it for all. Replayed through the SDK (faux model, session file on disk)
 * and a real `settle --rpc` child on a local OpenAI-compatible server that holds the summary.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";
import { fileEntries, gate, isChatSummaryRequest, script, until } from "./helpers.js";

let h: Harness | undefined;
let server: WireServer | undefined;
afterEach(async () => {
	h?.cleanup();
	h = undefined;
	await server?.close();
	server = undefined;
});

/** A disk session with two exchanges and everything but the last one to summarize; summaries wait for `hold`. */
async function sessionWithHeldSummary(hold: Promise<void>, extensionFactories: ((pi: ExtensionAPI) => void)[] = []) {
	h = await createHarness({
		persistence: "disk",
		settings: { compaction: { keepRecentTokens: 1 } },
		extensionFactories,
	});
	const summaryAsked = gate();
	const scripted = script(h, [fauxAssistantMessage("first answer"), fauxAssistantMessage("second answer")], {
		summary: (n) => {
			summaryAsked.release();
			return hold.then(() => fauxAssistantMessage(`## Goal\nsummary ${n}`));
		},
	});
	await h.session.prompt("first question");
	await h.session.prompt("second question");
	return { harness: h, summaryAsked, ...scripted };
}

const settledOutcome = (promise: Promise<unknown>) =>
	promise.then(
		(value) => ({ value }),
		(error: unknown) => ({ error }),
	);

describe("pi#4203: concurrent calls to compact() burn tokens", () => {
	it("pi#4203: a second compact() while the first is summarizing joins it: one summary request, one compaction entry, both resolve with the same result", async () => {
		const summary = gate();
		const { harness, summaryAsked, summaryRequests } = await sessionWithHeldSummary(summary.promise);
		const first = settledOutcome(harness.session.compact());
		await summaryAsked.promise;
		const asked = summaryRequests.length;
		const second = settledOutcome(harness.session.compact());
		summary.release();

		const [one, two] = await Promise.all([first, second]);
		expect(one).toEqual({ value: expect.objectContaining({ summary: expect.stringContaining("summary") }) });
		expect(two).toEqual(one);
		// The second call asked the model for nothing more.
		expect(summaryRequests).toHaveLength(asked);
		expect(fileEntries(harness.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(harness.eventsOfType("compaction_start")).toHaveLength(1);
		expect(harness.eventsOfType("compaction_end")).toEqual([expect.objectContaining({ aborted: false })]);
		expect(harness.session.isCompacting).toBe(false);
	});

	it("pi#4203: compact() with other instructions while compact(focus) summarizes is refused (BUSY, says to wait or cancel and compact again); the same focus or none joins; one summary request, asked with the first's focus", async () => {
		const summary = gate();
		const { harness, summaryAsked, summaryRequests } = await sessionWithHeldSummary(summary.promise);
		const first = settledOutcome(harness.session.compact("Keep the API decisions"));
		await summaryAsked.promise;
		const asked = summaryRequests.length;
		const same = settledOutcome(harness.session.compact("Keep the API decisions"));
		const none = settledOutcome(harness.session.compact());
		const other = await settledOutcome(harness.session.compact("Only the test failures"));
		// Refused at once, while the first still summarizes: nothing of it was started.
		expect(other).toEqual({
			error: expect.objectContaining({
				code: "BUSY",
				message: expect.stringMatching(
					/compaction with other instructions is summarizing.*Wait for it to finish.*cancel it/,
				),
			}),
		});
		expect(harness.session.isCompacting).toBe(true);
		summary.release();

		const [one, two, three] = await Promise.all([first, same, none]);
		expect(one).toEqual({ value: expect.objectContaining({ summary: expect.stringContaining("summary") }) });
		expect(two).toEqual(one);
		expect(three).toEqual(one);
		expect(summaryRequests).toHaveLength(asked);
		const asks = JSON.stringify(summaryRequests.map((request) => request.messages));
		expect(asks).toContain("Keep the API decisions");
		expect(asks).not.toContain("Only the test failures");
		expect(fileEntries(harness.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(harness.eventsOfType("compaction_start")).toHaveLength(1);
	});

	it("pi#4203: an extension's ctx.compact() with other instructions while compact() summarizes: its onError says a compaction with other instructions is running; the running one is not disturbed", async () => {
		const extensionResults: unknown[] = [];
		const extensionErrors: string[] = [];
		const summary = gate();
		const { harness, summaryAsked, summaryRequests } = await sessionWithHeldSummary(summary.promise, [
			(pi) => {
				pi.on("session_before_compact", (_event, ctx) => {
					if (extensionResults.length + extensionErrors.length === 0) {
						ctx.compact({
							customInstructions: "Only the test failures",
							onComplete: (result) => extensionResults.push(result),
							onError: (error) => extensionErrors.push(error.message),
						});
					}
				});
			},
		]);
		const first = settledOutcome(harness.session.compact());
		await summaryAsked.promise;
		const asked = summaryRequests.length;
		summary.release();

		const one = await first;
		await harness.session.waitForIdle();
		expect(one).toEqual({ value: expect.objectContaining({ summary: expect.stringContaining("summary") }) });
		expect(extensionResults).toEqual([]);
		expect(extensionErrors).toEqual([expect.stringContaining("A compaction with other instructions is summarizing")]);
		expect(summaryRequests).toHaveLength(asked);
		expect(harness.eventsOfType("compaction_start")).toHaveLength(1);
	});

	it("pi#4203: an extension's ctx.compact() while compact() summarizes joins it: its onComplete gets the same result, one compaction entry", async () => {
		const extensionResults: unknown[] = [];
		const extensionErrors: string[] = [];
		const summary = gate();
		const { harness, summaryAsked, summaryRequests } = await sessionWithHeldSummary(summary.promise, [
			(pi) => {
				pi.on("session_before_compact", (_event, ctx) => {
					// Not awaited: the compaction waits for this handler.
					if (extensionResults.length + extensionErrors.length === 0) {
						ctx.compact({
							onComplete: (result) => extensionResults.push(result),
							onError: (error) => extensionErrors.push(error.message),
						});
					}
				});
			},
		]);
		const first = settledOutcome(harness.session.compact());
		await summaryAsked.promise;
		const asked = summaryRequests.length;
		summary.release();

		const one = await first;
		await harness.session.waitForIdle();
		expect(one).toEqual({ value: expect.objectContaining({ summary: expect.stringContaining("summary") }) });
		expect(extensionErrors).toEqual([]);
		expect(extensionResults).toEqual([(one as { value: unknown }).value]);
		expect(summaryRequests).toHaveLength(asked);
		expect(fileEntries(harness.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(harness.eventsOfType("compaction_start")).toHaveLength(1);
	});

	it("pi#4203: abort() after a second compact() joined the first cancels both, and nothing is written", async () => {
		const summary = gate();
		const { harness, summaryAsked } = await sessionWithHeldSummary(summary.promise);
		const file = harness.session.sessionFile!;
		const before = readFileSync(file, "utf8");
		const first = settledOutcome(harness.session.compact());
		await summaryAsked.promise;
		const second = settledOutcome(harness.session.compact());
		await harness.session.abort();

		for (const outcome of await Promise.all([first, second])) {
			expect(outcome).toEqual({ error: expect.objectContaining({ code: "ABORTED", message: "Compaction cancelled" }) });
		}
		summary.release();
		expect(readFileSync(file, "utf8")).toBe(before);
		expect(harness.session.isCompacting).toBe(false);
	});
});

describe("pi#4203 while the compaction waits to start: a later compact() follows the same rule", () => {
	it("pi#4203: ctx.compact(focus) waits for the run; compact() with other instructions is refused at once (BUSY) and the run goes on, ctx.compact() with them gets onError, a second ctx.compact(focus) joins; one summary, asked with the first's focus", async () => {
		const answer = gate();
		const answerAsked = gate();
		const extensionResults: unknown[] = [];
		const extensionErrors: string[] = [];
		let compactLater: ((instructions: string) => void) | undefined;
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi) => {
					pi.on("agent_start", (_event, ctx) => {
						compactLater = (customInstructions) =>
							ctx.compact({
								customInstructions,
								onComplete: (result) => extensionResults.push(result),
								onError: (error) => extensionErrors.push(error.message),
							});
					});
				},
			],
		});
		const { summaryRequests } = script(h, [
			fauxAssistantMessage("first answer"),
			() => {
				answerAsked.release();
				return answer.promise.then(() => fauxAssistantMessage("second answer"));
			},
		]);
		await h.session.prompt("first question");
		const running = settledOutcome(h.session.prompt("second question"));
		await answerAsked.promise;
		// ctx.compact() while the run streams: it waits for the run to settle.
		compactLater!("Keep the API decisions");
		const other = await settledOutcome(h.session.compact("Only the test failures"));
		expect(other).toEqual({
			error: expect.objectContaining({
				code: "BUSY",
				message: expect.stringMatching(/compaction with other instructions is .*waiting to start.*cancel it/),
			}),
		});
		compactLater!("Only the test failures");
		await until(h, () => extensionErrors.length > 0, "the refused ctx.compact()'s onError");
		expect(extensionErrors).toEqual([expect.stringContaining("A compaction with other instructions is")]);
		// Neither refusal stopped the run or started a summary.
		expect(h.session.isStreaming).toBe(true);
		expect(summaryRequests).toHaveLength(0);
		// The same focus joins the waiting compaction.
		compactLater!("Keep the API decisions");
		answer.release();
		expect(await running).toEqual({ value: undefined });
		await h.session.waitForIdle();
		await until(h, () => extensionResults.length + extensionErrors.length === 3, "both joined callers answered");
		expect(
			h.eventsOfType("message_end").map((event) => event.message.role === "assistant" && event.message.stopReason),
		).not.toContain("aborted");
		expect(extensionResults).toEqual([
			expect.objectContaining({ summary: expect.stringContaining("summary") }),
			extensionResults[0],
		]);
		const asks = JSON.stringify(summaryRequests.map((request) => request.messages));
		expect(asks).toContain("Keep the API decisions");
		expect(asks).not.toContain("Only the test failures");
		expect(fileEntries(h.session.sessionFile!).filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(h.eventsOfType("compaction_start")).toHaveLength(1);
	});
});

const cli = useCliProject("settle-pi-races-compact-twice-");

describe("pi#4203 in settle --rpc: two compact commands close together", () => {
	it("pi#4203: settle --rpc: a second compact while the first summarizes is answered with the same result, one with other customInstructions fails at once saying a compaction with other instructions runs; one summary per part, one compaction entry", async () => {
		const summary = gate();
		const summaryRequests: RecordedRequest[] = [];
		const wire = await startWireServer((request, next) => {
			if (!isChatSummaryRequest(request)) return next();
			summaryRequests.push(request);
			const reply = chatReply([{ type: "text", text: `## Goal\nheld summary ${summaryRequests.length}` }]);
			return (recorded, res, req) => void summary.promise.then(() => reply(recorded, res, req));
		});
		server = wire;
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { compat: { supportsDeveloperRole: false } });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		wire.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
		);
		const client = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		await client.promptAndSettle("first question", "p1");
		await client.promptAndSettle("second question", "p2");

		const first = client.next((line) => line.type === "response" && line.id === "c1");
		client.send({ id: "c1", type: "compact" });
		// The cut falls inside the last turn: the history and the turn's prefix are summarized at once.
		await wire.waitForRequests(4);
		expect(summaryRequests).toHaveLength(2);
		const second = client.next((line) => line.type === "response" && line.id === "c2");
		client.send({ id: "c2", type: "compact" });
		expect(
			await client.request({ id: "c3", type: "compact", customInstructions: "Only the test failures" }),
		).toMatchObject({
			command: "compact",
			success: false,
			error: expect.stringContaining("A compaction with other instructions is summarizing the session"),
		});
		// get_state is answered in order after c2 reached the session.
		expect(await client.request({ id: "s1", type: "get_state" })).toMatchObject({ data: { isCompacting: true } });
		summary.release();

		const one = await first;
		const two = await second;
		expect(one).toMatchObject({
			command: "compact",
			success: true,
			data: { summary: expect.stringContaining("held summary") },
		});
		expect(two).toMatchObject({ command: "compact", success: true });
		expect((two as { data: unknown }).data).toEqual((one as { data: unknown }).data);
		expect(summaryRequests).toHaveLength(2);
		expect(wire.closedByClient).toEqual([]);
		const { data: state } = (await client.request({ id: "s2", type: "get_state" })) as {
			data: { sessionFile: string; isCompacting: boolean };
		};
		expect(state.isCompacting).toBe(false);
		const entries = readFileSync(state.sessionFile, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string });
		expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});
