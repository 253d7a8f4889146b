/**
 * The default resizer's worker thread (src/tools/image-resize-thread.ts) with real images: while a
 * 12-megapixel photo is resized through the read tool the event loop keeps ticking and the result is
 * pi's to the byte; an abort rejects without waiting for the resize (its thread's answer never
 * comes; a resize held in photon by a gate is still held when the abort rejects) and stops the thread; a thread that dies or cannot start
 * means `unavailable` (the image is sent as it is) and the next image gets a new thread; an idle
 * thread never keeps the process alive and stops after its idle time.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import { beforeAll, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { createReadToolDefinition } from "../../src/index.js";
import { defaultImageResizeThread, type ImageResizeLimits } from "../../src/tools/image-resize.js";
import { ImageResizeThread } from "../../src/tools/image-resize-thread.js";
import { run, tempProject, text } from "./helpers.js";
import { encodeImage } from "./image-resize-helpers.js";

const photonPath = createRequire(import.meta.url).resolve("@silvia-odwyer/photon-node");
const LIMITS: ImageResizeLimits = { maxWidth: 2000, maxHeight: 2000, maxBytes: 4.5 * 1024 * 1024, jpegQuality: 80 };

/** A 4000×3000 JPEG (12 megapixels, ~6 MB): photon takes 1–3 s to resize it on this machine's cores. */
let photo: Buffer;
beforeAll(() => {
	photo = encodeImage("jpeg", 4000, 3000, 7, 40);
}, 60_000);

/** Ticks every 10 ms; `stop()` gives the longest time between two ticks (or since the last one). */
function tickRecorder() {
	let last = performance.now();
	let maxGap = 0;
	const timer = setInterval(() => {
		const now = performance.now();
		maxGap = Math.max(maxGap, now - last);
		last = now;
	}, 10);
	return {
		stop() {
			clearInterval(timer);
			return Math.max(maxGap, performance.now() - last);
		},
	};
}

/** Resolves on the first event-loop turn where `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const piRead = (cwd: string) =>
	pi.createReadToolDefinition(cwd) as unknown as {
		execute: (id: string, params: Record<string, unknown>) => Promise<AgentToolResult>;
	};

describe("read: a 12-megapixel photo is resized in the worker thread", () => {
	it("the event loop keeps ticking meanwhile, and the content is pi's to the byte", async () => {
		const cwd = await tempProject({ "photo.jpg": photo });
		const ticks = tickRecorder();
		const started = performance.now();
		const ours = await run(createReadToolDefinition(cwd), { path: "photo.jpg" });
		const took = performance.now() - started;
		const maxGap = ticks.stop();
		expect(text(ours)).toContain("[Image: original 4000x3000, displayed at 2000x1500.");
		const theirs = await piRead(cwd).execute("c", { path: "photo.jpg" });
		expect(ours.content).toEqual(theirs.content);
		// Resizing on the main thread stops the loop for the whole resize (the longest gap is about
		// the whole read); in the worker the loop keeps ticking. A share of the read's own time, not
		// milliseconds, so that a loaded machine stretching both cannot flip the result.
		expect(maxGap).toBeLessThan(took / 2);
	}, 60_000);

	it("an abort rejects without waiting for the resize (its thread never answers) and stops the thread; the next image gets a new thread", async () => {
		const cwd = await tempProject({ "photo.jpg": photo, "wide.png": encodeImage("png", 2100, 30) });
		const read = createReadToolDefinition(cwd);
		const controller = new AbortController();
		const call = run(read, { path: "photo.jpg" }, { signal: controller.signal });
		await until(() => defaultImageResizeThread()?.busy === true);
		const thread = defaultImageResizeThread()!;
		const worker = thread.worker!;
		const abortedThread = worker.threadId;
		const exited = once(worker, "exit");
		// What the aborted thread answers: the abort must not wait for its resize (nor ever see it).
		const answered: unknown[] = [];
		worker.on("message", (reply) => answered.push(reply));
		const wide = { data: encodeImage("png", 2100, 30).toString("base64"), mimeType: "image/png" };
		controller.abort();
		// In the same tick, before the stopped thread can exit: the next image must not go to it.
		const right = thread.resize(wide, LIMITS);
		await expect(call).rejects.toThrow("Operation aborted");
		expect(answered).toEqual([]);
		// The aborted resize does not hold up the next image: it runs on a new thread at once.
		expect(await right).toMatchObject({ kind: "resized", image: { width: 2000, height: 29 } });
		const next = await run(read, { path: "wide.png" });
		expect(text(next)).toContain("displayed at 2000x29");
		expect(thread.worker?.threadId).not.toBe(abortedThread);
		await exited;
	}, 60_000);
});

describe("ImageResizeThread", () => {
	const small = () => ({ data: encodeImage("png", 2100, 30).toString("base64"), mimeType: "image/png" });

	it("starts its worker on the first job, keeps the process alive only while working, stops when idle", async () => {
		const thread = new ImageResizeThread({ photonPath, idleMs: 50 });
		expect(thread.worker).toBeUndefined();
		const ports = () => process.getActiveResourcesInfo().filter((kind) => kind === "MessagePort").length;
		const before = ports();
		const job = thread.resize(small(), LIMITS);
		const worker = thread.worker!;
		const exited = once(worker, "exit");
		expect(ports()).toBe(before + 1);
		expect(await job).toMatchObject({ kind: "resized", image: { width: 2000, height: 29 } });
		expect(ports()).toBe(before);
		await exited;
		expect(thread.worker).toBeUndefined();
		// And a new one for the next job.
		expect(await thread.resize(small(), LIMITS)).toMatchObject({ kind: "resized" });
		await thread.close();
	});

	it("an abort rejects while the running resize is still held in photon, and stops that thread", async () => {
		// photon's first use in the worker blocks until the test opens the gate, as a long resize does:
		// the thread cannot answer anything meanwhile.
		const dir = mkdtempSync(join(tmpdir(), "settle-resize-gate-"));
		const started = join(dir, "started");
		const open = join(dir, "open");
		const gatedPhoton = join(dir, "gated-photon.cjs");
		writeFileSync(
			gatedPhoton,
			`const { existsSync, writeFileSync } = require("node:fs");
writeFileSync(${JSON.stringify(started)}, "");
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(${JSON.stringify(open)})) Atomics.wait(pause, 0, 0, 5);
module.exports = require(${JSON.stringify(photonPath)});
`,
		);
		try {
			const thread = new ImageResizeThread({ photonPath: gatedPhoton });
			const controller = new AbortController();
			const held = thread.resize(small(), LIMITS, controller.signal);
			const worker = thread.worker!;
			const exited = once(worker, "exit");
			await until(() => existsSync(started));
			controller.abort();
			await expect(held).rejects.toThrow("Operation aborted");
			// Rejected with the gate still shut: the resize cannot have finished; and its thread stops
			// without the gate being opened (it is not left running in the background).
			await exited;
			expect(existsSync(open)).toBe(false);
			expect(thread.worker).toBeUndefined();
			writeFileSync(open, "");
			expect(await thread.resize(small(), LIMITS)).toMatchObject({ kind: "resized", image: { width: 2000 } });
			expect(thread.worker).not.toBe(worker);
			await thread.close();
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("a job waiting behind another is taken out when aborted; the others run in order", async () => {
		const thread = new ImageResizeThread({ photonPath });
		const controller = new AbortController();
		const first = thread.resize(small(), LIMITS);
		const second = thread.resize(small(), LIMITS, controller.signal);
		const third = thread.resize(small(), { ...LIMITS, maxWidth: 100 });
		const worker = thread.worker;
		controller.abort();
		await expect(second).rejects.toThrow("Operation aborted");
		expect(await first).toMatchObject({ kind: "resized", image: { width: 2000 } });
		expect(await third).toMatchObject({ kind: "resized", image: { width: 100 } });
		expect(thread.worker).toBe(worker);
		await expect(thread.resize(small(), LIMITS, controller.signal)).rejects.toThrow("Operation aborted");
		await thread.close();
	});

	it("a worker that crashes: the job is `unavailable` with the error; the next job gets a new worker", async () => {
		const thread = new ImageResizeThread({ photonPath });
		// Data that is not a string makes the worker throw outside photon's guarded calls.
		const crashed = await thread.resize({ data: 42 as unknown as string }, LIMITS);
		expect(crashed).toEqual({
			kind: "unavailable",
			reason: expect.stringMatching(/^the image resizer thread stopped: The first argument must be of type string/),
		});
		expect(await thread.resize(small(), LIMITS)).toMatchObject({ kind: "resized" });
		await thread.close();
	});

	it("a worker file that is not there (Settle re-bundled without it): `unavailable`, saying so", async () => {
		const workerUrl = pathToFileURL(join(fileURLToPath(new URL(".", import.meta.url)), "no-such-worker.js"));
		const thread = new ImageResizeThread({ photonPath, workerUrl });
		const outcome = await thread.resize(small(), LIMITS);
		expect(outcome).toEqual({
			kind: "unavailable",
			reason: expect.stringMatching(/^the image resizer thread stopped: Cannot find module .*no-such-worker\.js/),
		});
		await thread.close();
	});

	it("a worker that cannot even be created: `unavailable`, saying why", async () => {
		const thread = new ImageResizeThread({ photonPath, workerUrl: new URL("http://example.invalid/worker.js") });
		const outcome = {
			kind: "unavailable",
			reason: expect.stringMatching(/^the image resizer thread could not start: .*scheme file/),
		};
		expect(await Promise.all([thread.resize(small(), LIMITS), thread.resize(small(), LIMITS)])).toEqual([
			outcome,
			outcome,
		]);
		expect(thread.worker).toBeUndefined();
	});

	it("photon-node that cannot be loaded in the worker: every job is `unavailable`, and no worker stays", async () => {
		const thread = new ImageResizeThread({ photonPath: join(fileURLToPath(new URL(".", import.meta.url)), "nope.js") });
		const reason = expect.stringMatching(/^@silvia-odwyer\/photon-node could not be loaded: Cannot find module/);
		const first = thread.resize(small(), LIMITS);
		const queued = thread.resize(small(), LIMITS);
		const exited = once(thread.worker!, "exit");
		expect(await first).toEqual({ kind: "unavailable", reason });
		expect(await queued).toEqual({ kind: "unavailable", reason });
		await exited;
		// The failure is remembered: asking again starts no thread.
		const again = thread.unavailable();
		expect(thread.worker).toBeUndefined();
		expect(await again).toEqual(reason);
		expect(thread.worker).toBeUndefined();
	});

	it("close() stops the worker and answers the jobs still open", async () => {
		const thread = new ImageResizeThread({ photonPath });
		const job = thread.resize({ data: photo.toString("base64"), mimeType: "image/jpeg" }, LIMITS);
		const worker = thread.worker!;
		await thread.close();
		expect(await job).toEqual({ kind: "unavailable", reason: "the image resizer was closed" });
		expect(thread.worker).toBeUndefined();
		expect(worker.threadId).toBe(-1); // a worker that has stopped has no thread id
	});
});

describe("process lifetime", () => {
	const here = fileURLToPath(new URL(".", import.meta.url));
	const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;

	it("a pending resize keeps the process alive until it answers; an idle thread does not keep it alive", async () => {
		const cwd = await tempProject({ "wide.png": encodeImage("png", 2500, 40) });
		// The child's thread idles for 10 minutes: the process must still exit as soon as its work is done.
		const child = spawnSync(
			process.execPath,
			["--import", tsx, join(here, "image-resize-thread-child.ts"), "wide.png"],
			{
				cwd,
				encoding: "utf8",
				timeout: 60_000,
				killSignal: "SIGKILL",
			},
		);
		expect(child.stderr).toBe("");
		expect({ status: child.status, stdout: child.stdout.trim() }).toEqual({
			status: 0,
			stdout: JSON.stringify({ kind: "resized", width: 2000, height: 32 }),
		});
	}, 90_000);
});
