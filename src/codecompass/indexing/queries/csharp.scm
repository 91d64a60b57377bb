; C# tags. Namespaces are left out of qualified names.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(struct_declaration name: (identifier) @name) @definition.struct

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(delegate_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

; `operator ==` is the method `operator==`, as C++ names it (rules.py).
(operator_declaration operator: _ @name) @definition.method

; A property with code in an accessor or an arrow body runs like a method; an
; auto-property (`{ get; set; }`) is data.
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list (accessor_declaration body: (_)))) @definition.method

(property_declaration name: (identifier) @name value: (arrow_expression_clause)) @definition.method

(local_function_statement name: (identifier) @name) @definition.function

(invocation_expression function: (_) @name) @reference.call

(object_creation_expression type: (_) @name) @reference.call

(using_directive) @reference.import

(base_list (_) @reference.inherit)
