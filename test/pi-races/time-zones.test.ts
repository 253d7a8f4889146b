/**
 * Time zones: what Settle tells the model and the user about "when", under odd `TZ` values. Real
 * `settle` child processes, each started with its own `TZ`, on real session files.
 *
 * pi#2814 (claude-code#4514, maka#538): the system prompt's date was the UTC date
 * (`toISOString().slice(0, 10)`); far from UTC it named yesterday or tomorrow for hours every day,
 * and the model dated changelogs wrong. Settle's `Current date:` must be the local date of the
 * process's zone. Run in UTC+14 and UTC−12 at once: at any instant one of them is on another day
 * than UTC, so a UTC date fails this test whenever it runs.
 *
 * plannotator-tui#71: a picker showed each entry's time as the transcript holds it, in UTC, with no
 * zone: in New York the newest message read 18:43 while the clock said 14:43. Settle's `-r` list
 * must show a session's time on the user's clock (the time zone the process runs in).
 *
 * dam#1999: a session list's time jumped to "now" each time a session was opened or reloaded, with
 * no new message: the session climbed to the top of the list and its time said nothing. Settle's
 * list time is the last message's: opening an older session with `-r` (its context files changed
 * since, so its system prompt is recorded again) and leaving without a word must leave its time
 * and its place, and `-c` must still continue the session last talked in.
 *
 * deja-vu#880 (bounty-challenge#43956): a session stamped a year ahead (a clock set wrong when it
 * was written, a restored snapshot) was called "today" or "now" and put before every real one.
 * Settle ranked sessions by their last message, so `-c` continued that session from the future
 * instead of the one last talked in, and `-r` listed it first. A time more than a day past the
 * clock cannot place a session: the lists put it last, and `-c` takes it only when it is alone.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { RESUME_QUESTION, Repl } from "../cli/interactive.helpers.js";
import { savedSession } from "./helpers.js";

const cli = useCliProject("settle-pi-races-time-zones-");
const UTC = { env: { TZ: "UTC" } };

/** The `YYYY-MM-DD` a calendar in `timeZone` shows at `at`. */
function dateIn(timeZone: string, at: Date): string {
	return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

describe("pi#2814: the system prompt's date is the UTC date, a day off for hours every day far from UTC", () => {
	it("pi#2814: settle in UTC+14 and in UTC−12 (TZ=Etc/GMT-14, Etc/GMT+12) tells the model each zone's own date", () => {
		for (const tz of ["Etc/GMT-14", "Etc/GMT+12"]) {
			const before = dateIn(tz, new Date());
			const { file } = savedSession(cli, "what day is it?", { env: { TZ: tz } });
			const after = dateIn(tz, new Date());
			const prompt = readFileSync(file, "utf8")
				.split("\n")
				.filter(Boolean)
				.map((line) => JSON.parse(line) as { message?: { role?: string; content?: unknown } })
				.find((entry) => entry.message?.role === "system")?.message?.content;
			const date = String(prompt).match(/Current date: (\S+)/)?.[1];
			// `after` differs only if the zone's midnight passed during the run.
			expect([before, after], `TZ=${tz}`).toContain(date);
			// The file's own times stay UTC whatever the zone, and its name has no `:` (refused on Windows).
			const stamps = [...readFileSync(file, "utf8").matchAll(/"timestamp":"([^"]+)"/g)].map((match) => match[1]!);
			expect(stamps.length).toBeGreaterThan(0);
			for (const stamp of stamps) expect(stamp, `TZ=${tz}`).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
			expect(basename(file)).toBe(`${stamps[0]!.replace(/[:.]/g, "-")}_${basename(file).split("_")[1]}`);
		}
	});
});

/** Stamps every entry and message of `file` with `at`: a session whose last message was then. */
function stampAll(file: string, at: Date): void {
	const text = readFileSync(file, "utf8")
		.replace(/"timestamp":"[^"]*"/g, `"timestamp":"${at.toISOString()}"`)
		.replace(/"timestamp":\d+/g, `"timestamp":${at.getTime()}`);
	writeFileSync(file, text);
}

describe("plannotator-tui#71: a list shows the transcript's UTC time, hours off the user's clock", () => {
	it("plannotator-tui#71: settle -r shows a session's last message at the local time of TZ (New York, Chatham's +13:45 across the date line, UTC−12)", async () => {
		const { id, file } = savedSession(cli, "stamped at 11:20 UTC", UTC);
		stampAll(file, new Date("2026-03-01T11:20:00.000Z"));
		const expected: Record<string, string> = {
			UTC: "2026-03-01 11:20",
			"America/New_York": "2026-03-01 06:20",
			"Pacific/Chatham": "2026-03-02 01:05",
			"Etc/GMT+12": "2026-02-28 23:20",
		};
		for (const [tz, shown] of Object.entries(expected)) {
			const chat = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir, env: { TZ: tz } });
			const listed = await chat.until(RESUME_QUESTION);
			expect(listed, `TZ=${tz}`).toContain(`  1. ${id}  ${shown}  2 msgs  stamped at 11:20 UTC\n`);
			expect(await chat.end()).toBe(0);
		}
	});
});

describe("dam#1999: opening a session moves its list time to now", () => {
	it("dam#1999: an older session opened with -r and left without a word keeps its time and its place; -c continues the newer one", async () => {
		writeFileSync(join(cli.project, "AGENTS.md"), "Old rules.");
		const older = savedSession(cli, "the older session", UTC);
		stampAll(older.file, new Date("2026-03-01T10:00:00.000Z"));
		const newer = savedSession(cli, "the newer session", UTC);
		stampAll(newer.file, new Date("2026-03-01T11:00:00.000Z"));
		// The context changed since: a resume has a new system prompt to record.
		writeFileSync(join(cli.project, "AGENTS.md"), "New rules.");

		const open = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir, env: { TZ: "UTC" } });
		await open.until(RESUME_QUESTION);
		expect(await open.say(older.id, "Resumed")).toContain(`Resumed ${older.id}`);
		expect(await open.end()).toBe(0);

		const list = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir, env: { TZ: "UTC" } });
		const listed = await list.until(RESUME_QUESTION);
		expect(await list.end()).toBe(0);
		expect(listed).toContain(`  1. ${newer.id}  2026-03-01 11:00  2 msgs  the newer session\n`);
		expect(listed).toContain(`  2. ${older.id}  2026-03-01 10:00  2 msgs  the older session\n`);

		const again = runSettle(["--faux", "--json", "-c", "which one?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { TZ: "UTC" },
		});
		expect(again.code).toBe(0);
		expect((JSON.parse(again.stdout.split("\n")[0]!) as { id: string }).id).toBe(newer.id);
	});
});

describe("deja-vu#880: a session stamped in the future supersedes every real one", () => {
	it("deja-vu#880: with a session stamped a year ahead, -c continues the one talked in two hours ago and -r lists the future one last", async () => {
		const now = Date.now();
		const future = savedSession(cli, "written with the clock a year ahead", UTC);
		stampAll(future.file, new Date(now + 365 * 24 * 3_600_000));
		const real = savedSession(cli, "talked in two hours ago", UTC);
		stampAll(real.file, new Date(now - 2 * 3_600_000));
		const older = savedSession(cli, "talked in three days ago", UTC);
		stampAll(older.file, new Date(now - 3 * 24 * 3_600_000));

		const chat = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await chat.until(RESUME_QUESTION);
		expect(await chat.end()).toBe(0);
		const order = [...listed.matchAll(/^ {2}\d+\. (\S+) /gm)].map((match) => match[1]);
		expect(order).toEqual([real.id, older.id, future.id]);

		const continued = runSettle(["--faux", "--json", "-c", "where were we?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(continued.code).toBe(0);
		expect((JSON.parse(continued.stdout.split("\n")[0]!) as { id: string }).id).toBe(real.id);
	});

	it("deja-vu#880: a project whose only session is stamped ahead: -c still continues it", () => {
		const future = savedSession(cli, "the only session", UTC);
		stampAll(future.file, new Date(Date.now() + 365 * 24 * 3_600_000));
		const continued = runSettle(["--faux", "--json", "-c", "still there?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(continued.code).toBe(0);
		expect((JSON.parse(continued.stdout.split("\n")[0]!) as { id: string }).id).toBe(future.id);
	});
});
