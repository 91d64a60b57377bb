; JSON tags: the keys of the top-level object.

(document (object (pair key: (_) @name) @definition.section))
