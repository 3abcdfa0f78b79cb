import Events

/// An entity's id as the `entries` views key it: its text, equal to another exactly when their
/// UTF-8 bytes are (`"é"` and `"e\u{301}"` are two entities, as they are two streams in the log).
public typealias EntityKey = UTF8Key
