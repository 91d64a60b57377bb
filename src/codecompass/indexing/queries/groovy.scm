; Groovy tags.

(class_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.function

(constructor_declaration name: (identifier) @name) @definition.function

(function_definition name: (identifier) @name) @definition.function

; The callee is the receiver and name before the arguments.
(method_invocation name: (_)) @reference.call

(juxt_function_call name: (_) @name) @reference.call

(object_creation_expression type: (_) @name) @reference.call

(superclass (type_identifier) @reference.inherit)

(super_interfaces (type_list (type_identifier) @reference.inherit))

(import_declaration (scoped_identifier) @reference.import)
