; SCSS tags: mixins and functions, top-level variables and rule sets.

(mixin_statement name: (identifier) @name) @definition.function

(function_statement name: (identifier) @name) @definition.function

(stylesheet (declaration (property_name) @name) @definition.variable)

(stylesheet (rule_set (selectors) @name) @definition.section)
