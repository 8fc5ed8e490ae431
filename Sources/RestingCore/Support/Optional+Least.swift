/// The lesser of two values either of which may be absent: the one there is, or `nil` when neither is — the earliest
/// of two deadlines, the shortest of two timeouts, where `nil` means no limit. Inlinable: the deadline link in its own
/// module calls it for every call.
@inlinable
package func least<Value: Comparable>(_ one: Value?, _ other: Value?) -> Value? {
    guard let one, let other else { return one ?? other }
    return min(one, other)
}
