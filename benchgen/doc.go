// Package benchgen generates deterministic synthetic vaults for benchmarks
// and tests: a folder of markdown notes shaped like a large real vault.
//
// What a generated vault holds, and why:
//   - nested folders (up to four levels below the root), so link keys
//     ("a/b/name") and path resolution are exercised;
//   - duplicate file names in different folders ("Index.md",
//     "Meeting notes.md", ...), linked by path ([[Projects/Alpha/Index]])
//     so each link still reaches the intended note; Obsidian's shortest-path
//     rule decides bare [[Index]] links, of which there are none;
//   - power-law in-degrees: about a third of links go to hub notes drawn
//     from a Zipf distribution over a seeded ranking of notes, so a few
//     hubs collect thousands of in-links in a 10k-note vault; the rest go to
//     uniformly chosen notes;
//   - heavy-tailed note sizes: log-normal around a 1.2 KB median (mean
//     about 3 KB), clamped to 100 B .. 300 KB, with out-degree growing with
//     size, plus "map of content" notes with hundreds of links;
//   - frontmatter (title, tags, dates, status, aliases, a "related"
//     wikilink), frontmatter tags and inline #tags from a Zipf-weighted
//     vocabulary with nested tags (#area/ml);
//   - broken links (about 5%) to names no note has, and link syntax
//     variants: aliases, headings, embeds, markdown links by vault path,
//     plus text that looks like links and tags inside code blocks, which a
//     correct parser ignores.
//
// The same Config (notes and seed) always gives byte-identical files:
// every choice comes from math/rand/v2 PCG streams keyed by the seed (one
// for the vault's plan, one per note), never from time, maps or goroutine
// scheduling. The Manifest describes what was written (paths, tags,
// intended link counts, in-degrees) so benchmarks draw realistic
// arguments and tests can check a parser against it.
package benchgen
