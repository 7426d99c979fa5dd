// Creates the notes of a batch that did not exist (write_existing said so;
// the project lock keeps it true). doc (JSON) and targets ([rev, target of
// each link or '']) are what reads return; title, content, tagsNorm, hash,
// path, mtime, keys and linkKeys serve queries and indexes. The
// out-degree is known (distinct resolved targets); the in-degree starts at
// zero and write_add_in_degrees counts up the links this batch creates.
UNWIND $rows AS row
CREATE (:Note {
  project: $project,
  id: row.id,
  doc: row.doc,
  targets: row.targets,
  title: row.title,
  path: row.path,
  content: row.content,
  tagsNorm: row.tagsNorm,
  hash: row.hash,
  mtime: row.mtime,
  keys: row.keys,
  linkKeys: row.linkKeys,
  inDegree: 0,
  outDegree: size(row.found)
})
