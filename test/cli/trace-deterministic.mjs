/**
 * Preload (`node --import`) that makes a `settle` child's output reproducible, so that two runs can
 * be compared byte for byte: a frozen wall clock (timestamps, time-ordered ids), a seeded
 * `Math.random` (the faux model's chunk sizes) and seeded `node:crypto` random ids. Timers still run
 * in real time; only what the process reads as "now" and "random" is fixed.
 */
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

const FROZEN_NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

let seed = 0x5e771e;
/** mulberry32: a small seeded PRNG. */
function next() {
	seed = (seed + 0x6d2b79f5) | 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
Math.random = next;

const RealDate = Date;
class FrozenDate extends RealDate {
	constructor(...args) {
		if (args.length === 0) super(FROZEN_NOW);
		else super(...args);
	}
	static now() {
		return FROZEN_NOW;
	}
}
globalThis.Date = FrozenDate;

function fill(buffer) {
	const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
	for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
	return buffer;
}
crypto.randomBytes = (size, callback) => {
	const bytes = fill(Buffer.alloc(size));
	if (callback) {
		queueMicrotask(() => callback(null, bytes));
		return undefined;
	}
	return bytes;
};
crypto.randomFillSync = (buffer) => fill(buffer);
crypto.randomUUID = () => {
	const b = fill(Buffer.alloc(16));
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = b.toString("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
syncBuiltinESMExports();
