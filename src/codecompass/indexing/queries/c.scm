; C tags (also loaded for C++). Function names are read from the declarator chain.

(function_definition) @definition.function

(struct_specifier name: (_) @name body: (_)) @definition.struct

(union_specifier name: (_) @name body: (_)) @definition.struct

(enum_specifier name: (_) @name body: (_)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.constant

(preproc_function_def name: (identifier) @name) @definition.function

(call_expression function: (_) @name) @reference.call

; A name used as a value: a function pointer in a table (`.exec = cmd_new_session_exec`), a
; callback handed on, `&fn`. The graph keeps those naming a function of the repository.
(initializer_pair value: (identifier) @name) @reference.value
(initializer_list (identifier) @name) @reference.value
(init_declarator value: (identifier) @name) @reference.value
(assignment_expression right: (identifier) @name) @reference.value
(argument_list (identifier) @name) @reference.value
(pointer_expression argument: (identifier) @name) @reference.value
(return_statement (identifier) @name) @reference.value

(preproc_include path: (_) @name) @reference.import
