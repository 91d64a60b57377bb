; Objective-C tags. An @implementation is a scope: it qualifies its methods
; (Counter.increment) without repeating the class its @interface declares. Methods are
; captured without @name (rules_more.py finds it), which keeps the query fast to compile.

(class_interface . (identifier) @name) @definition.class

(class_implementation . (identifier) @name) @scope.type

(protocol_declaration . (identifier) @name) @definition.interface

(protocol_declaration (method_declaration) @definition.function)

(method_definition) @definition.function

; A C function, its name found under its declarator (`static NSArray *f(…)` nests the
; function declarator in a pointer one), as for C.
(function_definition) @definition.function

(call_expression function: (identifier) @name) @reference.call

; `[receiver method:…]`, named `receiver.method` by rules_more.py.
(message_expression) @reference.call

(class_interface superclass: (identifier) @reference.inherit)
