// Child process for lock and crash tests. Runs the compiled store (see compile-store.ts).
//   node session-child.mjs hold   <store module> <session file>   open, print "ready", wait to be killed
//   node session-child.mjs exit   <store module> <session file>   open, print "ready", exit normally
//   node session-child.mjs append <store module> <session file> <seed>
//       open (or start) the session, print "ready", then append entries of every kind in a loop,
//       printing "ack <id>" after each append returns, until killed
//   node session-child.mjs stall  <store module> <session file> <fifo>
//       open, print "ready", then stall: block the event loop (no lock refresh) in a read of <fifo>
//       until something is written to it and closed; then append one entry and print
//       "result appended" or "result <error code> <message>", and exit
//   node session-child.mjs take-over <store module> <session file>
//       wait until the lock is stale (its mtime older than SETTLE_TEST_LOCK_STALE_MS), take it over
//       by opening the session, print "ready", wait to be killed
import { readFileSync, statSync, writeSync } from "node:fs";

const [mode, storeModule, file, arg] = process.argv.slice(2);
const { SessionManager } = await import(storeModule);

const say = (line) => writeSync(1, `${line}\n`);

if (mode === "take-over") {
	// Not a guess: the lock is stale for every writer once its mtime is older than the stale timeout.
	const staleAfter = Math.ceil(statSync(`${file}.lock`).mtimeMs) + Number(process.env.SETTLE_TEST_LOCK_STALE_MS);
	const pause = new Int32Array(new SharedArrayBuffer(4));
	while (Date.now() <= staleAfter) Atomics.wait(pause, 0, 0, staleAfter + 1 - Date.now());
}

const manager = SessionManager.open(file, undefined, "/crash-test");
say(`ready ${process.pid}`);

if (mode === "exit") process.exit(0);
if (mode === "hold" || mode === "take-over") setInterval(() => {}, 1 << 30);

if (mode === "stall") {
	readFileSync(arg);
	try {
		manager.appendMessage({ role: "user", content: "after the stall", timestamp: Date.now() });
		say("result appended");
	} catch (error) {
		say(`result ${error.code} ${error.message}`);
	}
	process.exit(0);
}

if (mode === "append") {
	let seed = Number(arg) || 1;
	const random = () => {
		// xorshift32: deterministic per seed so a failure can be replayed
		seed ^= seed << 13;
		seed ^= seed >>> 17;
		seed ^= seed << 5;
		return (seed >>> 0) / 4294967296;
	};
	const usage = {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	for (let i = 0; ; i++) {
		const size = random() < 0.03 ? 50_000 : Math.floor(random() * 2000);
		const text = `${i}:${"x".repeat(size)}`;
		const pick = random();
		let id;
		if (pick < 0.35) id = manager.appendMessage({ role: "user", content: text, timestamp: Date.now() });
		else if (pick < 0.7)
			id = manager.appendMessage({
				role: "assistant",
				content: [{ type: "text", text }],
				api: "faux",
				provider: "faux",
				model: "faux-1",
				usage,
				stopReason: "stop",
				timestamp: Date.now(),
			});
		else if (pick < 0.78) id = manager.appendCustomMessageEntry("crash", text, false);
		else if (pick < 0.84) id = manager.appendThinkingLevelChange(random() < 0.5 ? "low" : "high");
		else if (pick < 0.9) id = manager.appendLabelChange(manager.getLeafId(), `l${i}`);
		else if (pick < 0.95) id = manager.appendCompaction(`summary ${i}`, manager.getLeafId(), 100);
		else id = manager.appendSessionInfo(`name ${i}`);
		say(`ack ${id}`);
	}
}
