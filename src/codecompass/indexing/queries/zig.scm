; Zig tags. `const List = struct {…}` is a struct List; a top-level constant bound to a
; literal is a constant.

(variable_declaration (identifier) @name (struct_declaration)) @definition.struct

(variable_declaration (identifier) @name (union_declaration)) @definition.struct

(variable_declaration (identifier) @name (opaque_declaration)) @definition.struct

(variable_declaration (identifier) @name (enum_declaration)) @definition.enum

(function_declaration name: (identifier) @name) @definition.function

(source_file
  (variable_declaration (identifier) @name [(integer) (float) (string)]) @definition.constant)

(call_expression function: (_) @name) @reference.call

; `const posix = @import("posix.zig");` (a file beside this one) or `@import("std")`.
(builtin_function
  (builtin_identifier) @_builtin (#eq? @_builtin "@import")
  (arguments (string (string_content) @name))) @reference.import
