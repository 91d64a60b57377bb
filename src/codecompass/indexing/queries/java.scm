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
