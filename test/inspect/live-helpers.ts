/** A real HTTP and Server-Sent Events client for the live inspector tests (node:http, no browser). */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";

export interface HttpReply {
	status: number;
	headers: IncomingHttpHeaders;
	body: string;
}

/** One request; `host` overrides the Host header (a DNS-rebinding page sends its own name). */
export function fetchRaw(
	url: string,
	options: { method?: string; host?: string; path?: string } = {},
): Promise<HttpReply> {
	const target = new URL(url);
	return new Promise((resolve, reject) => {
		const req = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				path: options.path ?? target.pathname,
				method: options.method ?? "GET",
				headers: options.host ? { host: options.host } : {},
				agent: false,
			},
			(res) => {
				let body = "";
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => {
					body += chunk;
				});
				res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
			},
		);
		req.on("error", reject);
		req.end();
	});
}

/** One SSE message as the server framed it. */
export interface SseFrame {
	id?: string;
	event: string;
	data: string;
}

export interface SseStream {
	status: number;
	headers: IncomingHttpHeaders;
	/** Messages received so far, in order. */
	readonly frames: SseFrame[];
	/** `lifecycle` messages' ids, in order. */
	ids(): number[];
	/** Resolves once `done(frames)` holds; rejects if the stream ends first. */
	until(done: (frames: readonly SseFrame[]) => boolean): Promise<void>;
	/** Resolves when the server ended the response. */
	readonly ended: Promise<void>;
	/** Disconnects (as a closed tab or a dropped connection). */
	close(): void;
}

/** Opens `<page url>events`, optionally resuming with `Last-Event-ID`. */
export function openStream(pageUrl: string, options: { lastEventId?: string } = {}): Promise<SseStream> {
	const target = new URL("events", pageUrl);
	return new Promise((resolve, reject) => {
		const req = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				path: target.pathname,
				headers: {
					accept: "text/event-stream",
					...(options.lastEventId !== undefined ? { "last-event-id": options.lastEventId } : {}),
				},
				agent: false,
			},
			(res: IncomingMessage) => resolve(stream(res, () => req.destroy())),
		);
		req.on("error", reject);
		req.end();
	});
}

function stream(res: IncomingMessage, destroy: () => void): SseStream {
	const frames: SseFrame[] = [];
	const waiters = new Set<{
		done: (frames: readonly SseFrame[]) => boolean;
		resolve(): void;
		reject(e: Error): void;
	}>();
	let buffer = "";
	let over = false;
	const check = () => {
		for (const waiter of [...waiters]) {
			if (waiter.done(frames)) {
				waiters.delete(waiter);
				waiter.resolve();
			} else if (over) {
				waiters.delete(waiter);
				waiter.reject(new Error(`stream ended first; frames: ${JSON.stringify(frames.slice(-5))}`));
			}
		}
	};
	const ended = new Promise<void>((resolve) => {
		const finish = () => {
			over = true;
			check();
			resolve();
		};
		res.on("end", finish);
		res.on("close", finish);
		res.on("error", finish);
	});
	res.setEncoding("utf8");
	res.on("data", (chunk: string) => {
		buffer += chunk;
		let cut = buffer.indexOf("\n\n");
		while (cut !== -1) {
			const block = buffer.slice(0, cut);
			buffer = buffer.slice(cut + 2);
			const frame: SseFrame = { event: "message", data: "" };
			let fields = 0;
			for (const line of block.split("\n")) {
				const colon = line.indexOf(":");
				const name = colon === -1 ? line : line.slice(0, colon);
				const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
				if (name === "id") frame.id = value;
				else if (name === "event") frame.event = value;
				else if (name === "data") frame.data = frame.data ? `${frame.data}\n${value}` : value;
				else continue;
				fields++;
			}
			if (fields > 0) frames.push(frame);
			cut = buffer.indexOf("\n\n");
		}
		check();
	});
	return {
		status: res.statusCode ?? 0,
		headers: res.headers,
		frames,
		ids: () => frames.filter((f) => f.event === "lifecycle").map((f) => Number(f.id)),
		until: (done) =>
			new Promise<void>((resolve, reject) => {
				waiters.add({ done, resolve, reject });
				check();
			}),
		ended,
		close: destroy,
	};
}

/** The `lifecycle` frames' messages. */
export function messages(
	frames: readonly SseFrame[],
): { machine: string; kind: string; line: string; state: string | null }[] {
	return frames.filter((f) => f.event === "lifecycle").map((f) => JSON.parse(f.data));
}
