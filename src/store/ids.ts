/** Session ids (UUIDv7) and entry ids (8 hex characters). */

import { SettleError } from "../errors.js";
import { loadCrypto } from "../lazy-deps.js";

const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** pi's exact text for a rejected session id. */
export const INVALID_SESSION_ID_MESSAGE =
	"Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

/**
 * A fresh UUIDv7: 48 bits of Unix milliseconds, then random bits, so ids sort by creation time.
 *
 * @example
 * ```ts
 * createSessionId(); // a new UUIDv7 each call, e.g. "0190f5c2-7a1b-7c3d-9e4f-5a6b7c8d9e0f"
 * ```
 */
export function createSessionId(): string {
	const bytes = loadCrypto().randomBytes(16);
	let ms = Date.now();
	for (let i = 5; i >= 0; i--) {
		bytes[i] = ms % 256;
		ms = Math.floor(ms / 256);
	}
	bytes[6] = (bytes[6]! & 0x0f) | 0x70;
	bytes[8] = (bytes[8]! & 0x3f) | 0x80;
	const hex = bytes.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Throws a `SettleError` (`INVALID_ARGUMENT`, pi's message) unless `id` is a valid caller-supplied session id.
 *
 * @example
 * ```ts
 * assertValidSessionId("review-2024.1"); // ok
 * try {
 *   assertValidSessionId("-bad");
 * } catch (error) {
 *   console.log(errorMessage(error)); // "Session id must be non-empty, contain only alphanumeric characters, …"
 * }
 * ```
 */
export function assertValidSessionId(id: string): void {
	if (typeof id !== "string" || !SESSION_ID_PATTERN.test(id)) {
		throw new SettleError("INVALID_ARGUMENT", INVALID_SESSION_ID_MESSAGE, { details: { id } });
	}
}

/** Byte → two hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/**
 * Random bytes for entry ids, refilled from the CSPRNG 512 ids at a time: one id is then a few
 * table lookups instead of a UUID built and sliced (an id is made for every appended entry).
 */
const pool = new Uint8Array(2048);
let poolOffset = pool.length;

/** A random 32-bit value: the number an entry id spells in hex. */
function randomIdValue(): number {
	if (poolOffset === pool.length) {
		loadCrypto().randomFillSync(pool);
		poolOffset = 0;
	}
	const at = poolOffset;
	poolOffset = at + 4;
	return ((pool[at]! << 24) | (pool[at + 1]! << 16) | (pool[at + 2]! << 8) | pool[at + 3]!) >>> 0;
}

/** The 8 lowercase hex digits of a 32-bit value. */
function shortId(value: number): string {
	return HEX[value >>> 24]! + HEX[(value >>> 16) & 255]! + HEX[(value >>> 8) & 255]! + HEX[value & 255]!;
}

function randomEntryId(): string {
	return shortId(randomIdValue());
}

/** A short entry id (8 random hex chars) not in `taken`; a full UUID after 100 collisions. */
export function generateEntryId(taken: { has(id: string): boolean }): string {
	for (let i = 0; i < 100; i++) {
		const id = randomEntryId();
		if (!taken.has(id)) return id;
	}
	return loadCrypto().randomUUID();
}

/** The value of an id made of exactly 8 lowercase hex digits (what {@link generateEntryId} makes), else -1. */
function shortIdValue(id: string): number {
	if (id.length !== 8) return -1;
	let value = 0;
	for (let i = 0; i < 8; i++) {
		const code = id.charCodeAt(i);
		const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

/**
 * The entry ids of a session that {@link generateEntryId} could produce (8 lowercase hex digits),
 * kept as 32-bit numbers in an open-addressing table: the collision check of every append without
 * an id → entry map. Other ids (UUIDs, legacy or hand-written ones) can never equal a generated id,
 * so they are not stored, and `has` is false for them.
 *
 * @example
 * ```ts
 * const ids = new EntryIdSet();
 * ids.add("0a1b2c3d");
 * generateEntryId(ids); // never "0a1b2c3d"
 * ```
 */
export class EntryIdSet {
	/** Open addressing with linear probing; 0 marks an empty slot, so the value 0 is a flag of its own. */
	private slots = new Uint32Array(1024);
	private shift = 22;
	private count = 0;
	private hasZero = false;

	/** The id {@link claimNew} returned last (already in the table; its `add` needs no parsing). */
	private claimed: string | undefined;

	/**
	 * A new id (as {@link generateEntryId} makes them) not in the set, added to it at once. An id
	 * claimed for an entry that then fails to be written stays taken: harmless, it is never reused.
	 */
	claimNew(): string {
		for (let i = 0; i < 100; i++) {
			const value = randomIdValue();
			let added: boolean;
			if (value !== 0) added = this.insertValue(value);
			else {
				added = !this.hasZero;
				this.hasZero = true;
			}
			if (added) {
				this.claimed = shortId(value);
				return this.claimed;
			}
		}
		return loadCrypto().randomUUID();
	}

	/**
	 * Adds an id. Returns false when it was already there or does not have the generated shape
	 * (then it is not stored: it can never collide with a generated id).
	 */
	add(id: string): boolean {
		if (id === this.claimed) {
			this.claimed = undefined;
			return false;
		}
		const value = shortIdValue(id);
		if (value < 0) return false;
		if (value === 0) {
			const added = !this.hasZero;
			this.hasZero = true;
			return added;
		}
		return this.insertValue(value);
	}

	/** Adds a non-zero value; false when it was there already. */
	private insertValue(value: number): boolean {
		if (!this.insert(value)) return false;
		if (++this.count * 2 > this.slots.length) this.grow();
		return true;
	}

	has(id: string): boolean {
		const value = shortIdValue(id);
		if (value <= 0) return value === 0 && this.hasZero;
		const slots = this.slots;
		const mask = slots.length - 1;
		for (let slot = Math.imul(value, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & mask) {
			const held = slots[slot]!;
			if (held === value) return true;
			if (held === 0) return false;
		}
	}

	/** Puts a non-zero value in its slot; false when it was there already. */
	private insert(value: number): boolean {
		const slots = this.slots;
		const mask = slots.length - 1;
		for (let slot = Math.imul(value, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & mask) {
			const held = slots[slot]!;
			if (held === value) return false;
			if (held === 0) {
				slots[slot] = value;
				return true;
			}
		}
	}

	private grow(): void {
		const old = this.slots;
		this.slots = new Uint32Array(old.length * 2);
		this.shift--;
		for (const value of old) if (value !== 0) this.insert(value);
	}
}
