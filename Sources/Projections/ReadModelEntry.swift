import Events

/// One entity of a read model as an ordered list of named text fields: the form diffs and audits
/// compare (`name: Harry Potter`, `isFavorite: true`, `phone.work: 808-836-8966`).
///
/// Field names are stable and human-readable; each model documents its own. A field the entity
/// does not have (a contact with no company) is absent rather than empty, so "added", "removed"
/// and "changed" read naturally in a diff.
public struct ReadModelEntry: Sendable, Equatable, Hashable {
  /// A named value.
  public struct Field: Sendable, Equatable, Hashable {
    /// What a field's text stands for, so JSON can write it as a JSON boolean or number.
    public enum Kind: Sendable, Equatable, Hashable {
      /// A string.
      case text
      /// `true` or `false`.
      case boolean
      /// A decimal number, as Swift's `description` of a `Double` writes it.
      case number
    }

    /// The field's stable name (`phone.work`).
    public var name: String
    /// Its value as text.
    public var value: String
    /// What `value` stands for.
    public var kind: Kind

    /// A field named `name` holding `value`, of `kind`.
    public init(name: String, value: String, kind: Kind = .text) {
      self.name = name
      self.value = value
      self.kind = kind
    }
  }

  /// The fields, in the model's fixed order.
  public var fields: [Field]

  /// An entry with `fields`, in order.
  public init(fields: [Field] = []) {
    self.fields = fields
  }

  /// The value of field `name`, or `nil` when the entity does not have it.
  public subscript(name: String) -> String? {
    fields.first { $0.name == name }?.value
  }

  /// Appends a field.
  mutating func append(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Appends a boolean field (`true`/`false`).
  mutating func append(_ name: String, boolean value: Bool) {
    fields.append(Field(name: name, value: value ? "true" : "false", kind: .boolean))
  }

  /// Appends a number field.
  mutating func append(_ name: String, number value: Double) {
    fields.append(Field(name: name, value: value.description, kind: .number))
  }

  /// Appends a field when `value` is not `nil`.
  mutating func append(_ name: String, _ value: String?) {
    if let value { fields.append(Field(name: name, value: value)) }
  }

  /// Appends a field when `value` is not empty.
  mutating func append(_ name: String, unlessEmpty value: String) {
    if !value.isEmpty { fields.append(Field(name: name, value: value)) }
  }
}

/// The differences between two states of a read model, entity by entity and field by field.
///
/// Build it from two `entries` views: `EntryDiff(from: before.entries, to: after.entries)`.
public struct EntryDiff: Sendable, Equatable {
  /// One field that differs; `before` or `after` is `nil` when the field was absent.
  public struct FieldDifference: Sendable, Equatable, Hashable {
    /// The field's name.
    public var name: String
    /// Its value in the old state; `nil` when the field was absent.
    public var before: String?
    /// Its value in the new state; `nil` when the field is absent.
    public var after: String?
    /// What the values stand for (a field keeps its kind on both sides).
    public var kind: ReadModelEntry.Field.Kind = .text
  }

  /// An entity present on both sides whose fields differ.
  public struct Change: Sendable, Equatable {
    /// The entity's id.
    public var id: String
    /// The fields that differ, as `EntryDiff.differences(from:to:)` lists them.
    public var fields: [FieldDifference]
  }

  /// Entities only in the new state, with their fields; ascending by id's bytes.
  public var added: [(id: String, entry: ReadModelEntry)]
  /// Entities only in the old state, with their fields; ascending by id's bytes.
  public var removed: [(id: String, entry: ReadModelEntry)]
  /// Entities in both whose fields differ; ascending by id's bytes.
  public var changed: [Change]

  /// Compares two `entries` views.
  /// - Complexity: O(n log n) for n entities (the ids are sorted), plus the fields compared.
  public init(from old: [EntityKey: ReadModelEntry], to new: [EntityKey: ReadModelEntry]) {
    added = new.keys.filter { old[$0] == nil }.sorted().compactMap { id in
      new[id].map { (id.rawValue, $0) }
    }
    removed = old.keys.filter { new[$0] == nil }.sorted().compactMap { id in
      old[id].map { (id.rawValue, $0) }
    }
    changed = old.keys.sorted().compactMap { id in
      guard let before = old[id], let after = new[id], before != after else { return nil }
      return Change(id: id.rawValue, fields: Self.differences(from: before, to: after))
    }
  }

  /// Whether the two states hold the same entities with the same fields.
  public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

  /// The fields that differ between two versions of one entity (`nil` for an entity that does
  /// not exist on that side): first the fields of `after` in its order, then those only in
  /// `before`.
  public static func differences(
    from before: ReadModelEntry?, to after: ReadModelEntry?
  ) -> [FieldDifference] {
    let beforeFields = before?.fields ?? []
    let afterFields = after?.fields ?? []
    var differences: [FieldDifference] = []
    for field in afterFields {
      let old = beforeFields.first { $0.name == field.name }?.value
      if old != field.value {
        differences.append(
          FieldDifference(name: field.name, before: old, after: field.value, kind: field.kind))
      }
    }
    for field in beforeFields where !afterFields.contains(where: { $0.name == field.name }) {
      differences.append(
        FieldDifference(name: field.name, before: field.value, after: nil, kind: field.kind))
    }
    return differences
  }

  public static func == (lhs: EntryDiff, rhs: EntryDiff) -> Bool {
    lhs.added.elementsEqual(rhs.added) { $0.id == $1.id && $0.entry == $1.entry }
      && lhs.removed.elementsEqual(rhs.removed) { $0.id == $1.id && $0.entry == $1.entry }
      && lhs.changed == rhs.changed
  }
}
