/**
 * The worker thread the default image resizer runs photon in (image-resize-worker.js): a 12-megapixel
 * photo takes seconds to decode, resize and encode, and the main thread's event loop must keep
 * answering RPC commands, aborts and streams meanwhile. One thread, started on the first image, one
 * job at a time; it keeps the process alive only while it works, and stops after a short idle time
 * so its WebAssembly memory (hundreds of MB after a large photo) is given back.
 */
import type { Worker } from "node:worker_threads";
import { errorMessage } from "../errors.js";
import { loadWorkerThreads } from "../lazy-deps.js";
import { abortedError } from "./abort.js";
import type { ImageResizeLimits, ImageResizeOutcome } from "./image-resize.js";

/** The worker's file: next to this module in the sources, next to the shared chunk in dist/. */
const WORKER_URL = new URL("./image-resize-worker.js", import.meta.url);

/** Options of {@link ImageResizeThread}. */
export interface ImageResizeThreadOptions {
	/** Absolute path of the photon-node module the worker requires (resolved by the caller). */
	photonPath: string;
	/** How long the thread stays up with nothing to do. Default 1000 ms (starting one takes ~50 ms). */
	idleMs?: number;
	/** The worker's file. Default image-resize-worker.js next to this module. */
	workerUrl?: URL;
}

/** A job for the worker: an image to resize, or (no image) whether photon-node loads. */
type Request = { image: { data: string; mimeType?: string }; limits: ImageResizeLimits } | { image?: undefined };
/** The worker's answer: the outcome, or why photon-node could not be loaded there. */
type Reply = { id: number; outcome?: ImageResizeOutcome; photonFailure?: string };

interface Job {
	id: number;
	request: Request;
	resolve(outcome: ImageResizeOutcome | undefined): void;
	reject(error: unknown): void;
	/** Removes the abort listener. */
	release(): void;
	/** The worker it was posted to (once posted). */
	worker?: Worker;
}

/**
 * Runs resize jobs in a worker thread, one at a time, in order. A job whose signal fires rejects
 * with `Operation aborted` at once; when it is the one running, the thread is stopped (photon cannot
 * be interrupted otherwise) and the next job gets a new one. When the thread dies or cannot start,
 * its job's outcome is `unavailable` (the caller then sends the image as it is) and the next job
 * gets a new thread; when photon-node cannot be loaded, every job's outcome is `unavailable`.
 */
export class ImageResizeThread {
	readonly #photonPath: string;
	readonly #idleMs: number;
	readonly #workerUrl: URL;
	readonly #waiting: Job[] = [];
	#current: Job | undefined;
	#worker: Worker | undefined;
	#idleTimer: NodeJS.Timeout | undefined;
	#photonFailure: string | undefined;
	#nextId = 1;

	constructor(options: ImageResizeThreadOptions) {
		this.#photonPath = options.photonPath;
		this.#idleMs = options.idleMs ?? 1000;
		this.#workerUrl = options.workerUrl ?? WORKER_URL;
	}

	/** The running worker, if any (tests watch it exit). */
	get worker(): Worker | undefined {
		return this.#worker;
	}

	/** Whether a job is in the worker now. */
	get busy(): boolean {
		return this.#current !== undefined;
	}

	/** Resizes `image` in the thread. Rejects only when `signal` fires. */
	resize(
		image: { data: string; mimeType?: string },
		limits: ImageResizeLimits,
		signal?: AbortSignal,
	): Promise<ImageResizeOutcome> {
		return this.#enqueue({ image, limits }, signal) as Promise<ImageResizeOutcome>;
	}

	/** Why photon-node cannot be loaded in the thread, or `undefined` when it can (starts the thread). */
	async unavailable(): Promise<string | undefined> {
		const outcome = await this.#enqueue({});
		return outcome?.kind === "unavailable" ? outcome.reason : undefined;
	}

	/** Stops the thread now; jobs not finished get `unavailable`. Resolves once it has exited. */
	async close(): Promise<void> {
		const worker = this.#worker;
		this.#worker = undefined;
		clearTimeout(this.#idleTimer);
		for (const job of [...this.#waiting.splice(0), ...(this.#current ? [this.#current] : [])]) {
			job.release();
			job.resolve({ kind: "unavailable", reason: "the image resizer was closed" });
		}
		this.#current = undefined;
		if (worker) await worker.terminate();
	}

	#enqueue(request: Request, signal?: AbortSignal): Promise<ImageResizeOutcome | undefined> {
		if (signal?.aborted) return Promise.reject(abortedError());
		if (this.#photonFailure !== undefined) {
			return Promise.resolve({ kind: "unavailable", reason: this.#photonFailure });
		}
		return new Promise((resolve, reject) => {
			const onAbort = () => this.#abort(job);
			const job: Job = {
				id: this.#nextId++,
				request,
				resolve,
				reject,
				release: () => signal?.removeEventListener("abort", onAbort),
			};
			signal?.addEventListener("abort", onAbort, { once: true });
			this.#waiting.push(job);
			this.#pump();
		});
	}

	/** Posts the next waiting job when the thread is free; starts the thread when needed. */
	#pump(): void {
		if (this.#current) return;
		const job = this.#waiting.shift();
		if (!job) {
			this.#idle();
			return;
		}
		clearTimeout(this.#idleTimer);
		let worker: Worker;
		try {
			worker = this.#worker ?? this.#start();
		} catch (error) {
			// Thrown at once (a bad worker URL, no thread to be had): this job is answered, the next tries again.
			job.release();
			job.resolve({ kind: "unavailable", reason: `the image resizer thread could not start: ${errorMessage(error)}` });
			this.#pump();
			return;
		}
		worker.ref(); // a pending resize keeps the process alive, as the in-thread one did
		job.worker = worker;
		this.#current = job;
		worker.postMessage({ id: job.id, ...job.request });
	}

	/** No work: the thread must not keep the process alive, and stops after `idleMs`. */
	#idle(): void {
		const worker = this.#worker;
		if (!worker) return;
		worker.unref();
		clearTimeout(this.#idleTimer);
		this.#idleTimer = setTimeout(() => {
			if (this.#worker !== worker || this.#current) return;
			this.#worker = undefined;
			void worker.terminate();
		}, this.#idleMs);
		this.#idleTimer.unref();
	}

	#start(): Worker {
		const worker = new (loadWorkerThreads().Worker)(this.#workerUrl, {
			// The worker is plain JavaScript: no loader (tsx, vitest's) to inherit; workerData says which photon.
			execArgv: [],
			workerData: { photonPath: this.#photonPath },
		});
		let failure: string | undefined;
		worker.on("message", (reply: Reply) => this.#finished(worker, reply));
		worker.on("error", (error) => {
			failure ??= errorMessage(error).split("\n")[0];
		});
		worker.on("exit", (code) => {
			if (this.#worker === worker) this.#worker = undefined;
			const job = this.#current;
			if (job?.worker !== worker) return;
			this.#current = undefined;
			job.release();
			const reason = `the image resizer thread stopped: ${failure ?? `exit code ${code}`}`;
			job.resolve({ kind: "unavailable", reason });
			this.#pump();
		});
		this.#worker = worker;
		return worker;
	}

	#finished(worker: Worker, reply: Reply): void {
		const job = this.#current;
		if (job?.worker !== worker || job.id !== reply.id) return;
		this.#current = undefined;
		job.release();
		if (reply.photonFailure !== undefined) {
			// photon-node is missing or broken: every job gets the same answer, without a thread.
			this.#photonFailure = reply.photonFailure;
			const outcome: ImageResizeOutcome = { kind: "unavailable", reason: reply.photonFailure };
			for (const waiting of this.#waiting.splice(0)) {
				waiting.release();
				waiting.resolve(outcome);
			}
			job.resolve(outcome);
			this.#worker = undefined;
			void worker.terminate();
			return;
		}
		job.resolve(reply.outcome);
		this.#pump();
	}

	#abort(job: Job): void {
		const index = this.#waiting.indexOf(job);
		if (index >= 0) this.#waiting.splice(index, 1);
		else if (this.#current === job) {
			// photon cannot be interrupted: stop its thread; the next job starts a new one.
			this.#current = undefined;
			if (this.#worker === job.worker) this.#worker = undefined;
			void job.worker?.terminate();
		} else return;
		job.reject(abortedError());
		this.#pump();
	}
}
