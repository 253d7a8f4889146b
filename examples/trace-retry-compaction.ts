/**
 * Visual debugging of a retry and an overflow compaction in one request, on a real session.
 *
 * - a scripted model answers a first question, then fails the second with a 503 (retried after
 *   the 2 s backoff, on a simulated clock: no real waiting) and then with "prompt is too long"
 *   (the session compacts the earlier turn and re-runs the request), then answers;
 * - a follow-up is typed during the retry's backoff;
 * - `session.trace()` records the prompt-operation machine's lifecycle meanwhile;
 * - the trace is printed (states with the guard that chose each one, how each run ended, timers,
 *   the entries each step wrote to the session file, the compaction's tokens before and after),
 *   with what became of the queued follow-up (`queueHistory`), saved as JSON (`saveTrace`) and
 *   rendered as the offline trace viewer (`renderTraceHtml`): open the HTML and step through with
 *   ↑/↓ while the diagram highlights the current and visited states and the edge taken.
 *
 *   npx tsx examples/trace-retry-compaction.ts [output-dir]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { formatLifecycleEvent, loadTrace, queueHistory, renderTraceHtml, saveTrace } from "settle/inspect";
import { createHarness, fauxAssistantMessage } from "settle/testing";

const outDir = process.argv[2] ? resolve(process.argv[2]) : mkdtempSync(join(tmpdir(), "settle-trace-"));
mkdirSync(outDir, { recursive: true });

// keepRecentTokens: 1 keeps only the newest turn, so the first one can be summarized away.
const h = await createHarness({
	simulatedClock: true,
	persistence: "disk",
	settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } },
});
h.setResponses([fauxAssistantMessage("The build uses esbuild.")]);
await h.session.prompt("What does the build use?");

h.setResponses([
	fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
	fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 213462 tokens > 200000 maximum" }),
	fauxAssistantMessage("## Goal\nUnderstand the build.\n\n## Done\nThe build uses esbuild."), // the compaction summary
	fauxAssistantMessage("Run npm run build; it bundles with esbuild."),
	fauxAssistantMessage("Watch mode: npm run build -- --watch."),
]);
const unsubscribe = h.session.subscribe((event) => {
	if (event.type === "auto_retry_start") void h.session.followUp("And in watch mode?");
});
const trace = h.session.trace();
await h.settle(h.session.prompt("And how do I run it?")); // the clock jumps over the backoff
trace.stop();
unsubscribe();

const recorded = trace.toJSON();
const origin = recorded.events[0]?.at ?? 0;
for (const event of recorded.events) {
	// How each run ended, each entry written to the session file, what the compaction did.
	const told = event.kind === "event" && (event.type === "RUN_DONE" || event.type === "ENTRY_WRITTEN");
	const compacted = event.kind === "actor" && event.id === "compaction" && event.phase === "done";
	if (event.kind === "state" || event.kind === "delay" || told || compacted) {
		console.log(formatLifecycleEvent(event, origin));
	}
}
for (const message of queueHistory(recorded)) {
	const where = message.settled ? `${message.fate} in run ${message.settled.run}` : "never delivered";
	console.log(`queued ${message.queue} "${message.text}" in ${message.queued.state}: ${where}`);
}

const traceFile = join(outDir, "retry-compaction.trace.json");
const htmlFile = join(outDir, "retry-compaction.html");
await saveTrace(traceFile, recorded);
writeFileSync(
	htmlFile,
	renderTraceHtml(await loadTrace(traceFile), undefined, { title: "A retry, then a compaction" }),
);
const summary = h.eventsOfType("compaction_end")[0];
console.log(
	`\ncompaction: ${summary?.reason}, summary of ${summary?.result?.tokensBefore} tokens, re-ran: ${summary?.willRetry}`,
);
console.log(`trace: ${traceFile}\nviewer: ${htmlFile}`);
h.cleanup();
