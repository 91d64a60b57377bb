; Scala tags. Objects are classes (singletons): their defs are methods.

(class_definition name: (_) @name) @definition.class

(object_definition name: (_) @name) @definition.class

(trait_definition name: (_) @name) @definition.trait

(enum_definition name: (_) @name) @definition.enum

(type_definition name: (_) @name) @definition.type

(function_definition name: (_) @name) @definition.function

(function_declaration name: (_) @name) @definition.function
