; C tags (also loaded for C++). Function names are read from the declarator chain.

(function_definition) @definition.function

(struct_specifier name: (_) @name body: (_)) @definition.struct

(union_specifier name: (_) @name body: (_)) @definition.struct

(enum_specifier name: (_) @name body: (_)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.constant

(preproc_function_def name: (identifier) @name) @definition.function

(call_expression function: (_) @name) @reference.call

(preproc_include path: (_) @name) @reference.import
