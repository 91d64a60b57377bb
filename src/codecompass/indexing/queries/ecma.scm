; Patterns shared by the JavaScript, TypeScript and TSX grammars.

(function_declaration name: (_) @name) @definition.function

(generator_function_declaration name: (_) @name) @definition.function

(class_declaration name: (_) @name) @definition.class

(class_body (method_definition name: (_) @name) @definition.method)

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Module-level constants, exported or not; rules.py keeps only ALL_CAPS names.
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.constant)))

(call_expression function: (_) @name) @reference.call

(new_expression constructor: (_) @name) @reference.call

(import_statement) @reference.import

(export_statement source: (_)) @reference.import
