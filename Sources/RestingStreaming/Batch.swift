import RestingCore

/// Elements made in batches (the lines or events of one chunk) and handed out one at a time, in order.
struct Batch<Element> {
    private var elements: [Element] = []
    private var position = 0

    /// The next element of the current batch, or `nil` once it is used up.
    mutating func next() -> Element? {
        guard position < elements.count else { return nil }
        defer { position += 1 }
        return elements[position]
    }

    /// Starts over with `batch`.
    mutating func replace(with batch: [Element]) {
        elements = batch
        position = 0
    }
}
