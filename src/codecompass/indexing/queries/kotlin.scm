; Kotlin tags. An interface or an enum is a class_declaration with a keyword or a
; modifier; rules_more.py tells them apart. Objects are classes (singletons).

(class_declaration name: (_) @name) @definition.class

(object_declaration name: (_) @name) @definition.class

(companion_object) @definition.class

; An enum entry with a body is a subclass of its enum holding its overrides
; (rules_more.py names the enum as its base).
(enum_entry (identifier) @name (class_body)) @definition.class

(enum_entry (identifier) @reference.inherit (class_body))

(function_declaration name: (_) @name) @definition.function

(type_alias type: (identifier) @name) @definition.type

; A property whose getter or setter has a body runs code: a method.
(property_declaration
  (variable_declaration (identifier) @name)
  (getter (function_body))) @definition.function

(property_declaration
  (variable_declaration (identifier) @name)
  (setter (function_body))) @definition.function

; `const val` (const is Kotlin's only property_modifier): top level, or in an object or a
; companion object (`companion object { const val REQUIRED = "required" }`).
(source_file
  (property_declaration
    (modifiers (property_modifier))
    (variable_declaration (identifier) @name)) @definition.constant)

([(companion_object (class_body (property_declaration
    (modifiers (property_modifier))
    (variable_declaration (identifier) @name)) @definition.constant))
  (object_declaration (class_body (property_declaration
    (modifiers (property_modifier))
    (variable_declaration (identifier) @name)) @definition.constant))])

; Calls: the callee is the name or navigation before the arguments. A trailing lambda
; wraps a call in another call_expression, which is left out (its callee is a call).
(call_expression . [(identifier) (navigation_expression)] @name) @reference.call

(delegation_specifier (user_type) @reference.inherit)

(delegation_specifier (constructor_invocation (user_type) @reference.inherit))

(explicit_delegation (user_type) @reference.inherit)

(import (qualified_identifier) @reference.import)
