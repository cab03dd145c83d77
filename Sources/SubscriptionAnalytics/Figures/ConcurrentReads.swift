/// Reads of the figures one group or one cohort at a time wait for their statements (a round
/// trip each on PostgreSQL, a reader each on SQLite) and compute little in between, so a few of
/// them run at once.
extension SubscriptionAnalytics {
    /// How many groups or cohorts are read at once.
    static let concurrentReads = 4
}

extension Collection where Element: Sendable {
    /// `transform` of every element, at most `width` at a time, in the elements' order.
    func concurrentMap<T: Sendable>(width: Int, _ transform: @escaping @Sendable (Element) async throws -> T) async throws -> [T] {
        let elements = Array(self)
        return try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: elements.count)
            var next = 0
            while next < Swift.min(Swift.max(1, width), elements.count) {
                let (position, element) = (next, elements[next])
                group.addTask { (position, try await transform(element)) }
                next += 1
            }
            while let (position, result) = try await group.next() {
                results[position] = result
                guard next < elements.count else { continue }
                let (later, element) = (next, elements[next])
                group.addTask { (later, try await transform(element)) }
                next += 1
            }
            return results.map { $0! }
        }
    }
}
