; Groovy tags.

(class_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.function

(constructor_declaration name: (identifier) @name) @definition.function

(function_definition name: (identifier) @name) @definition.function
