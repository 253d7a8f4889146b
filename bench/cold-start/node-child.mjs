// Floor for bench/cold-start.ts: a `node` process that imports nothing. Prints one JSON line.
process.stdout.write(
	`${JSON.stringify({ importsDoneMs: performance.now(), rssAfterImportMiB: process.memoryUsage().rss / 1048576 })}\n`,
);
