; Ruby tags.

(class name: (_) @name) @definition.class

(module name: (_) @name) @definition.module

(method name: (_) @name) @definition.function

(singleton_method name: (_) @name) @definition.method

(assignment left: (constant) @name) @definition.constant

; The callee is the text before the arguments or block: "obj.method".
(call method: (_)) @reference.call

; A bare name as a statement (`sync_later if ok`, `import_market_data`) is a method
; called without arguments, unless the method assigned it (rules.py checks).
(body_statement (identifier) @reference.call)
(block_body (identifier) @reference.call)
(then (identifier) @reference.call)
(else (identifier) @reference.call)
(if_modifier body: (identifier) @reference.call)
(unless_modifier body: (identifier) @reference.call)
; …and in a value's place: an argument, an assigned or returned value, a hash value, a
; receiver, an operand, an interpolation (Jekyll's `log(relative_path)`, `url.sub(…)`).
(argument_list (identifier) @reference.call)
(assignment right: (identifier) @reference.call)
(pair value: (identifier) @reference.call)
(call receiver: (identifier) @reference.call)
(binary (identifier) @reference.call)
(interpolation (identifier) @reference.call)
(element_reference object: (identifier) @reference.call)
(parenthesized_statements (identifier) @reference.call)

(superclass (_) @reference.inherit)

; Arguments of include / extend / prepend (rules.py checks the method name).
(call
  !receiver
  method: (identifier)
  arguments: (argument_list (_) @reference.inherit))
