/** `settle --help`. */

/** Exit codes of the `settle` command. */
export const EXIT_OK = 0;
/** The run failed: the model answered with an error, the session could not start, a startup error. */
export const EXIT_FAILURE = 1;
/** The command line is wrong: unknown option, missing value, bad combination, unknown extension flag. */
export const EXIT_USAGE = 2;
/**
 * The session file given (`--session`, `-c`) cannot be used: not a session, a newer format, a
 * folder, unreadable, or its recorded working directory is gone. Nothing was changed.
 */
export const EXIT_SESSION_FILE = 3;
/**
 * No credentials: no key for the model's provider (or no model has one), or the provider refused
 * the key (HTTP 401 / 403, "invalid API key"). A CI job without its secret can tell this apart.
 */
export const EXIT_AUTH = 4;
/**
 * The session file is being written by another process (another `settle` on the same
 * `--session`): nothing ran. Try again once that process has exited.
 */
export const EXIT_SESSION_LOCKED = 5;

/** The line after a command-line error (an unknown option, a missing value, an unknown extension flag). */
export const HELP_POINTER = "Run settle --help for the options.\n";

/** The help text (extension flags of the current project are appended when known). */
export function helpText(extensionFlags: readonly { name: string; type: string; description?: string }[] = []): string {
	const flags =
		extensionFlags.length === 0
			? ""
			: `\nExtension flags (from this project's extensions):\n${extensionFlags
					.map(
						(flag) =>
							`  --${flag.name}${flag.type === "string" ? " <value>" : ""}`.padEnd(32) + (flag.description ?? ""),
					)
					.join("\n")}\n`;
	return `settle — coding-agent sessions on explicit, inspectable state machines

Usage:
  settle [-i] [prompt…] [options]       chat in the terminal (the default when stdin and stdout are terminals)
  settle -p "<prompt>" [options]        one prompt, the final answer on stdout
  settle --json "<prompt>" [options]    every session event as a JSON line
  settle --rpc [options]                JSONL commands on stdin, responses and events on stdout
  settle demo                           run the offline demo (no API key needed)
  settle viz [dir]                      write the machine diagrams (default ./visualizations)
  settle trace <file> [-o|--output out.html]
                                        render a saved --trace file as the offline viewer (run.json → run.html)
  settle install <source> [-l]          install a pi package (npm:name[@version], git:host/owner/repo[@ref], a path)
                                        and add it to settings.json "packages" (-l: the project's)
  settle remove <source> [-l]           uninstall a pi package and take it out of settings (also: uninstall)
  settle list                           list the packages the global and project settings name
  settle update [source]                update the packages not pinned to a version, tag or commit (or just one)
  settle --export <file.jsonl> [out]    write a session file as one offline HTML page (its tree, every message)

Text piped on stdin is the prompt, or goes before the first one: cat error.log | settle -p "Why?"
@<file> arguments put a file's text (or an image) before the first prompt: settle -p @src/a.ts "Review it"
-- ends the options; what follows is the prompt as is (also one starting with "-"): settle -p -- "-v prints nothing"

Options:
  -p, --print [prompt]          Run the prompt(s) and print the final answer (default mode)
  --json                        Print every event as JSON lines (first line: the session header)
  --rpc                         Serve pi's RPC protocol on stdin/stdout
  -i, --interactive             Chat: each line is a prompt (/help lists the commands); prompts given run first
  --mode <text|json|rpc|interactive>  Same as the options above (pi's spelling)
  --model <provider/id>         Model to use (also a bare id when it is unique)
  --provider <name>             The provider whose model --model names (--provider openai --model gpt-4o)
  --models <patterns>           Models to cycle through (cycle_model, /model): comma-separated, globs and
                                :thinking allowed (--models "anthropic/*:high,gpt-4o"); the first is the
                                start-up model without --model (default: the enabledModels setting)
  --api-key <key>               API key for --model's provider, over auth.json and the environment;
                                kept in memory only (needs --model)
  --thinking <level>            off, minimal, low, medium, high, xhigh (clamped to the model)
  --cwd <dir>                   Project directory (default: the current directory); with --session,
                                continue that session in <dir> (e.g. when its own directory is gone)
  --session <file|id|name>      Resume a session file, or this project's session with that id (or id prefix) or name
  -c, --continue                Resume this project's most recent session
  -r, --resume                  Ask which of this project's sessions to continue (settle -i: a number
                                or id prefix, empty for a new session); not with -p, --json, --rpc
  --fork <file|id>              Start a new session from a copy of that session (a file, or an id or id
                                prefix, of this project's sessions first)
  --no-session                  Keep the session in memory only
  --session-dir <dir>           Where session files go (default $SETTLE_SESSION_DIR, the sessionDir
                                setting, or <agent dir>/sessions/--<cwd>--)
  --agent-dir <dir>             Global folder (default $SETTLE_AGENT_DIR or ~/.settle/agent)
  -t, --tools <a,b>             Allowlist of tools (built-in, extension, custom)
  -nt, --no-tools               No tools at all
  -nbt, --no-builtin-tools      No built-in tools unless --tools names them; extension tools stay
  --approve / --no-approve      Trust / don't trust the project (its extensions and code-running settings)
  -e, --extension <path>        Load an extension file (repeatable)
  -ne, --no-extensions          Don't discover extensions (-e paths still load)
  -nc, --no-context-files       Don't load AGENTS.md / CLAUDE.md
  -ns, --no-skills              Don't discover skills (--skill paths still load)
  --skill <path>                Load a skill file or folder besides the discovered ones (repeatable)
  -np, --no-prompt-templates    Don't discover prompt templates (--prompt-template paths still load)
  --prompt-template <path>      Load a prompt template file or folder (repeatable)
  --system-prompt <text|file>   Base system prompt instead of SYSTEM.md (a value naming a file is read);
                                tools, skills, context files and the date/cwd lines are still added
  --append-system-prompt <text|file>
                                Text appended to the system prompt instead of APPEND_SYSTEM.md
                                (a value naming a file is read; repeatable)
  --offline                     Accepted for pi's scripts; does nothing (settle makes no startup requests)
  --theme <name|path>, --no-themes
                                Accepted for pi's scripts; do nothing (settle has no themes; NO_COLOR
                                turns the chat's colours off)
  --verbose                     settle -i: print the start-up banner even with the quietStartup setting
                                (as pi; -p, --json and --rpc output is unchanged)
  --faux                        Offline scripted model: echoes each prompt
  --faux-script <file.json>     Offline scripted model replaying a script (then echoing)
  --export <file> [out.html]    Export a session file to HTML and exit
                                (default ./settle-session-<file name>.html)
  --list-models [search]        List the models you have credentials for (provider/id), and exit
  --trace <file>                Save the run's lifecycle trace (states, retries, compactions) as JSON when
                                settle ends, also on a signal or an error; view it with settle trace <file>
  --inspect                     Watch the run's lifecycle live in a browser: prints "Inspector: <url>" on
                                stderr (127.0.0.1 only, the URL's token is the key) and serves until exit
  --inspect-port <n>            Port of the live inspector (implies --inspect; default 0: a free port)
  -h, --help                    Show this help
  -v, --version                 Show the version

Extensions can register their own flags (e.g. --plan); unknown options are checked against them.
${flags}
Faux script (JSON array, one step per model call):
  ["plain text reply", {"text": "…", "thinking": "…", "toolCalls": [{"name": "bash", "arguments": {"command": "pwd"}}]},
   {"stopReason": "error", "errorMessage": "529 overloaded"}]

Models: real providers need @mariozechner/pi-ai installed and a key, either in the environment
(ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …) or in <agent dir>/auth.json
({"anthropic": {"type": "api_key", "key": "sk-…"}}); custom providers (Ollama, vLLM, proxies) in
<agent dir>/models.json, pi's format.

Coming from pi: a project's .pi/ folder is read as it is (its extensions once you trust the project:
--approve). Settle keeps its own global folder and does not read ~/.pi/agent unless you say so:
SETTLE_AGENT_DIR=~/.pi/agent settle … uses pi's keys, settings, models.json, extensions, skills,
prompts and sessions (and writes its sessions there). pi's package commands (install, remove,
list, update) work here too, into the same places; pi's config does not exist here.

Extensions' session_shutdown handlers are waited for at most 10 s on /reload, /new, /resume, /fork
and exit (then reported, and settle goes on): SETTLE_SHUTDOWN_TIMEOUT_MS=<ms|Infinity> changes it.

Exit codes: 0 ok, 1 failed (model error, startup error), 2 bad command line, 3 the session file
cannot be used (not a session, unreadable, its directory gone), 4 no API key for the model's
provider or the provider refused it, 5 the session file is in use by another settle (try again
once it exits); when interrupted (the request is aborted, its shell commands killed, the session
closed): 130 SIGINT, 143 SIGTERM, 129 SIGHUP, 141 stdout closed (settle --json … | head -1).

Examples:
  settle --faux -p "hello"                                  # prints: hello
  settle --faux-script demo.json --json "list the files"
  settle --model anthropic/claude-sonnet-4-5 -p "Review src/index.ts" --tools read,grep,find,ls
  settle --continue -p "What did we decide?"
  settle --continue -p "/compact Keep the API decisions"    # compacts that session
  echo '{"type":"prompt","message":"hi"}' | settle --rpc --faux
  settle -p "Fix the test" --trace run.json; settle trace run.json      # writes run.html
`;
}
