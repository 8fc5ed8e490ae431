extension Duration {
    /// The whole milliseconds in this duration, for APIs that take a count of them.
    package var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }

    /// The duration in seconds, for APIs that take a `TimeInterval`.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
