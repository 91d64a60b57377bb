; JavaScript-only patterns (the TypeScript grammar shapes class heritage differently).

(class_heritage (_) @reference.inherit)

; A class field holding a function is a method.
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)

; A class field set to a function made by a call (`onBlur = withBatchedUpdates(() => …)`,
; `throttle(() => …, 50)`) is a method.
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: (call_expression
      arguments: (arguments . [(arrow_function) (function_expression)]))) @definition.method)
