/**
 * `value` as one POSIX shell word: as it is when it holds only safe characters, else single-quoted,
 * for a command line a user can paste (hints that name a path or a folder).
 * @internal
 */
export function shellWord(value: string): string {
	return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
