; Bash tags.

(function_definition name: (word) @name) @definition.function

(command name: (command_name) @name) @reference.call
