; Go tags.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration name: (field_identifier) @name) @definition.method

; Interface methods: a call through an interface value links to them.
(method_elem name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct

(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

; Package-level variables (a function literal's is a function), one spec or a block.
(source_file
  (var_declaration
    (var_spec
      name: (identifier) @name
      value: (expression_list . (func_literal))) @definition.function))

(source_file
  (var_declaration
    (var_spec_list
      (var_spec
        name: (identifier) @name
        value: (expression_list . (func_literal))) @definition.function)))

(source_file
  (var_declaration (var_spec name: (identifier) @name) @definition.variable))

(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(call_expression function: (_) @name) @reference.call

(import_spec path: (_) @name) @reference.import

; Embedded fields and embedded interfaces are Go's closest thing to inheritance.
(field_declaration_list
  (field_declaration !name type: (_) @reference.inherit))

(interface_type (type_elem (_) @reference.inherit))
