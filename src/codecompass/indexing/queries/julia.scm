; Julia tags. `f(x) = …` at the top of a file or module is a function f.

(module_definition name: (identifier) @name) @definition.module

(struct_definition (type_head) @name) @definition.struct

(abstract_definition (type_head) @name) @definition.type

(function_definition (signature) @name) @definition.function

(macro_definition (signature) @name) @definition.function

(source_file (assignment . (call_expression) @name) @definition.function)

(module_definition (assignment . (call_expression) @name) @definition.function)

; `f(x)::T = …`, `f(x::T) where {T} = …` and both.
(source_file
  (assignment .
    [(typed_expression . (call_expression) @name)
     (where_expression . (call_expression) @name)
     (where_expression . (typed_expression . (call_expression) @name))]) @definition.function)

(module_definition
  (assignment .
    [(typed_expression . (call_expression) @name)
     (where_expression . (call_expression) @name)
     (where_expression . (typed_expression . (call_expression) @name))]) @definition.function)

(source_file (const_statement (assignment . (identifier) @name)) @definition.constant)

(module_definition (const_statement (assignment . (identifier) @name)) @definition.constant)

; Calls, but not a function's own head (rules_more.py).
(call_expression . [(identifier) (field_expression)] @name) @reference.call

(broadcast_call_expression . [(identifier) (field_expression)] @name) @reference.call

; `using CSV, DataFrames`, `using .Utils`, `import Base.Iterators: take` (the module);
; `include("utils.jl")` is read by rules_more.py.
[
  (using_statement [(identifier) (import_path) (scoped_identifier)] @name)
  (import_statement [(identifier) (import_path) (scoped_identifier)] @name)
  (using_statement (selected_import . (_) @name))
  (import_statement (selected_import . (_) @name))
] @reference.import
