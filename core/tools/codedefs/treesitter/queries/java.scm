; Java: classes, interfaces, enums, records, annotations, constructors and methods.
(class_declaration name: (identifier) @name.class)
(interface_declaration name: (identifier) @name.interface)
(enum_declaration name: (identifier) @name.type)
(record_declaration name: (identifier) @name.class)
(annotation_type_declaration name: (identifier) @name.interface)
(constructor_declaration name: (identifier) @name.method)
(method_declaration name: (identifier) @name.method)
