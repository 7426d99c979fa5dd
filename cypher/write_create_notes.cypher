// Creates the notes of a batch that did not exist (write_existing said so;
// the project lock keeps it true). doc (JSON: every field but content and
// targets, with the content's length and checksum), content (the text,
// stored once: reads and the fulltext index share it) and targets ([rev,
// target of each link or '']) are what reads return, head (JSON: title,
// tags and the content cut short) what reads of neighbours return; title,
// tagsNorm, hash, path, mtime, keys and linkKeys serve queries and indexes; entity* (null
// for a note that is no entity), rel* and compLinks serve the entity
// statements (see neo4jstore's doc). The
// out-degree is known (distinct resolved targets); the in-degree starts at
// zero and write_add_in_degrees counts up the links this batch creates (a
// staged write recounts at its end instead).
UNWIND $rows AS row
CREATE (:Note {
  project: $project,
  id: row.id,
  doc: row.doc,
  head: row.head,
  state: row.state,
  targets: row.targets,
  title: row.title,
  path: row.path,
  content: row.content,
  tagsNorm: row.tagsNorm,
  hash: row.hash,
  mtime: row.mtime,
  keys: row.keys,
  linkKeys: row.linkKeys,
  entityId: row.entityId,
  entityType: row.entityType,
  entityTitleKey: row.entityTitleKey,
  entitySlugKey: row.entitySlugKey,
  entitySummaryKey: row.entitySummaryKey,
  entityUpdated: row.entityUpdated,
  entityDoc: row.entityDoc,
  relTypes: row.relTypes,
  relLinks: row.relLinks,
  relNotes: row.relNotes,
  compLinks: row.compLinks,
  inDegree: 0,
  outDegree: size(row.found)
})
