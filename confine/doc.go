// Package confine does file operations beneath one folder (a vault, a
// document root) so that nothing can make them act outside it: not a ".."
// in a name, not a symbolic link, and not a folder or file swapped for a
// symbolic link between a check and the operation (the race that a check
// by name followed by a use by name loses).
//
// On Linux and macOS every operation walks its path from a handle on the
// root, one name at a time, opening each folder with O_NOFOLLOW|
// O_DIRECTORY relative to the handle of the one before, and then acts on
// the last name relative to the handle of its folder (openat, renameat,
// unlinkat...). A symbolic link anywhere along the path is refused
// (ErrSymlink), whether it leads out of the root or not, because the vault
// neither follows nor indexes links; a file where a folder is needed gives
// ErrNotDir naming it. Elsewhere (Windows) the package uses Go's os.Root,
// which never leaves the root but follows links that stay inside it.
//
// Writes are atomic: the data goes to a hidden temporary file
// (".vaultgraph-*.tmp") in the target's folder, is flushed, and is then
// renamed into place, so a reader or a crash sees the old content or the
// new, never a mix. Swap is a compare-and-swap for read-modify-write: it
// replaces a file only if its content is still what the caller based the
// change on. On Linux the last check is atomic with the replacement
// (renameat2 RENAME_EXCHANGE: the file that was replaced is kept and
// checked after the exchange, and put back if an outside edit had landed
// in between); on macOS RENAME_SWAP does the same; elsewhere a window of
// microseconds remains between the check and the rename.
//
// Paths are slash-separated and relative to the root; "" is the root.
// A path with "..", an empty or "." segment, a leading "/" or a NUL is
// refused with ErrInvalidPath (callers clean paths first).
package confine
