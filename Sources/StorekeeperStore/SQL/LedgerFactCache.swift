import Foundation
import Synchronization

/// Decoded ledger facts by their row id.
///
/// A ledger row never changes its fact, so reading a chain's ledger again (every look, every
/// notification about it) need not decode the JSON of facts it has decoded before. Bounded;
/// it starts over when full.
final class LedgerFactCache: Sendable {
    private let facts = Mutex([Int64: LedgerFact]())
    let capacity: Int

    init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// The fact of row `id`, decoding `json` only when it is not cached.
    func fact(id: Int64, decoding json: () throws -> LedgerFact) rethrows -> LedgerFact {
        if let cached = facts.withLock({ $0[id] }) { return cached }
        let fact = try json()
        facts.withLock { facts in
            if facts.count >= capacity { facts.removeAll(keepingCapacity: true) }
            facts[id] = fact
        }
        return fact
    }
}
