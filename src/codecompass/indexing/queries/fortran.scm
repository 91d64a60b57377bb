; Fortran tags: modules and programs, functions and subroutines, derived types and
; interfaces.

(module (module_statement (name) @name)) @definition.module

(program (program_statement (name) @name)) @definition.module

(function (function_statement name: (_) @name)) @definition.function

(subroutine (subroutine_statement name: (_) @name)) @definition.function

(derived_type_definition (derived_type_statement (type_name) @name)) @definition.struct

(interface (interface_statement (name) @name)) @definition.interface

(subroutine_call subroutine: (_) @name) @reference.call

(call_expression . (identifier) @name) @reference.call

(use_statement (module_name) @name) @reference.import
