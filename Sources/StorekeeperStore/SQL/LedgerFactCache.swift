import Foundation
import Synchronization

/// Decoded ledger facts by their key.
///
/// A fact's key ends with a digest of its content, so a key always names the same fact: reading
/// a chain's ledger again (every look, every notification about it) need not decode the JSON of
/// facts it has decoded before. Bounded; it starts over when full.
final class LedgerFactCache: Sendable {
    private let facts = Mutex([String: LedgerFact]())
    let capacity: Int

    init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// The fact stored under `key`, decoding `json` only when it is not cached.
    func fact(key: String, decoding json: () throws -> LedgerFact) rethrows -> LedgerFact {
        if let cached = facts.withLock({ $0[key] }) { return cached }
        let fact = try json()
        facts.withLock { facts in
            if facts.count >= capacity { facts.removeAll(keepingCapacity: true) }
            facts[key] = fact
        }
        return fact
    }
}
