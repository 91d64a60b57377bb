; Dart tags. The grammar keeps a function's body beside its signature, not inside it;
; rules_more.py widens the symbol over that body.

(class_definition name: (identifier) @name) @definition.class

(mixin_declaration (identifier) @name) @definition.trait

(extension_declaration name: (identifier) @name) @definition.class

(enum_declaration name: (identifier) @name) @definition.enum

(type_alias (type_identifier) @name) @definition.type

(program (function_signature name: (identifier) @name) @definition.function)

(method_signature (function_signature name: (identifier) @name)) @definition.function

(method_signature (getter_signature name: (identifier) @name)) @definition.function

(method_signature (setter_signature name: (identifier) @name)) @definition.function

; `operator ==` is the method `operator==`, as C++ names it (rules_more.py).
(method_signature (operator_signature)) @definition.function

; Constructors, named by rules_more.py: `Point(…)` is `Point.Point`, `Point.origin(…)`
; is `Point.origin` (also `const` and `factory` ones).
(method_signature (constructor_signature)) @definition.function

(method_signature (factory_constructor_signature)) @definition.function

(declaration (constant_constructor_signature)) @definition.function

(declaration (constructor_signature)) @definition.function

(declaration (function_signature name: (identifier) @name)) @definition.function

(program
  (static_final_declaration_list
    (static_final_declaration (identifier) @name) @definition.constant))

; A call is a selector holding arguments; rules_more.py reads the callee from the
; selectors and the name before it (`Builder().build`).
(selector (argument_part)) @reference.call

(new_expression (type_identifier) @name) @reference.call

(const_object_expression (type_identifier) @name) @reference.call

(superclass (type_identifier) @reference.inherit)

(mixins (type_identifier) @reference.inherit)

(interfaces (type_identifier) @reference.inherit)

(import_specification (configurable_uri) @reference.import)
