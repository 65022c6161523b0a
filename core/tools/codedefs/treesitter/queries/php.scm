; PHP: classes, interfaces, traits, enums, methods and functions.
(class_declaration name: (name) @name.class)
(interface_declaration name: (name) @name.interface)
(trait_declaration name: (name) @name.interface)
(enum_declaration name: (name) @name.type)
(method_declaration name: (name) @name.method)
(function_definition name: (name) @name.function)
