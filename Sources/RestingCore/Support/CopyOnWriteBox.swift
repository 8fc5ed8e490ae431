/// A value type's fields behind one reference, copied before a write when another value shares them: what keeps
/// `HTTPRequest` and `HTTPDataResponse` one word wide in every async frame they pass through.
///
/// ```swift
/// public var status: Int {
///     get { box.fields.status }
///     _modify { yield &CopyOnWriteBox.unique(&box).fields.status }
/// }
/// ```
///
/// Safe to send because a shared box is never written: every write goes through `unique(_:)`. The fields skip
/// the runtime's exclusivity check (one per access, otherwise): they are reached only through the owning value's
/// accessors, whose overlapping accesses the compiler already rules out statically.
final class CopyOnWriteBox<Fields: Sendable>: @unchecked Sendable {
    @exclusivity(unchecked) var fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    /// `box`, replaced by a copy first if another value shares it: the box a write may go to.
    static func unique(_ box: inout CopyOnWriteBox) -> CopyOnWriteBox {
        if !isKnownUniquelyReferenced(&box) { box = CopyOnWriteBox(box.fields) }
        return box
    }
}
