; TOML tags: top-level keys, tables ([tool.ruff]) and arrays of tables ([[bin]]).

(document (pair . (_) @name) @definition.section)

(table . (_) @name) @definition.section

(table_array_element . (_) @name) @definition.section
