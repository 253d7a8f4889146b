// Benchmark child for bench/session-store.ts. Drives a SessionManager module given by URL: Settle's
// compiled store or pi 0.73.1's session-manager.js (same API: create, open, append*, buildSessionContext).
// Plain ESM run with `node`, so no TypeScript loader is in the measurement. Prints one JSON line.
// <module> "bare:<URL of Settle's compiled session-file.js>" measures the bare-parse floor instead of a
// store: read and decode the file the way Settle's reader does (its chunk and piece sizes), JSON.parse
// every line, keep the objects, nothing else (no validation, index, lock or context). For inprocess,
// the kept session is built with the module given by BARE_KEEP_MODULE (Settle's: same kind of process).
//
//   generate  <module> <dir> <messages>          write a session in the shape of pi's open-jsonl case
//   cold      <module> <file> [readonly]          one open + buildSessionContext in this fresh process
//                                                 (readonly: Settle's open without the write lock)
//   warm      <module> <file> <warmups> <reps>    (node --expose-gc) reps after warm-ups, each after a full GC
//   inprocess <module> <file> <dir> <reps>        pi's bench.mjs method: first build a 10k-message session in
//                                                 this process and keep it alive, then open <file> <reps> times
//   append    <module> <file> <count> <dir>       µs per append: a fresh file-backed session vs the opened <file>
import { isAscii } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";

const [mode, moduleUrl, ...args] = process.argv.slice(2);
const reader = moduleUrl.startsWith("bare:") ? await import(moduleUrl.slice(5)) : undefined;
const { SessionManager } = reader
	? mode === "inprocess"
		? await import(process.env.BARE_KEEP_MODULE)
		: { SessionManager: undefined }
	: await import(moduleUrl);
const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

// Garbage collections, to report how much of each measured run was GC pause (main thread).
const gcPauses = [];
new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) gcPauses.push(entry);
}).observe({ entryTypes: ["gc"] });
/** GC pause time inside each run's window (observer entries arrive asynchronously: wait for them first). */
async function withGcMs(runs) {
	await new Promise((resolve) => setTimeout(resolve, 10));
	return runs.map(({ window: [from, to], ...run }) => ({
		...run,
		gcMs: gcPauses
			.filter((gc) => gc.startTime >= from && gc.startTime < to)
			.reduce((sum, gc) => sum + Math.min(gc.duration, to - gc.startTime), 0),
	}));
}
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

// The message cycle of pi's bench.mjs makeMessages(): user, assistant (text + tool call), tool result, assistant.
const filler = (length, seed) => `${seed} `.repeat(Math.ceil(length / (String(seed).length + 1))).slice(0, length);
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const assistant = (content, stopReason, timestamp) => ({
	role: "assistant",
	content,
	api: "faux",
	provider: "faux",
	model: "faux-1",
	usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: zero },
	stopReason,
	timestamp,
});
function* messages(n) {
	let produced = 0;
	for (let i = 0; produced < n; i++) {
		const ts = Date.now();
		const cycle = [
			{ role: "user", content: [{ type: "text", text: `task ${i}: ${filler(80, "please")}` }], timestamp: ts },
			assistant(
				[
					{ type: "text", text: filler(200, `think${i}`) },
					{ type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/file_${i}.ts` } },
				],
				"toolUse",
				ts,
			),
			{
				role: "toolResult",
				toolCallId: `call_${i}`,
				toolName: "read",
				content: [{ type: "text", text: filler(1000, `line${i}`) }],
				isError: false,
				timestamp: ts,
			},
			assistant([{ type: "text", text: filler(300, `answer${i}`) }], "stop", ts),
		];
		for (const message of cycle) if (produced++ < n) yield message;
	}
}

function generate(dir, n) {
	const manager = SessionManager.create("/bench/project", dir);
	manager.appendModelChange("faux", "faux-1");
	manager.appendThinkingLevelChange("off");
	const t0 = performance.now();
	for (const message of messages(n)) manager.appendMessage(message);
	return { manager, ms: performance.now() - t0 };
}

/** Decodes complete lines in pieces of about `pieceBytes` (cut at newlines) and parses each line. */
function parseLines(bytes, pieceBytes, parsed) {
	let start = 0;
	while (start < bytes.length) {
		let end = bytes.length;
		if (end - start > pieceBytes) {
			end = bytes.lastIndexOf(10, start + pieceBytes);
			if (end < start) end = bytes.indexOf(10, start + pieceBytes);
			if (end < 0) end = bytes.length;
		}
		const piece = bytes.subarray(start, end);
		const lines = piece.toString(isAscii(piece) ? "latin1" : "utf8").split("\n");
		for (let i = 0; i < lines.length; i++) if (lines[i] !== "") parsed.push(JSON.parse(lines[i]));
		start = end + 1;
	}
}

/** The floor: every line read and JSON.parsed (decoded like Settle's reader does), nothing else. */
function bareParse(file) {
	// (A build of the store from before these exports reads and decodes 1 MiB at a time.)
	const chunkBytes = reader.READ_CHUNK_BYTES ?? 1 << 20;
	const pieceBytes = reader.decodePieceBytes?.() ?? chunkBytes;
	const fd = openSync(file, "r");
	let buffer = Buffer.allocUnsafe(chunkBytes);
	let filled = 0;
	const parsed = [];
	try {
		for (;;) {
			if (filled === buffer.length) {
				const bigger = Buffer.allocUnsafe(buffer.length * 2);
				buffer.copy(bigger, 0, 0, filled);
				buffer = bigger;
			}
			const n = readSync(fd, buffer, filled, buffer.length - filled, null);
			if (n === 0) break;
			const from = filled;
			filled += n;
			const nl = buffer.lastIndexOf(10, filled - 1);
			if (nl < from) continue;
			parseLines(buffer.subarray(0, nl), pieceBytes, parsed);
			buffer.copy(buffer, 0, nl + 1, filled);
			filled -= nl + 1;
		}
	} finally {
		closeSync(fd);
	}
	return parsed;
}

function openAndBuild(file, readOnly = false) {
	if (reader) {
		const cpu0 = process.cpuUsage();
		const t0 = performance.now();
		const parsed = bareParse(file);
		const totalMs = performance.now() - t0;
		const cpu = process.cpuUsage(cpu0);
		// Counted after the clock stopped: checks that every line was parsed.
		const messages = parsed.filter((line) => line.type === "message").length;
		return {
			openMs: totalMs,
			buildMs: 0,
			totalMs,
			cpuMs: (cpu.user + cpu.system) / 1000,
			messages,
			entries: parsed.length - 1,
			window: [t0, t0 + totalMs],
		};
	}
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	const manager = readOnly ? SessionManager.open(file, undefined, undefined, { readOnly }) : SessionManager.open(file);
	const t1 = performance.now();
	const context = manager.buildSessionContext();
	const t2 = performance.now();
	const cpu = process.cpuUsage(cpu0);
	const entries = manager.getEntries().length;
	manager.close?.();
	return {
		openMs: t1 - t0,
		buildMs: t2 - t1,
		totalMs: t2 - t0,
		cpuMs: (cpu.user + cpu.system) / 1000,
		messages: context.messages.length,
		entries,
		window: [t0, t2],
	};
}

const peakRssMiB = () => mib(process.resourceUsage().maxRSS * 1024);

if (mode === "generate") {
	const [dir, n] = args;
	const { manager, ms } = generate(dir, Number(n));
	manager.close?.();
	out({ file: manager.getSessionFile(), ms, usPerAppend: (ms * 1000) / Number(n) });
} else if (mode === "cold") {
	const rssBeforeMiB = mib(process.memoryUsage().rss);
	const [run] = await withGcMs([openAndBuild(args[0], args[1] === "readonly")]);
	out({ ...run, rssBeforeMiB, peakRssMiB: peakRssMiB() });
} else if (mode === "warm") {
	const [file, warmups, reps] = args;
	for (let i = 0; i < Number(warmups); i++) openAndBuild(file);
	const runs = [];
	for (let i = 0; i < Number(reps); i++) {
		globalThis.gc?.();
		runs.push(openAndBuild(file));
	}
	out({ runs: await withGcMs(runs), peakRssMiB: peakRssMiB() });
} else if (mode === "inprocess") {
	const [file, dir, reps] = args;
	const { manager } = generate(dir, 10_000); // kept alive, as in pi's caseOpen
	const runs = [];
	for (let i = 0; i < Number(reps); i++) runs.push(openAndBuild(file));
	out({ runs: await withGcMs(runs), peakRssMiB: peakRssMiB(), keptEntries: manager.getEntries().length });
} else if (mode === "append") {
	const [file, count, dir] = args;
	const sample = [...messages(8)];
	// The median of five batches: one batch can take a major GC of the opened 100k session's heap
	// (one sample read 2.4x fresh, the next 0.9x).
	const cost = (manager) => {
		for (let i = 0; i < 50; i++) manager.appendMessage(sample[i % sample.length]);
		const batch = Math.max(1, Math.floor(Number(count) / 5));
		const perAppend = [];
		for (let b = 0; b < 5; b++) {
			const t0 = performance.now();
			for (let i = 0; i < batch; i++) manager.appendMessage(sample[i % sample.length]);
			perAppend.push(((performance.now() - t0) * 1000) / batch);
		}
		return perAppend.sort((x, y) => x - y)[2];
	};
	const fresh = SessionManager.create("/bench/project", dir);
	const freshUs = cost(fresh);
	fresh.close?.();
	const opened = SessionManager.open(file);
	opened.buildSessionContext();
	const openedUs = cost(opened);
	const t0 = performance.now();
	for (let i = 0; i < 100; i++) {
		opened.appendMessage(sample[i % sample.length]);
		opened.buildSessionContext();
	}
	const appendPlusContextUs = ((performance.now() - t0) * 1000) / 100;
	opened.close?.();
	out({ freshSessionUs: freshUs, openedFileUs: openedUs, appendPlusBuildSessionContextUs: appendPlusContextUs });
} else {
	throw new Error(`unknown mode ${mode}`);
}
