; Perl tags.

(package_statement name: (package) @name) @definition.module

; A sub with its block: `sub name;` alone only declares it ahead.
(subroutine_declaration_statement name: (bareword) @name (block)) @definition.function

(function_call_expression function: (function) @name) @reference.call

(ambiguous_function_call_expression function: (function) @name) @reference.call

; `$obj->run(…)` and `Class->new`, named `obj.run` / `Class.new` by rules_more.py.
(method_call_expression) @reference.call

(use_statement (package) @name) @reference.import

(require_expression (bareword) @name) @reference.import
