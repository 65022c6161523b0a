; Kotlin: classes and interfaces (both class_declaration), objects, functions and type aliases.
; The grammar has no field names, so the name is the identifier child of each node.
(class_declaration (type_identifier) @name.class)
(object_declaration (type_identifier) @name.class)
(companion_object "companion" @name.class)
(class_body (function_declaration (simple_identifier) @name.method))
(function_declaration (simple_identifier) @name.function)
(type_alias (type_identifier) @name.type)
