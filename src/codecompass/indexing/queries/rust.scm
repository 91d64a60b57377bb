; Rust tags. An impl block is a scope: it qualifies its functions (Foo.bar) without
; being a symbol itself.

(function_item name: (identifier) @name) @definition.function

(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct

(union_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(trait_item name: (type_identifier) @name) @definition.trait

(type_item name: (type_identifier) @name) @definition.type

(mod_item name: (identifier) @name body: (_)) @definition.module

(macro_definition name: (identifier) @name) @definition.function

(source_file (const_item name: (identifier) @name) @definition.constant)

(source_file (static_item name: (identifier) @name) @definition.constant)

(impl_item type: (_) @name) @scope.type

(call_expression function: (_) @name) @reference.call

(use_declaration argument: (_) @name) @reference.import

(impl_item trait: (_) @reference.inherit)

(trait_item bounds: (trait_bounds (_) @reference.inherit))
