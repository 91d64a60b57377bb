; Lua tags. `function M.f()` and `function M:m()` are qualified by their table
; (M.f, M.m); `local f = function () end` is a function f.

(function_declaration name: (_) @name) @definition.function

(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function

(chunk
  (assignment_statement
    (variable_list . name: (_) @name)
    (expression_list . value: (function_definition))) @definition.function)

(function_call name: (_) @name) @reference.call
