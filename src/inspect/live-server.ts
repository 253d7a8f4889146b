/**
 * `serveInspector`: the trace viewer, live. A loopback HTTP server serves the viewer page and a
 * Server-Sent Events stream of a session's (or a runtime's) inspection events: each event gets an
 * id, the newest 10 000 are kept, and a client that reconnects with `Last-Event-ID` gets exactly
 * what it missed (or is told which ids were dropped).
 *
 * Only the holder of the URL gets anything: the server listens on 127.0.0.1 alone, every path
 * starts with a random 256-bit token (anything else: 404, no body), the Host header must name
 * 127.0.0.1 or localhost at the server's port (403 otherwise: a DNS-rebound name does not pass),
 * no CORS header is ever sent, and the page's script runs under a hash-pinned CSP and writes event
 * text with `textContent` only.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { errorMessage, SettleError } from "../errors.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";
import type { LifecycleInspectionEvent, LifecycleObserver } from "./lifecycle-inspector.js";
import { LIVE_PAGE_CSP, type LiveEventMessage, renderLivePage } from "./live-page.js";
import { createLiveEventWindow, type LiveEvent, parseLastEventId } from "./live-window.js";
import { formatLifecycleEvent } from "./trace.js";

/** Options for {@link serveInspector}. */
export interface InspectorServerOptions {
	/** Port on 127.0.0.1; default 0 (a free port the system picks). */
	port?: number;
	/** Events kept for (re)connecting pages, oldest dropped first; default 10 000 (as traces). */
	maxEvents?: number;
	/**
	 * A page whose unsent stream grows past this many bytes is dropped (told by a last `slow`
	 * message) and resumes from its last id; default 8 MiB. A positive integer: it bounds the memory
	 * one stalled page costs.
	 */
	slowReaderLimitBytes?: number;
}

/** A running live inspector. */
export interface InspectorServer {
	/** The page's address, token included: `http://127.0.0.1:<port>/<token>/`. Anyone with it can watch. */
	readonly url: string;
	/** The unsent bytes past which a slow page is dropped (the option, or 8 MiB). */
	readonly slowReaderLimitBytes: number;
	/**
	 * Ends the event streams (pages are told, and stop reconnecting), stops inspecting the target and
	 * frees the port. Safe to call twice.
	 */
	close(): Promise<void>;
}

/**
 * The default `slowReaderLimitBytes`: a slow page whose unsent stream grows past this is disconnected
 * (told by a last `slow` message); it resumes from its last id. Bounds the memory one stalled page
 * costs; the session never waits.
 */
const DEFAULT_SLOW_READER_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Serves a live view of `target`'s lifecycle: open the returned `url` in a browser and watch the
 * diagram follow each state change (retries, compactions, and for a runtime its session
 * replacements) as it happens. Disposing the target ends the stream (the page says so); `close()`
 * stops the server. A page that stops reading is dropped once more than `slowReaderLimitBytes`
 * (default 8 MiB) wait unsent for it. Rejects with `SettleError("INVALID_ARGUMENT")` for a bad port
 * or limit, and `SettleError("IO")` naming the port when it is taken.
 *
 * @example
 * ```ts
 * import { serveInspector } from "settle/inspect";
 *
 * const inspector = await serveInspector(runtime); // or a session
 * console.error(`Inspector: ${inspector.url}`);
 * await runtime.session.prompt("Fix the failing test");
 * await inspector.close();
 * ```
 */
export async function serveInspector(
	target: AgentSession | AgentSessionRuntime,
	options: InspectorServerOptions = {},
): Promise<InspectorServer> {
	const port = options.port ?? 0;
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`serveInspector: port must be an integer from 0 to 65535 (0 picks a free port), not ${String(port)}.`,
			{ details: { port } },
		);
	}
	const limit = options.slowReaderLimitBytes ?? DEFAULT_SLOW_READER_LIMIT_BYTES;
	if (!Number.isSafeInteger(limit) || limit <= 0) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`serveInspector: slowReaderLimitBytes must be a positive integer (bytes a page may fall behind; default ${DEFAULT_SLOW_READER_LIMIT_BYTES}), not ${String(limit)}.`,
			{ details: { slowReaderLimitBytes: limit } },
		);
	}
	const isRuntime = "inspectSessions" in target;
	const diagrams: AnyStateMachine[] = isRuntime ? [promptOperationMachine, runtimeMachine] : [promptOperationMachine];
	const title = isRuntime ? "Settle live inspector: runtime" : `Settle live inspector: session ${target.sessionId}`;
	const token = randomBytes(32).toString("base64url");
	const tokenBytes = Buffer.from(token);
	const window = createLiveEventWindow(options.maxEvents !== undefined ? { maxEvents: options.maxEvents } : {});
	const clients = new Set<ServerResponse>();
	let origin: number | undefined;
	let ended = false;
	let page: string | undefined;

	const frame = (live: LiveEvent): string => {
		const { id, event } = live;
		const message: LiveEventMessage = {
			machine: event.machine,
			kind: event.kind,
			line: formatLifecycleEvent(event, origin ?? event.at),
			state: event.kind === "state" ? event.to : null,
			start: event.kind === "state" && event.from === null,
		};
		return `id: ${id}\nevent: lifecycle\ndata: ${JSON.stringify(message)}\n\n`;
	};
	const send = (response: ServerResponse, text: string) => {
		response.write(text);
		const unsent = response.writableLength;
		if (unsent <= limit) return;
		// Not written to again: it reconnects with its last id and gets the rest from the window. The
		// `slow` message comes after what it has not read yet: it learns why once it catches up.
		clients.delete(response);
		response.end(`event: slow\ndata: ${JSON.stringify({ unsentBytes: unsent, limit })}\n\n`);
	};
	/** Tells a page to stop reconnecting, and why: the target (which one) was disposed, or the inspector closed. */
	const endFrame = (reason: "disposed" | "closed") =>
		`event: end\ndata: ${JSON.stringify({ reason, target: isRuntime ? "runtime" : "session" })}\n\n`;

	const observer: LifecycleObserver = (event: LifecycleInspectionEvent) => {
		origin ??= event.at;
		const id = window.push(event);
		if (clients.size === 0) return;
		const text = frame({ id, event });
		for (const response of clients) send(response, text);
	};
	const onEnd = () => {
		ended = true;
		for (const response of clients) response.end(endFrame("disposed"));
		clients.clear();
	};

	const server = createServer((request, response) => handle(request, response));
	const hosts = (actual: number) => new Set([`127.0.0.1:${actual}`, `localhost:${actual}`]);
	let allowedHosts = new Set<string>();

	const reject = (response: ServerResponse, status: 403 | 404) => {
		response.writeHead(status, { "content-length": "0", "cache-control": "no-store" });
		response.end();
	};
	const securityHeaders = {
		"cache-control": "no-store",
		"x-content-type-options": "nosniff",
		"referrer-policy": "no-referrer",
		"cross-origin-resource-policy": "same-origin",
		"x-frame-options": "DENY",
	};
	function handle(request: IncomingMessage, response: ServerResponse): void {
		if (!allowedHosts.has((request.headers.host ?? "").toLowerCase())) {
			reject(response, 403);
			return;
		}
		const path = (request.url ?? "").split("?")[0] ?? "";
		const [, first, rest, ...more] = path.split("/");
		const get = request.method === "GET" || request.method === "HEAD";
		if (!path.startsWith("/") || !tokenMatches(first ?? "") || more.length > 0 || !get) {
			reject(response, 404);
			return;
		}
		if (rest === undefined) {
			response.writeHead(308, { ...securityHeaders, location: `/${token}/`, "content-length": "0" });
			response.end();
			return;
		}
		if (rest === "") {
			page ??= renderLivePage(diagrams, title);
			response.writeHead(200, {
				...securityHeaders,
				"content-type": "text/html; charset=utf-8",
				"content-security-policy": `${LIVE_PAGE_CSP}; frame-ancestors 'none'`,
				"content-length": Buffer.byteLength(page),
			});
			response.end(request.method === "HEAD" ? undefined : page);
			return;
		}
		if (rest === "events") stream(request, response);
		else reject(response, 404);
	}
	function tokenMatches(candidate: string): boolean {
		const bytes = Buffer.from(candidate);
		return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
	}
	function stream(request: IncomingMessage, response: ServerResponse): void {
		response.writeHead(200, { ...securityHeaders, "content-type": "text/event-stream; charset=utf-8" });
		if (request.method === "HEAD") {
			response.end();
			return;
		}
		const resume = window.since(parseLastEventId(request.headers["last-event-id"]));
		let text = "retry: 1000\n\n";
		// With the last dropped id as its id: a page that reconnects right after it is not told twice.
		if (resume.dropped) text += `id: ${resume.dropped.to}\nevent: dropped\ndata: ${JSON.stringify(resume.dropped)}\n\n`;
		for (const live of resume.events) text += frame(live);
		if (ended) {
			response.end(text + endFrame("disposed"));
			return;
		}
		clients.add(response);
		response.on("close", () => clients.delete(response));
		send(response, text);
	}

	await new Promise<void>((resolve, rejectListen) => {
		const failed = (error: NodeJS.ErrnoException) => {
			const taken = error.code === "EADDRINUSE";
			rejectListen(
				new SettleError(
					"IO",
					taken
						? `Port ${port} on 127.0.0.1 is in use: choose another port for the inspector (0 picks a free one).`
						: `The inspector could not listen on 127.0.0.1:${port}: ${errorMessage(error)}`,
					{ cause: error, details: { port } },
				),
			);
		};
		server.once("error", failed);
		server.listen(port, "127.0.0.1", () => {
			server.off("error", failed);
			resolve();
		});
	});
	const actual = (server.address() as AddressInfo).port;
	allowedHosts = hosts(actual);
	const subscription = isRuntime
		? target.inspectSessions(observer, { onEnd })
		: (target as AgentSession).inspect(observer, { onEnd });

	let closing: Promise<void> | undefined;
	return {
		url: `http://127.0.0.1:${actual}/${token}/`,
		slowReaderLimitBytes: limit,
		close() {
			closing ??= new Promise<void>((resolve) => {
				subscription.unsubscribe();
				for (const response of clients) response.end(endFrame("closed"));
				clients.clear();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}
