/// A first-come, first-served lock for async code: SQLite has one writer, so the SQLite
/// backend runs one unit of work at a time on its connection. With more than one permit it
/// lets that many holders in at once.
actor AsyncLock {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(permits: Int = 1) {
        precondition(permits > 0, "a lock needs at least one permit")
        available = permits
    }

    private func acquire() async {
        guard available == 0 else {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `body` while holding the lock.
    nonisolated func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }
}
