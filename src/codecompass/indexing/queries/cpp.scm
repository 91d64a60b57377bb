; C++ additions to c.scm. A namespace is a scope: it qualifies names (ns.Class.method)
; without being a symbol itself.

(class_specifier name: (_) @name body: (_)) @definition.class

(namespace_definition name: (_) @name) @scope.namespace

(new_expression type: (_) @name) @reference.call

(base_class_clause
  [(type_identifier) (qualified_identifier) (template_type)] @reference.inherit)
