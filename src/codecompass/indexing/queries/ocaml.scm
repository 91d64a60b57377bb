; OCaml tags (.ml and .mli). A let with parameters (or bound to fun/function) is a
; function, any other let a constant; rules_more.py decides.

(let_binding pattern: (value_name) @name) @definition.function

(value_specification (value_name) @name) @definition.function

(type_binding name: (type_constructor) @name) @definition.type

(module_binding (module_name) @name) @definition.module

(module_type_definition (module_type_name) @name) @definition.interface

(class_binding (class_name) @name) @definition.class

(method_definition (method_name) @name) @definition.method

(application_expression function: (value_path) @name) @reference.call
