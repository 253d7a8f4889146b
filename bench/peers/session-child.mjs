// Benchmark child for bench/session-store.ts. Drives a SessionManager module given by URL: Settle's
// compiled store or pi 0.73.1's session-manager.js (same API: create, open, append*, buildSessionContext).
// Plain ESM run with `node`, so no TypeScript loader is in the measurement. Prints one JSON line.
//
//   generate  <module> <dir> <messages>          write a session in the shape of pi's open-jsonl case
//   cold      <module> <file>                     one open + buildSessionContext in this fresh process
//   warm      <module> <file> <warmups> <reps>    (node --expose-gc) reps after warm-ups, each after a full GC
//   inprocess <module> <file> <dir> <reps>        pi's bench.mjs method: first build a 10k-message session in
//                                                 this process and keep it alive, then open <file> <reps> times
//   append    <module> <file> <count> <dir>       µs per append: a fresh file-backed session vs the opened <file>
const [mode, moduleUrl, ...args] = process.argv.slice(2);
const { SessionManager } = await import(moduleUrl);
const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
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

function openAndBuild(file) {
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	const manager = SessionManager.open(file);
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
	out({ ...openAndBuild(args[0]), rssBeforeMiB, peakRssMiB: peakRssMiB() });
} else if (mode === "warm") {
	const [file, warmups, reps] = args;
	for (let i = 0; i < Number(warmups); i++) openAndBuild(file);
	const runs = [];
	for (let i = 0; i < Number(reps); i++) {
		globalThis.gc?.();
		runs.push(openAndBuild(file));
	}
	out({ runs, peakRssMiB: peakRssMiB() });
} else if (mode === "inprocess") {
	const [file, dir, reps] = args;
	const { manager } = generate(dir, 10_000); // kept alive, as in pi's caseOpen
	const runs = [];
	for (let i = 0; i < Number(reps); i++) runs.push(openAndBuild(file));
	out({ runs, peakRssMiB: peakRssMiB(), keptEntries: manager.getEntries().length });
} else if (mode === "append") {
	const [file, count, dir] = args;
	const sample = [...messages(8)];
	const cost = (manager) => {
		for (let i = 0; i < 50; i++) manager.appendMessage(sample[i % sample.length]);
		const t0 = performance.now();
		for (let i = 0; i < Number(count); i++) manager.appendMessage(sample[i % sample.length]);
		return ((performance.now() - t0) * 1000) / Number(count);
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
