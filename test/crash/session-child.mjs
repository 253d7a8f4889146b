// Child process for lock and crash tests. Runs the compiled store (see compile-store.ts).
//   node session-child.mjs hold   <store module> <session file>   open, print "ready", wait to be killed
//   node session-child.mjs exit   <store module> <session file>   open, print "ready", exit normally
//   node session-child.mjs append <store module> <session file> <seed>
//       open (or start) the session, print "ready", then append entries of every kind in a loop,
//       printing "ack <id>" after each append returns, until killed
import { writeSync } from "node:fs";

const [mode, storeModule, file, seedText] = process.argv.slice(2);
const { SessionManager } = await import(storeModule);

const say = (line) => writeSync(1, `${line}\n`);

const manager = SessionManager.open(file, undefined, "/crash-test");
say(`ready ${process.pid}`);

if (mode === "exit") process.exit(0);
if (mode === "hold") setInterval(() => {}, 1 << 30);

if (mode === "append") {
	let seed = Number(seedText) || 1;
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
