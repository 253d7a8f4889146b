/**
 * What the package-command tests share: a temp folder with an agent folder and a pi project, an
 * environment that keeps the real `npm` offline and the real `git` free of the machine's
 * configuration, a package written for pi, and a local bare git repository that a host-based
 * source (`git:example.test/acme/<name>`) clones from.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach } from "vitest";

export interface PackageFolders {
	dir: string;
	agentDir: string;
	project: string;
	/** The environment every `settle`, `npm` and `git` child of the test runs with. */
	env: Record<string, string>;
}

/** A fresh temp folder with `agent/` and `project/.pi/` (the caller removes `dir`). */
export function makePackageFolders(prefix = "settle-packages-"): PackageFolders {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	const project = join(dir, "project");
	mkdirSync(join(project, ".pi"), { recursive: true });
	return {
		dir,
		agentDir: join(dir, "agent"),
		project,
		// npm stays offline, with its global folder and cache in the test's folder.
		env: {
			npm_config_offline: "true",
			npm_config_prefix: join(dir, "npm-global"),
			npm_config_cache: join(dir, "npm-cache"),
			npm_config_audit: "false",
			npm_config_fund: "false",
			npm_config_update_notifier: "false",
			// git without the machine's or the user's configuration (signing, hooks, default branch).
			GIT_CONFIG_NOSYSTEM: "1",
			GIT_CONFIG_GLOBAL: "/dev/null",
			GIT_TERMINAL_PROMPT: "0",
		},
	};
}

/** {@link makePackageFolders} made before each test of the file and removed after it. */
export function usePackageFolders(prefix: string): PackageFolders {
	let folders: PackageFolders | undefined;
	beforeEach(() => {
		folders = makePackageFolders(prefix);
	});
	afterEach(() => {
		if (folders) rmSync(folders.dir, { recursive: true, force: true });
	});
	const current = (): PackageFolders => folders!;
	return {
		get dir() {
			return current().dir;
		},
		get agentDir() {
			return current().agentDir;
		},
		get project() {
			return current().project;
		},
		get env() {
			return current().env;
		},
	};
}

export function write(path: string, text: string) {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

export const settingsOf = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { packages?: unknown[] };

/** A package as pi's docs describe one: a `pi` manifest, an extension (a tool and a notice), a skill, a template. */
export function writePiPackage(root: string, name: string, version = "1.0.0", marker = "one") {
	write(
		join(root, "package.json"),
		JSON.stringify({
			name,
			version,
			keywords: ["pi-package"],
			pi: { extensions: ["./extensions"], skills: ["./skills"], prompts: ["./prompts"] },
		}),
	);
	write(
		join(root, "extensions", "hello.ts"),
		`export default function (pi: any) {\n\tpi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify("${name} extension ${marker} ran"));\n}\n`,
	);
	write(
		join(root, "skills", `${name}-skill`, "SKILL.md"),
		`---\ndescription: The ${name} skill.\n---\nSkill body of ${name} ${marker}.\n`,
	);
	write(
		join(root, "prompts", `${name}-review.md`),
		`---\ndescription: Review\n---\nReview $1 with ${name} ${marker}.\n`,
	);
}

export interface GitPackageRepo {
	/** The working copy the test commits in (its `origin` is the bare repository). */
	work: string;
	/** Add to a `settle` run's environment: git maps `https://example.test/acme/<name>` onto the bare repository. */
	env: Record<string, string>;
	/** Runs git in the working copy. */
	git: (...args: string[]) => string;
	/** Commits every change in the working copy and pushes the current branch. */
	commitAndPush: (message: string) => void;
}

/**
 * A pi package `name` (marker "one") committed on `main`, tagged `v1`, in a bare repository under
 * `folders.dir`; pi's sources need a host (`git:host/owner/repo`), so git maps that URL onto it.
 */
export function makeGitPackageRepo(folders: PackageFolders, name = "kit"): GitPackageRepo {
	const work = join(folders.dir, `${name}-work`);
	const bare = join(folders.dir, `${name}.git`);
	writePiPackage(work, name, "1.0.0", "one");
	const gitEnv = { ...process.env, ...folders.env };
	const git = (...args: string[]) =>
		execFileSync("git", args, { cwd: work, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
	git("init", "-q", "-b", "main");
	git("add", "-A");
	git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one");
	git("tag", "v1");
	execFileSync("git", ["clone", "-q", "--bare", work, bare], { stdio: "ignore", env: gitEnv });
	git("remote", "add", "origin", bare);
	return {
		work,
		env: {
			GIT_CONFIG_COUNT: "1",
			GIT_CONFIG_KEY_0: `url.file://${bare}.insteadOf`,
			GIT_CONFIG_VALUE_0: `https://example.test/acme/${name}`,
		},
		git,
		commitAndPush: (message) => {
			git("add", "-A");
			git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", message);
			git("push", "-q", "origin", "HEAD");
		},
	};
}
