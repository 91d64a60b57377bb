; SQL tags: tables are structs, views types, functions and procedures functions.

(create_table (object_reference) @name) @definition.struct

(create_view (object_reference) @name) @definition.type

(create_materialized_view (object_reference) @name) @definition.type

(create_function (object_reference) @name) @definition.function

(create_type (object_reference) @name) @definition.type
