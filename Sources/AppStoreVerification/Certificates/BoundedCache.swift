import Foundation

/// A small thread-safe cache with a fixed capacity that evicts the least recently used entry.
///
/// Lookups dominate (every verification of a known chain), insertions are rare (a new chain),
/// so a lock around a dictionary is cheaper than an actor hop; eviction scans the entries, which
/// only happens on insertion into a full cache.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // Safety: `entries` and `clock` are only read or written while `lock` is held, in the three
    // methods below; no reference to them escapes.
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    /// A reference, so marking an entry used on a hit does not write to (and rehash in) the
    /// dictionary.
    private final class Entry {
        let value: Value
        var lastUse: UInt64

        init(value: Value, lastUse: UInt64) {
            self.value = value
            self.lastUse = lastUse
        }
    }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries.reserveCapacity(self.capacity + 1)
    }

    /// The cached value for `key`, marking it as recently used.
    func value(for key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key] else { return nil }
        clock &+= 1
        entry.lastUse = clock
        return entry.value
    }

    /// Stores `value`, evicting the least recently used entry if the cache is full.
    func insert(_ value: Value, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        clock &+= 1
        if entries[key] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries.removeValue(forKey: oldest)
        }
        entries[key] = Entry(value: value, lastUse: clock)
    }

    /// Removes the entry for `key`, if any.
    func removeValue(for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeValue(forKey: key)
    }

    /// How many entries are cached.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
