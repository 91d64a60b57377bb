; Swift tags. class_declaration covers class, struct, enum, actor and extension; an
; extension is a scope: it qualifies its members (Circle.diameter) without being a symbol.
; Functions are captured without @name (rules_more.py reads their name field): naming
; the child made this query take 0.3 s to compile.

(class_declaration declaration_kind: "class" name: (_) @name) @definition.class

(class_declaration declaration_kind: "actor" name: (_) @name) @definition.class

(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct

(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum

(class_declaration declaration_kind: "extension" name: (_) @name) @scope.type

(protocol_declaration name: (_) @name) @definition.interface

(protocol_function_declaration) @definition.function

(function_declaration) @definition.function

(init_declaration "init" @name) @definition.function

; A computed property (`var body: some View { ... }`) is code that runs: a method.
(property_declaration computed_value: (computed_property)) @definition.function

(typealias_declaration name: (type_identifier) @name) @definition.type

(call_expression . [(simple_identifier) (navigation_expression)] @name) @reference.call

(inheritance_specifier (user_type) @reference.inherit)
