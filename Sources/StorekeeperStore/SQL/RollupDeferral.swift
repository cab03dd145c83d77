import Synchronization

/// The rollup changes of a bulk load, held back from its transactions and written together
/// (``SQLStore/deferringRollups(_:)``).
///
/// Each transaction of a seed adds to many of the same daily cells as the ones before it: a
/// million subscriptions upserted about 72 million cells to leave 1.8 million. Held here, the
/// changes of many transactions are summed in memory and each cell is written once a flush.
final class RollupDeferral: Sendable {
    struct Key: Hashable, Comparable {
        var appId: String
        var environment: String

        static func < (a: Key, b: Key) -> Bool { (a.appId, a.environment) < (b.appId, b.environment) }
    }

    /// The changes held, by app and environment; `nil` while nothing is deferred.
    private let held = Mutex<[Key: RollupChanges]?>(nil)

    /// Starts holding changes; `false` when they already are (deferrals do not nest).
    func begin() -> Bool {
        held.withLock { held in
            guard held == nil else { return false }
            held = [:]
            return true
        }
    }

    /// Adds `changes` to those held and returns `true`, or returns `false` when nothing is deferred.
    func hold(_ changes: RollupChanges, appId: String, environment: String) -> Bool {
        held.withLock { held in
            guard held != nil else { return false }
            held?[Key(appId: appId, environment: environment), default: RollupChanges()].add(changes)
            return true
        }
    }

    /// Whether changes are being held.
    var isHolding: Bool { held.withLock { $0 != nil } }

    /// How many cells are held.
    var cellCount: Int { held.withLock { $0?.values.reduce(0) { $0 + $1.cells.count } ?? 0 } }

    /// The changes held, emptied; `ending` also stops holding them.
    func take(ending: Bool) -> [(key: Key, changes: RollupChanges)] {
        held.withLock { held in
            let taken = (held ?? [:]).sorted { $0.key < $1.key }.map { (key: $0.key, changes: $0.value) }
            held = ending ? nil : [:]
            return taken
        }
    }
}
