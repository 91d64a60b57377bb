; YAML tags: the top-level keys of each document.

(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair key: (_) @name) @definition.section))))

(stream
  (document
    (flow_node
      (flow_mapping
        (flow_pair key: (_) @name) @definition.section))))
