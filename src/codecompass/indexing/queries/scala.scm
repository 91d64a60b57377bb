; Scala tags. Objects are classes (singletons): their defs are methods.

(class_definition name: (_) @name) @definition.class

(object_definition name: (_) @name) @definition.class

(trait_definition name: (_) @name) @definition.trait

(enum_definition name: (_) @name) @definition.enum

(type_definition name: (_) @name) @definition.type

(function_definition name: (_) @name) @definition.function

(function_declaration name: (_) @name) @definition.function

(call_expression function: [(identifier) (field_expression) (generic_function)] @name) @reference.call

(instance_expression . (type_identifier) @name) @reference.call

(extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @reference.inherit)
