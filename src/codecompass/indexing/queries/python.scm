; Python tags. Capture names are shared by every language; see parse.py.

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

(type_alias_statement left: (type (identifier) @name)) @definition.type

; Module-level assignments; rules.py keeps only ALL_CAPS names of two or more characters
; (text predicates such as #match? are avoided in every query file, see treesitter.py).
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant))

(class_definition
  superclasses: (argument_list
    [(identifier) (attribute) (subscript)] @reference.inherit))

(call function: (_) @name) @reference.call

(import_statement) @reference.import

(import_from_statement) @reference.import
