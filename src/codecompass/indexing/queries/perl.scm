; Perl tags.

(package_statement name: (package) @name) @definition.module

(subroutine_declaration_statement name: (bareword) @name) @definition.function
