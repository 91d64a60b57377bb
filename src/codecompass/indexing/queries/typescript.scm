; TypeScript-only patterns, used for both .ts and .tsx files.

(abstract_class_declaration name: (_) @name) @definition.class

(class_body (abstract_method_signature name: (_) @name) @definition.method)

(interface_declaration name: (_) @name) @definition.interface

; An interface's methods (yup's `StringSchema.nonNullable`, declared in the interface
; merged with its class, had no symbol).
(interface_body (method_signature name: (_) @name) @definition.method)

(type_alias_declaration name: (_) @name) @definition.type

(enum_declaration name: (_) @name) @definition.enum

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module

(module name: [(identifier) (nested_identifier)] @name) @definition.module

(extends_clause value: (_) @reference.inherit)

(implements_clause (_) @reference.inherit)

(extends_type_clause type: (_) @reference.inherit)

; A class field holding a function is a method.
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)

; A class field set to a function made by a call (`onBlur = withBatchedUpdates(() => …)`,
; `throttle(() => …, 50)`) is a method.
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name
    value: (call_expression
      arguments: (arguments . [(arrow_function) (function_expression)]))) @definition.method)
