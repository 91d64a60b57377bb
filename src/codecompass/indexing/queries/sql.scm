; SQL tags: tables are structs, views types, functions and procedures functions.

(create_table (object_reference) @name) @definition.struct

(create_view (object_reference) @name) @definition.type

(create_materialized_view (object_reference) @name) @definition.type

(create_function (object_reference) @name) @definition.function

(create_type (object_reference) @name) @definition.type

; A common table expression (`with customers as (…)`): a dbt model is a chain of them.
(cte . (identifier) @name) @definition.variable

; A relation read; rules_more.py keeps those a dbt model names with `{{ ref('…') }}`.
(relation (object_reference) @name) @reference.import
