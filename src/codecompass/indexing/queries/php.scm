; PHP tags. Namespaces are left out of qualified names.

(function_definition name: (name) @name) @definition.function

(class_declaration name: (name) @name) @definition.class

(interface_declaration name: (name) @name) @definition.interface

(trait_declaration name: (name) @name) @definition.trait

(enum_declaration name: (name) @name) @definition.enum

(method_declaration name: (name) @name) @definition.method

(function_call_expression function: (_) @name) @reference.call

; The callee is the text before the argument list: "$this->render", "User::find".
(member_call_expression) @reference.call

(nullsafe_member_call_expression) @reference.call

(scoped_call_expression) @reference.call

(object_creation_expression [(name) (qualified_name)] @name) @reference.call

(namespace_use_clause) @reference.import

; `Song::class` names a class: a relation's model, a route's controller, an observer
; (rules.py keeps only `::class`).
(class_constant_access_expression) @reference.type

(base_clause (_) @reference.inherit)

(class_interface_clause (_) @reference.inherit)

(use_declaration (_) @reference.inherit)
