/**
 * Counts live objects in this process's heap by their own property names, from a V8 heap snapshot
 * (what DevTools shows). For objects no test can reach (an internal map's entries): a count that
 * grows with the number of operations is a leak, whatever the GC timing.
 */
import v8 from "node:v8";

interface HeapSnapshotJson {
	snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
	nodes: number[];
	edges: number[];
	strings: string[];
}

/**
 * The test timeout of a test that takes heap snapshots: a hang guard only. Each snapshot serializes
 * and parses the whole worker heap (vitest and every module it loaded): the tests that take 2 to 4 of
 * them ran 9–20 s in a loaded full run on 2 cores and 12–39 s with these five files at once (three
 * of them past vitest's default 30 s, which failed "an inspector attached for the runtime's life …").
 */
export const HEAP_SNAPSHOT_TEST_TIMEOUT_MS = 120_000;

async function takeSnapshot(): Promise<HeapSnapshotJson> {
	const chunks: Buffer[] = [];
	for await (const chunk of v8.getHeapSnapshot()) chunks.push(chunk as Buffer);
	return JSON.parse(Buffer.concat(chunks).toString("utf8")) as HeapSnapshotJson;
}

/**
 * How many live objects (plain objects, arrays, class instances, closures, Maps, …) the heap holds,
 * after a full GC. Strings and numbers are not counted.
 */
export async function countLiveObjects(): Promise<number> {
	return (await liveHeapCensus()).objects;
}

/**
 * After a full GC: live objects (as {@link countLiveObjects}) and the bytes of V8's code (compiled
 * and optimized functions, bytecode, feedback: the snapshot's `code` nodes), which grow for a long
 * while in any process as V8 optimizes more functions, whatever the program keeps.
 */
export async function liveHeapCensus(): Promise<{ objects: number; codeBytes: number }> {
	const snap = await takeSnapshot();
	const { node_fields, node_types } = snap.snapshot.meta;
	const nodeFieldCount = node_fields.length;
	const typeField = node_fields.indexOf("type");
	const sizeField = node_fields.indexOf("self_size");
	const counted = new Set(["object", "closure"].map((type) => node_types[0].indexOf(type)));
	const codeType = node_types[0].indexOf("code");
	let objects = 0;
	let codeBytes = 0;
	for (let node = 0; node < snap.nodes.length; node += nodeFieldCount) {
		const type = snap.nodes[node + typeField]!;
		if (counted.has(type)) objects++;
		else if (type === codeType) codeBytes += snap.nodes[node + sizeField]!;
	}
	return { objects, codeBytes };
}

/** Distinct objects and arrays reachable from `roots` through own enumerable properties. */
export function countReachableObjects(roots: readonly unknown[]): number {
	const seen = new Set<object>();
	const pending: unknown[] = [...roots];
	while (pending.length > 0) {
		const value = pending.pop();
		if (value === null || typeof value !== "object" || seen.has(value)) continue;
		seen.add(value);
		pending.push(...Object.values(value));
	}
	return seen.size;
}

/**
 * How many live plain objects have exactly these own property names (in any order). The snapshot
 * is taken after a full GC (V8 collects before snapshotting).
 */
export async function countObjectsWithKeys(keys: readonly string[]): Promise<number> {
	const snap = await takeSnapshot();
	const { node_fields, node_types, edge_fields, edge_types } = snap.snapshot.meta;
	const nodeFieldCount = node_fields.length;
	const edgeFieldCount = edge_fields.length;
	const typeField = node_fields.indexOf("type");
	const nameField = node_fields.indexOf("name");
	const edgeCountField = node_fields.indexOf("edge_count");
	const edgeTypeField = edge_fields.indexOf("type");
	const edgeNameField = edge_fields.indexOf("name_or_index");
	const objectType = node_types[0].indexOf("object");
	const propertyEdge = edge_types[0].indexOf("property");
	const wanted = [...keys].sort().join("\0");
	let count = 0;
	let edge = 0;
	for (let node = 0; node < snap.nodes.length; node += nodeFieldCount) {
		const edges = snap.nodes[node + edgeCountField]!;
		if (snap.nodes[node + typeField] === objectType && snap.strings[snap.nodes[node + nameField]!] === "Object") {
			const names: string[] = [];
			for (let i = 0; i < edges; i++) {
				const at = edge + i * edgeFieldCount;
				if (snap.edges[at + edgeTypeField] !== propertyEdge) continue;
				const name = snap.strings[snap.edges[at + edgeNameField]!]!;
				if (name !== "__proto__") names.push(name);
			}
			if (names.sort().join("\0") === wanted) count++;
		}
		edge += edges * edgeFieldCount;
	}
	return count;
}

/** How many live objects were made by the class (or constructor function) named `name`. */
export async function countObjectsNamed(name: string): Promise<number> {
	const snap = await takeSnapshot();
	const { node_fields, node_types } = snap.snapshot.meta;
	const nodeFieldCount = node_fields.length;
	const typeField = node_fields.indexOf("type");
	const nameField = node_fields.indexOf("name");
	const objectType = node_types[0].indexOf("object");
	let count = 0;
	for (let node = 0; node < snap.nodes.length; node += nodeFieldCount) {
		if (snap.nodes[node + typeField] === objectType && snap.strings[snap.nodes[node + nameField]!] === name) count++;
	}
	return count;
}
