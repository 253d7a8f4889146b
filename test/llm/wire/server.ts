/**
 * A local provider endpoint on 127.0.0.1 (port 0) for wire tests: every request is recorded
 * (method, path, headers, parsed JSON body) and answered by the next scripted reply — a JSON
 * error, an SSE stream that ends cleanly, resets the connection, or hangs open until the client
 * goes away. `close()` destroys every socket, so no test leaves a server or connection behind.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach } from "vitest";

/** One request as the server received it. */
export interface RecordedRequest {
	method: string;
	path: string;
	headers: IncomingMessage["headers"];
	// biome-ignore lint/suspicious/noExplicitAny: provider payloads are asserted field by field
	body: any;
}

/** One server-sent event: `event:` line (optional) and `data:` (objects are JSON-encoded). */
export interface SseEvent {
	event?: string;
	data: unknown;
}

/** Writes one reply; may keep the response open (it is then closed by the client or by `close()`). */
export type Reply = (request: RecordedRequest, res: ServerResponse, req: IncomingMessage) => void;

/** Picks the reply for a request (e.g. summarization requests get a summary, others the queue). */
export type Router = (request: RecordedRequest, next: () => Reply) => Reply;

/** How an SSE stream ends after its events. */
export type StreamEnd = "end" | "cut" | "hang";

export interface WireServer {
	/** `http://127.0.0.1:<port>` — what a model's `baseUrl` points at (plus the API's path prefix). */
	readonly url: string;
	readonly requests: RecordedRequest[];
	/** Queues replies, answered in order. */
	reply(...replies: Reply[]): void;
	/** Replies still queued. */
	pending(): number;
	/** Requests whose connection closed before the server finished the response (client aborts). */
	readonly closedByClient: RecordedRequest[];
	/** Resolves when the next request arrives (or at once if `count` requests already did). */
	waitForRequests(count: number): Promise<void>;
	/** Resolves when a client has closed `count` unfinished responses. */
	waitForClientClose(count: number): Promise<void>;
	close(): Promise<void>;
}

/** Starts a server; `route` decides which reply answers which request (default: the queue in order). */
export async function startWireServer(route?: Router): Promise<WireServer> {
	const queue: Reply[] = [];
	const requests: RecordedRequest[] = [];
	const closedByClient: RecordedRequest[] = [];
	const sockets = new Set<Socket>();
	const waiters: (() => void)[] = [];
	const notify = () => {
		for (const waiter of waiters.splice(0)) waiter();
	};
	const until = (done: () => boolean) =>
		new Promise<void>((resolve) => {
			const check = () => (done() ? resolve() : waiters.push(check));
			check();
		});
	const next = (): Reply => queue.shift() ?? json(500, { error: "wire test: no reply scripted for this request" });

	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			const text = Buffer.concat(chunks).toString("utf8");
			let body: unknown = text;
			try {
				body = text ? JSON.parse(text) : undefined;
			} catch {
				// keep the raw text
			}
			const recorded: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
			requests.push(recorded);
			res.on("close", () => {
				if (!res.writableFinished) {
					closedByClient.push(recorded);
					notify();
				}
			});
			const reply = route ? route(recorded, next) : next();
			reply(recorded, res, req);
			notify();
		});
	});
	server.on("connection", (socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		closedByClient,
		reply: (...replies) => queue.push(...replies),
		pending: () => queue.length,
		waitForRequests: (count) => until(() => requests.length >= count),
		waitForClientClose: (count) => until(() => closedByClient.length >= count),
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** A JSON response (an API error, or a non-streaming answer). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
	return (_request, res) => {
		res.writeHead(status, { "content-type": "application/json", ...headers });
		res.end(JSON.stringify(body));
	};
}

/** For a test file's top level: a {@link startWireServer} (with `route`) per test, closed after it; the object stands for the current one. */
export function useWireServer(route?: Router): WireServer {
	let server: WireServer | undefined;
	beforeEach(async () => {
		server = await startWireServer(route);
	});
	afterEach(async () => {
		await server?.close();
	});
	const current = (): WireServer => {
		if (!server) throw new Error("useWireServer's server runs only inside a test");
		return server;
	};
	return {
		get url() {
			return current().url;
		},
		get requests() {
			return current().requests;
		},
		get closedByClient() {
			return current().closedByClient;
		},
		reply: (...replies) => current().reply(...replies),
		pending: () => current().pending(),
		waitForRequests: (count) => current().waitForRequests(count),
		waitForClientClose: (count) => current().waitForClientClose(count),
		close: () => current().close(),
	};
}

/** Drops the connection without answering (what a crashed or restarting endpoint does). */
export function hangUp(): Reply {
	return (_request, _res, req) => {
		req.socket.destroy();
	};
}

/** Accepts the request and never answers: no status line, no headers, the socket left open. */
export function noHeaders(): Reply {
	return () => {};
}

/** A non-JSON response (a gateway's HTML error page). */
export function text(status: number, body: string, contentType = "text/plain"): Reply {
	return (_request, res) => {
		res.writeHead(status, { "content-type": contentType });
		res.end(body);
	};
}

/** Encodes events in the SSE wire format (`event:` + `data:` lines, blank-line separated). */
export function encodeSse(events: readonly SseEvent[]): string {
	return events
		.map(
			(e) =>
				`${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
		)
		.join("");
}

/**
 * A `200 text/event-stream` response with `events`, then: `end` (a clean end of the body), `cut`
 * (the TCP connection is closed mid-body), or `hang` (stays open until the client closes it).
 */
export function sse(events: readonly SseEvent[], end: StreamEnd = "end"): Reply {
	return (_request, res) => {
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
		// "cut": the bytes written so far are flushed first, so the client sees every event, then
		// the connection dies without the terminating chunk (what a dropped connection looks like).
		res.write(encodeSse(events), () => {
			if (end === "end") res.end();
			else if (end === "cut") res.socket?.destroy();
		});
	};
}
