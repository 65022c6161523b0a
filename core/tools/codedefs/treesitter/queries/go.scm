; Go: functions, methods and named types (structs read as classes).
(method_declaration name: (field_identifier) @name.method)
(function_declaration name: (identifier) @name.function)
(type_spec name: (type_identifier) @name.interface type: (interface_type))
(type_spec name: (type_identifier) @name.class type: (struct_type))
(type_spec name: (type_identifier) @name.type)
(type_alias name: (type_identifier) @name.type)
