// Child for bench/cold-start/breakdown.ts: imports the given modules in order (name=url pairs) and
// prints, per step, wall time, CPU time and RSS added. One JSON line.
const steps = [];
let lastTime = performance.now();
let lastCpu = process.cpuUsage();
let lastRss = process.memoryUsage().rss;
const start = { atMs: lastTime, rssMiB: lastRss / 1048576 };
for (const pair of process.argv.slice(2)) {
	const at = pair.indexOf("=");
	await import(pair.slice(at + 1));
	const time = performance.now();
	const cpu = process.cpuUsage();
	const rss = process.memoryUsage().rss;
	steps.push({
		step: pair.slice(0, at),
		ms: time - lastTime,
		cpuMs: (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000,
		rssMiB: (rss - lastRss) / 1048576,
	});
	[lastTime, lastCpu, lastRss] = [time, cpu, rss];
}
process.stdout.write(`${JSON.stringify({ start, steps, end: { atMs: lastTime, rssMiB: lastRss / 1048576 } })}\n`);
