/**
 * `settle --inspect`: real child processes on the faux model. The run is held by a bash tool call
 * that reads a FIFO (it blocks until the test writes to it), so the page and the stream are
 * fetched while the run is really in progress — no sleeps.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openChromium } from "../inspect/chromium.js";
import { fetchRaw, messages, openStream } from "../inspect/live-helpers.js";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-inspect-");

function writeScript(steps: unknown[]): string {
	const path = join(cli.dir, "script.json");
	writeFileSync(path, JSON.stringify(steps));
	return path;
}

/** `settle <args>` as a child process; resolves the inspector URL from its stderr. */
function start(args: string[]) {
	const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...cliCommand(), ...args], {
		cwd: cli.project,
		env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
	});
	let stderr = "";
	let stdout = "";
	child.stdout.on("data", (chunk) => {
		stdout += String(chunk);
	});
	const url = new Promise<string>((resolve, reject) => {
		child.stderr.on("data", (chunk) => {
			stderr += String(chunk);
			const found = /^Inspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)$/m.exec(stderr);
			if (found) resolve(found[1]!);
		});
		child.on("close", () => reject(new Error(`exited without an inspector URL; stderr: ${stderr}`)));
	});
	// A run that fails before listening rejects it; a test that expects the failure never awaits it.
	url.catch(() => {});
	const exited = trackChild(child).then((code) => ({ code, stdout, stderr }));
	return { child, url, exited };
}

/** Whether something can listen on 127.0.0.1:`port` right now (it is released again). */
async function canListen(port: number): Promise<boolean> {
	const probe = createServer();
	const listening = await new Promise<boolean>((resolve) => {
		probe.once("error", () => resolve(false));
		probe.listen(port, "127.0.0.1", () => resolve(true));
	});
	if (listening) await new Promise<void>((resolve) => probe.close(() => resolve()));
	return listening;
}

/**
 * A free port below the kernel's ephemeral range, for a child to listen on. A port from `listen(0)`,
 * released for the child, is back in that range: on a busy machine the kernel may hand it to another
 * test's server or outgoing connection before the child binds it (EADDRINUSE, exit 2). A port below
 * the range is only ever taken by a process that names it; random, so concurrent runs pick apart.
 */
async function freePortTheKernelNeverAssigns(): Promise<number> {
	const range = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
	const low = Math.min(range[0] ?? 32_768, 32_768);
	expect(low, "the ephemeral port range leaves no ports below it").toBeGreaterThan(11_024);
	for (let tries = 0; tries < 100; tries++) {
		const port = 10_024 + Math.floor(Math.random() * (low - 10_024));
		if (await canListen(port)) return port;
	}
	throw new Error(`no free port between 10024 and ${low}`);
}

let closeBrowser: (() => Promise<void>) | undefined;
afterEach(async () => {
	await closeBrowser?.();
	closeBrowser = undefined;
});

/** The inspector page in headless Chromium; `status()` is what its status line says. */
async function openPage(url: string) {
	const chromium = await openChromium();
	closeBrowser = chromium.close;
	const page = await chromium.browser.newPage();
	await page.goto(url);
	const status = page.locator("#status");
	return { page, status, says: (text: string) => page.locator("#status", { hasText: text }).waitFor() };
}

/** A FIFO the faux model's first step (a bash call) blocks on: the run is held until the test writes to it. */
/** Event types in order, a run of one type (streamed updates) counted once. */
const typeRuns = (events: { type: string }[]) =>
	events.map((event) => event.type).filter((type, index, types) => type !== types[index - 1]);

let held = 0;
function heldRun(args: string[]) {
	const fifo = join(cli.dir, `held-${++held}`);
	expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
	const script = writeScript([{ toolCalls: [{ name: "bash", arguments: { command: `cat "${fifo}"` } }] }, "done"]);
	const run = start(["--faux-script", script, ...args]);
	run.child.stdin.end();
	return { ...run, release: () => writeFile(fifo, "released\n") };
}

const settledCount = (frames: Parameters<typeof messages>[0]) =>
	messages(frames).filter((m) => m.kind === "emitted" && m.line.includes("operation_settled")).length;

describe("settle --inspect", () => {
	it("-p: prints the URL, serves the page and the live stream while the run is held, and closes at exit", async () => {
		const fifo = join(cli.dir, "hold");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		const script = writeScript([{ toolCalls: [{ name: "bash", arguments: { command: `cat "${fifo}"` } }] }, "done"]);
		const run = start(["--faux-script", script, "-p", "go", "--inspect"]);
		run.child.stdin.end();
		const url = await run.url;

		const stream = await openStream(url);
		// The tool is running (and blocked on the FIFO): the session's machine is in running.working.
		await stream.until((frames) =>
			messages(frames).some((m) => m.machine === "promptOperation" && m.state === "running.working"),
		);
		const page = await fetchRaw(url);
		expect(page.status).toBe(200);
		expect(page.body).toContain('data-machine="promptOperation"');
		expect(page.body).toContain('data-machine="runtime"');
		expect(page.headers["content-security-policy"]).toContain("script-src 'sha256-");
		const port = Number(new URL(url).port);
		expect((await fetchRaw(`http://127.0.0.1:${port}/`)).status).toBe(404);
		expect(messages(stream.frames).find((m) => m.machine === "promptOperation")).toMatchObject({ state: "idle" });
		expect(messages(stream.frames).some((m) => m.machine === "runtime" && m.state === "active")).toBe(true);

		await writeFile(fifo, "released\n");
		// The run goes on live: the tool's end, the answer, settling; then disposal ends the stream.
		await stream.ended;
		const sent = messages(stream.frames);
		expect(sent.filter((m) => m.machine === "promptOperation" && m.state === "idle")).toHaveLength(2);
		expect(sent.filter((m) => m.machine === "runtime" && m.state !== null).at(-1)?.state).toBe("disposed");
		expect(stream.frames.at(-1)?.event).toBe("end");
		const { code, stdout, stderr } = await run.exited;
		expect(code).toBe(0);
		expect(stdout).toBe("done\n");
		expect(stderr).toBe(`Inspector: ${url}\n`);
		// The port was freed at exit.
		await expect(fetchRaw(url)).rejects.toMatchObject({ code: "ECONNREFUSED" });
	});

	it("the page says the run ended when settle disposes the runtime at exit (not that the inspector closed)", async () => {
		const run = heldRun(["-p", "go", "--inspect"]);
		const url = await run.url;
		const view = await openPage(url);
		await view.says("live");
		const stream = await openStream(url);
		await run.release();
		await view.says("ended");
		expect(await view.status.textContent()).toBe("ended: the runtime was disposed (the run is over)");
		await stream.ended;
		expect(stream.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"runtime"}' });
		expect((await run.exited).code).toBe(0);
	});

	it("--inspect: once the run ended, the longer status wrapped the header and the panes reached 12 px below the window (a page scrollbar); now they fit", async () => {
		const run = heldRun(["-p", "go", "--inspect"]);
		const view = await openPage(await run.url);
		await view.says("live");
		await run.release();
		await view.says("ended");
		expect((await run.exited).code).toBe(0);
		// Playwright's default window, 1280×720: the status line and the filter no longer fit on one line.
		const layout = (await view.page.evaluate(`({
			wrapped: document.getElementById("filter").getBoundingClientRect().top >
				document.getElementById("status").getBoundingClientRect().top,
			window: innerHeight,
			page: document.documentElement.scrollHeight,
			panesEnd: document.querySelector("main").getBoundingClientRect().bottom,
		})`)) as { wrapped: boolean; window: number; page: number; panesEnd: number };
		expect(layout.wrapped).toBe(true);
		expect(layout.page).toBe(layout.window);
		expect(layout.panesEnd).toBeLessThanOrEqual(layout.window);
	});

	it("--inspect: a file dropped on the live page got no word (a browser that opens dropped files leaves the live view for it); now the page says what it is and stays live", async () => {
		const trace = join(cli.dir, "earlier.json");
		expect(
			spawnSync(process.execPath, [...cliCommand(), "--faux", "-p", "hi", "--trace", trace], {
				cwd: cli.project,
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				input: "",
			}).status,
		).toBe(0);
		const events = JSON.parse(readFileSync(trace, "utf8")).events.length;
		const run = heldRun(["-p", "go", "--inspect"]);
		const url = await run.url;
		const view = await openPage(url);
		await view.says("live");
		// A real drop of the file from disk, as the browser's drag and drop delivers it.
		const cdp = await view.page.context().newCDPSession(view.page);
		const data = { items: [], files: [trace], dragOperationsMask: 1 };
		for (const type of ["dragEnter", "dragOver", "drop"] as const) {
			await cdp.send("Input.dispatchDragEvent", { type, x: 300, y: 300, data });
		}
		await view.page.locator("#drop-note", { hasText: "earlier.json" }).waitFor();
		expect(await view.page.locator("#drop-note").textContent()).toBe(
			`earlier.json: a Settle trace of ${events} events: run settle trace earlier.json to view it. This page shows only its own trace.`,
		);
		expect(view.page.url()).toBe(url);
		expect(await view.status.textContent()).toBe("live");
		await run.release();
		await view.says("ended");
		expect((await run.exited).code).toBe(0);
	});

	it("the page says the connection was lost when the settle process dies without ending the stream", async () => {
		const run = heldRun(["-p", "go", "--inspect"]);
		const view = await openPage(await run.url);
		await view.says("live");
		run.child.kill("SIGKILL");
		await view.says("connection lost");
		expect(await view.status.textContent()).toBe("connection lost: reconnecting…");
		expect((await run.exited).code).toBe(null);
		// SIGKILL gives settle no chance to end its bash tool (its own process group): the orphaned
		// `cat` would block on the FIFO forever. Opening the FIFO for writing waits for that reader.
		await run.release();
	});

	it("--json --inspect: stdout is the JSON event stream alone (as without --inspect); the inspector serves meanwhile", async () => {
		const run = heldRun(["--json", "go", "--inspect"]);
		const url = await run.url;
		const stream = await openStream(url);
		await stream.until((frames) =>
			messages(frames).some((m) => m.machine === "promptOperation" && m.state === "running.working"),
		);
		expect((await fetchRaw(url)).status).toBe(200);
		await run.release();
		await stream.ended;
		const { code, stdout, stderr } = await run.exited;
		expect(code).toBe(0);
		expect(stderr).toBe(`Inspector: ${url}\n`);
		const lines = stdout.trimEnd().split("\n");
		const events = lines.map((line) => JSON.parse(line) as { type: string });
		expect(stdout).not.toContain(new URL(url).port);
		expect(stdout).not.toMatch(/inspector/i);

		// The same run without --inspect writes the same sequence of events (streamed deltas may be cut
		// into another number of updates: runs of one type count once).
		const plain = heldRun(["--json", "go"]);
		await plain.release();
		const without = await plain.exited;
		expect(without.code).toBe(0);
		expect(without.stderr).toBe("");
		const plainEvents = without.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string });
		expect(typeRuns(events)).toEqual(typeRuns(plainEvents));
		expect(typeRuns(events)).toContain("tool_execution_end");
	});

	it("--rpc --inspect-port: the URL names the port; the stream follows the RPC prompts", async () => {
		const free = await freePortTheKernelNeverAssigns();
		const run = start(["--faux", "--rpc", "--inspect-port", String(free)]);
		const url = await run.url;
		expect(new URL(url).port).toBe(String(free));
		const stream = await openStream(url);
		run.child.stdin.write(`${JSON.stringify({ id: "1", type: "prompt", message: "hello" })}\n`);
		await stream.until((frames) =>
			messages(frames).some((m) => m.kind === "emitted" && m.line.includes("operation_settled")),
		);
		run.child.stdin.end();
		await stream.ended;
		expect((await run.exited).code).toBe(0);
	});

	it("-i: the stream follows the chat across /new (the replacing session is followed)", async () => {
		const chat = new Repl(["--faux", "--inspect"], { cwd: cli.project, agentDir: cli.agentDir });
		const url = await new Promise<string>((resolve) => {
			const read = () => {
				const found = /^Inspector: (\S+)$/m.exec(chat.stderr);
				if (found) resolve(found[1]!);
			};
			chat.child.stderr.on("data", read);
			read();
		});
		const stream = await openStream(url);
		await chat.idle(0);
		await chat.say("the first session", "the first session\n>");
		expect(await chat.say("/new")).toMatch(/^New session /m);
		await chat.say("the second session", "the second session\n>");
		await stream.until((frames) => settledCount(frames) === 2);
		const sent = messages(stream.frames);
		const starts = sent.flatMap((m, i) =>
			m.machine === "promptOperation" && m.state === "idle" && m.line.includes("(inspect)") ? [i] : [],
		);
		expect(starts).toHaveLength(2);
		expect(sent.slice(starts[0], starts[1]).some((m) => m.machine === "runtime" && m.state === "rebinding")).toBe(true);
		expect(await chat.end()).toBe(0);
		await stream.ended;
	});

	it("a bad port is a usage error (exit 2); a taken port is named (exit 2); --inspect needs a run", async () => {
		for (const bad of ["abc", "-1", "65536", "1.5"]) {
			const run = cli.settle(["--faux", "-p", "hi", "--inspect-port", bad]);
			expect(run.code).toBe(2);
			expect(run.stderr).toContain(`Invalid --inspect-port "${bad}": give a port number from 0 to 65535`);
		}
		const taken = createServer();
		await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
		const port = (taken.address() as { port: number }).port;
		try {
			const run = start(["--faux", "-p", "hi", "--inspect-port", String(port)]);
			run.child.stdin.end();
			const { code, stdout, stderr } = await run.exited;
			expect(code).toBe(2);
			expect(stdout).toBe("");
			expect(stderr).toBe(
				`Error: --inspect-port ${port}: Port ${port} on 127.0.0.1 is in use: choose another port for the inspector (0 picks a free one).\n`,
			);
		} finally {
			await new Promise<void>((resolve) => taken.close(() => resolve()));
		}
		const viz = cli.settle(["viz", "--inspect"]);
		expect(viz.code).toBe(2);
		expect(viz.stderr).toContain("--inspect watches a prompt run live");
	});
});
