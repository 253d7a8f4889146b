/**
 * A local Amazon Bedrock runtime endpoint for the real AWS SDK client pi-ai uses: HTTP/2 cleartext
 * on 127.0.0.1 (the client's default handler speaks HTTP/2), reached through
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`. Each request is recorded (path, SigV4 `authorization` header,
 * JSON body) and answered by the next scripted reply: a ConverseStream answer encoded as AWS event
 * stream frames (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html), or
 * an AWS JSON error (`x-amzn-errortype`). `close()` ends every session.
 */
import {
	createSecureServer,
	createServer,
	type Http2ServerRequest,
	type Http2ServerResponse,
	type Http2Session,
} from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { crc32 } from "node:zlib";

export interface BedrockRequest {
	/** The host the client addressed (`:authority`, or `host` over HTTP/1.1). */
	host: string;
	path: string;
	authorization: string;
	// biome-ignore lint/suspicious/noExplicitAny: Converse payloads are asserted field by field
	body: any;
}

export type BedrockReply = (res: Http2ServerResponse) => void;

export interface BedrockServer {
	/** `http://127.0.0.1:<port>`: the value of `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`. */
	readonly url: string;
	readonly requests: BedrockRequest[];
	reply(...replies: BedrockReply[]): void;
	close(): Promise<void>;
}

/** The region a SigV4 `authorization` header signs for (`Credential=KEY/DATE/<region>/bedrock/aws4_request`). */
export function signedRegion(authorization: string): string | undefined {
	return /Credential=[^/]+\/\d{8}\/([^/]+)\/bedrock\//.exec(authorization)?.[1];
}

/** The access key id a SigV4 `authorization` header names. */
export function signedKeyId(authorization: string): string | undefined {
	return /Credential=([^/]+)\//.exec(authorization)?.[1];
}

/**
 * With `tls` (a key and certificate), the endpoint speaks TLS, HTTP/2 or HTTP/1.1 (the SDK's
 * handler through a proxy), for a client that reaches it by an AWS host name through a tunnel.
 */
export async function startBedrockServer(tls?: { key: string; cert: string }): Promise<BedrockServer> {
	const queue: BedrockReply[] = [];
	const requests: BedrockRequest[] = [];
	const sessions = new Set<Http2Session>();
	const server = tls ? createSecureServer({ ...tls, allowHTTP1: true }) : createServer();
	// HTTP/1.1 connections hold no session: closed with the server all the same.
	const sockets = new Set<Socket>();
	server.on("connection", (socket: Socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
	});
	server.on("session", (session) => {
		sessions.add(session);
		session.on("close", () => sessions.delete(session));
	});
	server.on("request", (req: Http2ServerRequest, res: Http2ServerResponse) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			raw += chunk;
		});
		req.on("end", () => {
			requests.push({
				host: String(req.headers[":authority"] ?? req.headers.host ?? ""),
				path: req.url,
				authorization: String(req.headers.authorization ?? ""),
				body: JSON.parse(raw || "null"),
			});
			const reply = queue.shift();
			if (reply) reply(res);
			else bedrockError(500, "InternalServerException", "no reply scripted")(res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
		requests,
		reply: (...replies) => queue.push(...replies),
		close: () =>
			new Promise<void>((resolve) => {
				for (const session of sessions) session.destroy();
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** One event stream frame: string headers, a JSON payload, both CRCs. */
function frame(headers: Record<string, string>, payload: unknown): Buffer {
	const headerBytes = Buffer.concat(
		Object.entries(headers).map(([name, value]) => {
			const n = Buffer.from(name);
			const v = Buffer.from(value);
			const head = Buffer.alloc(1 + n.length + 1 + 2);
			head.writeUInt8(n.length, 0);
			n.copy(head, 1);
			head.writeUInt8(7, 1 + n.length); // 7: string
			head.writeUInt16BE(v.length, 2 + n.length);
			return Buffer.concat([head, v]);
		}),
	);
	const body = Buffer.from(JSON.stringify(payload));
	const total = 12 + headerBytes.length + body.length + 4;
	const prelude = Buffer.alloc(8);
	prelude.writeUInt32BE(total, 0);
	prelude.writeUInt32BE(headerBytes.length, 4);
	const preludeCrc = Buffer.alloc(4);
	preludeCrc.writeUInt32BE(crc32(prelude), 0);
	const message = Buffer.concat([prelude, preludeCrc, headerBytes, body]);
	const messageCrc = Buffer.alloc(4);
	messageCrc.writeUInt32BE(crc32(message), 0);
	return Buffer.concat([message, messageCrc]);
}

function event(type: string, payload: unknown): Buffer {
	return frame({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, payload);
}

/** A ConverseStream answer: `text` as one text block, `end_turn`, usage. */
export function bedrockAnswer(text: string): BedrockReply {
	return (res) => {
		res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-wire-1" });
		res.end(
			Buffer.concat([
				event("messageStart", { role: "assistant" }),
				event("contentBlockDelta", { contentBlockIndex: 0, delta: { text } }),
				event("contentBlockStop", { contentBlockIndex: 0 }),
				event("messageStop", { stopReason: "end_turn" }),
				event("metadata", { usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 }, metrics: { latencyMs: 5 } }),
			]),
		);
	};
}

/** An AWS JSON error as Bedrock sends one: the type in `x-amzn-errortype`, the text in `message`. */
export function bedrockError(status: number, type: string, message: string): BedrockReply {
	return (res) => {
		res.writeHead(status, {
			"content-type": "application/json",
			"x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.coral.service/`,
			"x-amzn-requestid": "req-wire-1",
		});
		res.end(JSON.stringify({ message }));
	};
}

/**
 * A ConverseStream that starts (200), streams `text`, then fails with an exception frame, as Bedrock
 * sends a mid-stream fault: `:message-type: exception`, the type camel-cased (`internalServerException`).
 */
export function bedrockStreamException(type: string, message: string, text = ""): BedrockReply {
	return (res) => {
		res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-wire-1" });
		res.end(
			Buffer.concat([
				event("messageStart", { role: "assistant" }),
				...(text ? [event("contentBlockDelta", { contentBlockIndex: 0, delta: { text } })] : []),
				frame(
					{ ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" },
					{ message },
				),
			]),
		);
	};
}
