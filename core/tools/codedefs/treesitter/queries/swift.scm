; Swift: classes, structs, enums and extensions (all class_declaration), protocols, initialisers,
; methods and functions, type aliases.
(protocol_declaration name: (type_identifier) @name.interface)
(class_declaration name: (_) @name.class)
(protocol_function_declaration name: (simple_identifier) @name.method)
(init_declaration "init" @name.method)
(class_body (function_declaration name: (simple_identifier) @name.method))
(function_declaration name: (simple_identifier) @name.function)
(typealias_declaration name: (type_identifier) @name.type)
