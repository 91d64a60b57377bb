; Java tags.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(annotation_type_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

; The callee is the text before the argument list: "obj.method", "System.out.println".
(method_invocation) @reference.call

(object_creation_expression type: (_) @name) @reference.call

(import_declaration) @reference.import

(superclass (_) @reference.inherit)

(super_interfaces (type_list (_) @reference.inherit))

(extends_interfaces (type_list (_) @reference.inherit))

; An enum constant with a body is a class of its own: its methods are its
; (`TokeniserState.BogusComment.read`, not one of 70 `TokeniserState.read`s).
(enum_constant name: (identifier) @name body: (class_body)) @definition.class

; A field set to an anonymous class names that class's methods (`Registry.ticker.run`).
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (object_creation_expression (class_body)))) @scope.field
