; Bash tags.

(function_definition name: (word) @name) @definition.function
