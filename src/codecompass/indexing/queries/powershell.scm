; PowerShell tags.

(function_statement (function_name) @name) @definition.function

(class_statement . (simple_name) @name) @definition.class

(class_method_definition (simple_name) @name) @definition.function

(enum_statement . (simple_name) @name) @definition.enum

(command command_name: (command_name) @name) @reference.call

(invokation_expression (member_name) @name) @reference.call
